package trust

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"time"
)

// Recipient is the node a bundle's secrets are sealed to: its agent
// certificate's public key (RSA, as Puppet's CA issues, or EC P-256) and
// the SHA-256 of the certificate's DER, which the bundle names.
type Recipient struct {
	Fingerprint [32]byte
	// Name is the certificate's subject common name: the node's certname,
	// as Puppet's CA issues it. Seal only to the recipient named as the
	// node.
	Name string
	rsa  *rsa.PublicKey
	ec   *ecdh.PublicKey
}

// NewRecipient returns the recipient of cert, which must be valid now;
// an RSA key must have at least MinRSABits.
func NewRecipient(cert *x509.Certificate) (*Recipient, error) {
	r := &Recipient{Fingerprint: sha256.Sum256(cert.Raw), Name: cert.Subject.CommonName}
	if err := validAt(cert, time.Now()); err != nil {
		return nil, fmt.Errorf("trust: certificate %v", err)
	}
	switch k := cert.PublicKey.(type) {
	case *rsa.PublicKey:
		if err := rsaSize(k); err != nil {
			return nil, fmt.Errorf("trust: certificate %q: %v", cert.Subject.CommonName, err)
		}
		r.rsa = k
	case *ecdsa.PublicKey:
		e, err := k.ECDH()
		if err != nil || k.Curve.Params().Name != "P-256" {
			return nil, fmt.Errorf("trust: certificate %q: EC key on %s: only P-256 is supported", cert.Subject.CommonName, k.Curve.Params().Name)
		}
		r.ec = e
	default:
		return nil, fmt.Errorf("trust: certificate %q: unsupported key type %T (RSA or EC P-256)", cert.Subject.CommonName, cert.PublicKey)
	}
	return r, nil
}

// ReadRecipient reads the first certificate of the PEM file name (a
// node's ssl/certs/<certname>.pem).
func ReadRecipient(name string) (*Recipient, error) {
	certs, err := ReadCertificates(name)
	if err != nil {
		return nil, err
	}
	r, err := NewRecipient(certs[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return r, nil
}

// Seal is a bundle's seal, as its header holds it: the scheme, the
// recipient's certificate fingerprint and the wrapped bundle key (RSA)
// or the ephemeral public key (ECDH).
type Seal struct {
	Scheme    string // "" when the bundle is not sealed
	Recipient [32]byte
	Wrapped   string
}

// Envelope holds the key of one sealed bundle and seals or opens its
// secrets: AES-256-GCM, with a synthetic nonce (HMAC-SHA256 of the key's
// name and plaintext under a key derived from the bundle key, cut to 12
// bytes), so a nonce repeats only with its plaintext, and the node and
// key name as associated data.
type Envelope struct {
	aead  cipher.AEAD
	nonce []byte // the HMAC key of the synthetic nonces
}

// NewEnvelope makes the seal of a bundle of node and env to r. With a
// signer, the bundle key (and the ephemeral ECDH key) derive from the
// signing key, node, env and r, so the bundle is reproducible (but for
// RSA-OAEP's random padding, in the seal only); without one, they are
// random.
func NewEnvelope(r *Recipient, s *Signer, node, env string) (*Seal, *Envelope, error) {
	seal := &Seal{Recipient: r.Fingerprint}
	info := [][]byte{[]byte(node), []byte(env), r.Fingerprint[:]}
	random := func(purpose string, n int) []byte {
		if s != nil {
			return s.derive(purpose, n, info...)
		}
		b := make([]byte, n)
		rand.Read(b)
		return b
	}
	var key []byte
	switch {
	case r.rsa != nil:
		seal.Scheme = SealRSA
		key = random("bundle key", 32)
		w, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, r.rsa, key, []byte(sealLabel))
		if err != nil {
			return nil, nil, fmt.Errorf("trust: sealing: %v", err)
		}
		seal.Wrapped = string(w)
	default:
		seal.Scheme = SealECDH
		var eph *ecdh.PrivateKey
		for i := 0; eph == nil; i++ {
			var err error
			if eph, err = ecdh.P256().NewPrivateKey(random(fmt.Sprintf("ecdh ephemeral %d", i), 32)); err != nil && i > 8 {
				return nil, nil, fmt.Errorf("trust: sealing: %v", err)
			}
		}
		shared, err := eph.ECDH(r.ec)
		if err != nil {
			return nil, nil, fmt.Errorf("trust: sealing: %v", err)
		}
		seal.Wrapped = string(eph.PublicKey().Bytes())
		key = ecdhKey(shared, eph.PublicKey().Bytes(), r.Fingerprint)
	}
	env2, err := newEnvelope(key)
	return seal, env2, err
}

// ecdhKey derives the bundle key from an ECDH shared secret.
func ecdhKey(shared, ephemeral []byte, fingerprint [32]byte) []byte {
	return derive(shared, sealLabel, 32, ephemeral, fingerprint[:])
}

func newEnvelope(key []byte) (*Envelope, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Envelope{aead: aead, nonce: derive(key, "nonce", 32)}, nil
}

// OpenEnvelope opens the seal with the node's private key (RSA or EC
// P-256); a key that cannot is ErrWrongKey.
func OpenEnvelope(seal *Seal, key crypto.PrivateKey) (*Envelope, error) {
	wrong := func(why string) error { return fmt.Errorf("%w: %s", ErrWrongKey, why) }
	switch seal.Scheme {
	case SealRSA:
		k, ok := key.(*rsa.PrivateKey)
		if !ok {
			return nil, wrong(fmt.Sprintf("the bundle is sealed with RSA, the key is %T", key))
		}
		if k == nil {
			return nil, wrong("a nil key")
		}
		bk, err := rsa.DecryptOAEP(sha256.New(), nil, k, []byte(seal.Wrapped), []byte(sealLabel))
		if err != nil || len(bk) != 32 {
			return nil, wrong("it is another node's key")
		}
		return newEnvelope(bk)
	case SealECDH:
		k, ok := key.(*ecdsa.PrivateKey)
		if !ok {
			return nil, wrong(fmt.Sprintf("the bundle is sealed with ECDH P-256, the key is %T", key))
		}
		if k == nil {
			return nil, wrong("a nil key")
		}
		ek, err := k.ECDH()
		if err != nil || k.Curve == nil || k.Curve.Params().Name != "P-256" {
			return nil, wrong("not a P-256 key")
		}
		pub, err := ecdh.P256().NewPublicKey([]byte(seal.Wrapped))
		if err != nil {
			return nil, fmt.Errorf("trust: the seal's ephemeral key: %v", err)
		}
		shared, err := ek.ECDH(pub)
		if err != nil {
			return nil, wrong(err.Error())
		}
		return newEnvelope(ecdhKey(shared, []byte(seal.Wrapped), seal.Recipient))
	}
	return nil, fmt.Errorf("trust: unknown seal scheme %q", seal.Scheme)
}

// Seal encrypts the plaintext of key name of node's bundle: nonce (12
// bytes), then ciphertext and tag.
func (e *Envelope) Seal(node, name string, plaintext []byte) []byte {
	m := hmac.New(sha256.New, e.nonce)
	m.Write(lengthPrefixed(name))
	m.Write(plaintext)
	nonce := m.Sum(nil)[:e.aead.NonceSize()]
	return e.aead.Seal(nonce, nonce, plaintext, associated(node, name))
}

// Open decrypts what Seal made; a blob that does not open (another key,
// another node or key name, damaged) is ErrWrongKey.
func (e *Envelope) Open(node, name string, blob []byte) ([]byte, error) {
	n := e.aead.NonceSize()
	if len(blob) < n+e.aead.Overhead() {
		return nil, errors.New("sealed value too short")
	}
	out, err := e.aead.Open(nil, blob[:n], blob[n:], associated(node, name))
	if err != nil {
		return nil, fmt.Errorf("%w: the sealed value of key %q does not open", ErrWrongKey, name)
	}
	return out, nil
}

// associated is the associated data of the blob of key name of node's
// bundle.
func associated(node, name string) []byte {
	b := []byte("hieracc sealed key v4\x00")
	b = append(b, lengthPrefixed(node)...)
	return append(b, lengthPrefixed(name)...)
}

func lengthPrefixed(s string) []byte {
	n := len(s)
	return append([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, s...)
}
