package eyaml

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"strings"
)

// KeyPair is one eyaml level's PKCS7 keys: the private key and the
// certificate (eyaml's "public key") that encrypted values name as their
// recipient.
type KeyPair struct {
	// PrivatePath and PublicPath are the files as the configuration names
	// them, for messages; "" means the option is not defined.
	PrivatePath, PublicPath string
	// Private and Public are the files' PEM contents; ignored when the
	// matching Err is set.
	Private, Public       []byte
	PrivateErr, PublicErr error // reading the file failed
}

// Decrypter decrypts the ENC[...] values of one key pair. A problem with
// the keys is reported only by Decrypt, so a level whose files hold no
// encrypted value never fails for want of keys, as in Puppet. It is safe
// for concurrent use.
type Decrypter struct {
	key  *rsa.PrivateKey
	cert *x509.Certificate
	err  error // the keys' problem, reported for every block
}

// NewDecrypter parses kp's keys.
func NewDecrypter(kp KeyPair) *Decrypter {
	d := &Decrypter{}
	d.load(kp)
	return d
}

// Decrypt returns s with every encrypted block replaced by its plain text,
// as eyaml_lookup_key does for a string that Encrypted reports (one trailing
// line break of the result removed, blocks or not); decrypted says whether
// it held a block. The error is hiera-eyaml's message for the first block
// that fails.
func (d *Decrypter) Decrypt(s string) (plain string, decrypted bool, err error) {
	var b strings.Builder
	for _, t := range Parse(s) {
		if !t.Enc {
			b.WriteString(t.Text)
			continue
		}
		if t.Cipher == "" {
			// hiera-eyaml strips the whitespace and matches again, finding
			// nothing: a Ruby NoMethodError.
			return "", false, errors.New("undefined method `[]' for nil:NilClass")
		}
		if !strings.EqualFold(t.Scheme, "PKCS7") {
			return "", false, fmt.Errorf("cannot load such file -- hiera/backend/eyaml/encryptors/%s (hieracc, like Puppet without the hiera-eyaml-%s plugin, decrypts only PKCS7 values)",
				strings.ToLower(t.Scheme), strings.ToLower(t.Scheme))
		}
		p, err := d.decryptPKCS7(decode64(t.Cipher))
		if err != nil {
			return "", false, err
		}
		b.Write(p)
		decrypted = true
	}
	return chomp(b.String()), decrypted, nil
}

// chomp is Ruby's String#chomp: one trailing "\r\n", "\n" or "\r".
func chomp(s string) string {
	switch {
	case strings.HasSuffix(s, "\r\n"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "\n"), strings.HasSuffix(s, "\r"):
		return s[:len(s)-1]
	}
	return s
}

// load parses the key pair in the order hiera-eyaml's PKCS7 encryptor
// reads it, with its messages.
func (d *Decrypter) load(kp KeyPair) {
	switch {
	case kp.PublicPath == "":
		d.err = errors.New("pkcs7_public_key is not defined")
	case kp.PrivatePath == "":
		d.err = errors.New("pkcs7_private_key is not defined")
	case kp.PrivateErr != nil:
		d.err = readError(kp.PrivateErr, kp.PrivatePath)
	default:
		d.key, d.err = parsePrivateKey(kp.Private)
		if d.err != nil {
			break
		}
		if kp.PublicErr != nil {
			d.err = readError(kp.PublicErr, kp.PublicPath)
			break
		}
		d.cert, d.err = parseCertificate(kp.Public)
	}
}

// readError is Ruby's message for a File.read that failed.
func readError(err error, path string) error {
	var msg string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg = "No such file or directory @ rb_sysopen - " + path
	case errors.Is(err, fs.ErrPermission):
		msg = "Permission denied @ rb_sysopen - " + path
	default:
		msg = fmt.Sprintf("%v @ rb_sysopen - %s", err, path)
	}
	return errors.New(msg)
}

func parsePrivateKey(pemBytes []byte) (*rsa.PrivateKey, error) {
	bad := errors.New("Neither PUB key nor PRIV key: no start line")
	blk, _ := pem.Decode(pemBytes)
	if blk == nil {
		return nil, bad
	}
	if k, err := x509.ParsePKCS1PrivateKey(blk.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, bad
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("incorrect pkey type")
	}
	return rk, nil
}

func parseCertificate(pemBytes []byte) (*x509.Certificate, error) {
	blk, _ := pem.Decode(pemBytes)
	if blk == nil || blk.Type != "CERTIFICATE" {
		return nil, errors.New("PEM_read_bio_X509: no start line")
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("PEM_read_bio_X509: %v", err)
	}
	return c, nil
}

// The ASN.1 of PKCS#7 enveloped data (RFC 2315), as far as eyaml uses it.
type contentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"explicit,optional,tag:0"`
}

type envelopedData struct {
	Version              int
	RecipientInfos       []recipientInfo `asn1:"set"`
	EncryptedContentInfo encryptedContentInfo
}

type recipientInfo struct {
	Version                int
	IssuerAndSerialNumber  issuerAndSerial
	KeyEncryptionAlgorithm pkix.AlgorithmIdentifier
	EncryptedKey           []byte
}

type issuerAndSerial struct {
	Issuer       asn1.RawValue
	SerialNumber *big.Int
}

type encryptedContentInfo struct {
	ContentType                asn1.ObjectIdentifier
	ContentEncryptionAlgorithm pkix.AlgorithmIdentifier
	EncryptedContent           asn1.RawValue `asn1:"optional,tag:0"`
}

var (
	oidEnvelopedData = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 3}
	oidAES128CBC     = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC     = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC     = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC    = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

// errBadDecrypt is OpenSSL's message for a wrong key or damaged content:
// OpenSSL decrypts with a random key when the RSA step fails, so that the
// two cannot be told apart (Bleichenbacher's attack), and the padding
// check then fails.
var errBadDecrypt = errors.New("bad decrypt")

// decryptPKCS7 decrypts DER PKCS#7 enveloped data as Ruby's
// OpenSSL::PKCS7.new(der).decrypt(key, cert) does.
func (d *Decrypter) decryptPKCS7(der []byte) ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	var ci contentInfo
	var env envelopedData
	parseErr := errors.New("Could not parse the PKCS7: no start line")
	if rest, err := asn1.Unmarshal(der, &ci); err != nil || len(rest) > 0 {
		return nil, parseErr
	}
	if !ci.ContentType.Equal(oidEnvelopedData) {
		return nil, errors.New("wrong content type")
	}
	if rest, err := asn1.Unmarshal(ci.Content.Bytes, &env); err != nil || len(rest) > 0 {
		return nil, parseErr
	}
	if !d.key.PublicKey.Equal(d.cert.PublicKey) {
		return nil, errors.New("private key does not match certificate")
	}
	var ri *recipientInfo
	for i := range env.RecipientInfos {
		r := &env.RecipientInfos[i]
		if bytes.Equal(r.IssuerAndSerialNumber.Issuer.FullBytes, d.cert.RawIssuer) &&
			r.IssuerAndSerialNumber.SerialNumber != nil && r.IssuerAndSerialNumber.SerialNumber.Cmp(d.cert.SerialNumber) == 0 {
			ri = r
			break
		}
	}
	if ri == nil {
		return nil, errors.New("no recipient matches certificate")
	}
	eci := env.EncryptedContentInfo
	var newBlock func([]byte) (cipher.Block, error)
	keyLen := 0
	switch alg := eci.ContentEncryptionAlgorithm.Algorithm; {
	case alg.Equal(oidAES128CBC):
		newBlock, keyLen = aes.NewCipher, 16
	case alg.Equal(oidAES192CBC):
		newBlock, keyLen = aes.NewCipher, 24
	case alg.Equal(oidAES256CBC):
		newBlock, keyLen = aes.NewCipher, 32
	case alg.Equal(oidDESEDE3CBC):
		newBlock, keyLen = des.NewTripleDESCipher, 24
	default:
		return nil, errors.New("unsupported cipher type")
	}
	var iv []byte
	if rest, err := asn1.Unmarshal(eci.ContentEncryptionAlgorithm.Parameters.FullBytes, &iv); err != nil || len(rest) > 0 {
		return nil, errors.New("cipher parameter error")
	}
	content, err := octets(eci.EncryptedContent)
	if err != nil {
		return nil, parseErr
	}
	// eyaml's PKCS7 (OpenSSL's default) wraps the content key with PKCS #1
	// v1.5: there is no other way to read what eyaml wrote. The padding
	// oracle it can expose needs an attacker who can submit ciphertexts and
	// observe many decryptions; a compile decrypts the repo's own values.
	//lint:ignore SA1019 eyaml's format fixes PKCS #1 v1.5 key transport
	cek, err := rsa.DecryptPKCS1v15(nil, d.key, ri.EncryptedKey)
	if err != nil || len(cek) != keyLen {
		return nil, errBadDecrypt
	}
	block, err := newBlock(cek)
	if err != nil || len(iv) != block.BlockSize() {
		return nil, errBadDecrypt
	}
	bs := block.BlockSize()
	if len(content) == 0 || len(content)%bs != 0 {
		return nil, errBadDecrypt
	}
	plain := make([]byte, len(content))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, content)
	pad := int(plain[len(plain)-1])
	if pad == 0 || pad > bs {
		return nil, errBadDecrypt
	}
	for _, c := range plain[len(plain)-pad:] {
		if int(c) != pad {
			return nil, errBadDecrypt
		}
	}
	return plain[:len(plain)-pad], nil
}

// octets returns the content of an [0] IMPLICIT OCTET STRING, primitive or
// constructed (a series of OCTET STRINGs).
func octets(v asn1.RawValue) ([]byte, error) {
	if !v.IsCompound {
		return v.Bytes, nil
	}
	var out []byte
	rest := v.Bytes
	for len(rest) > 0 {
		var part []byte
		var err error
		rest, err = asn1.Unmarshal(rest, &part)
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	return out, nil
}
