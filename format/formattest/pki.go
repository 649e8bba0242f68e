package formattest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// PKI writes, under dir, the keys and certificates of a small Puppet
// fleet for tests, in Puppet's layout:
//
//	ssl/certs/ca.pem                 the CA certificate
//	ssl/certs/<node>.pem             each node's certificate (issued by the CA)
//	ssl/private_keys/<node>.pem      each node's private key (PKCS#1 RSA, or SEC1 EC)
//	signer/key.pem                   a CI signing key (ECDSA P-256, SEC1) and its
//	                                 certificate, issued by the CA
//	signer/ed25519.pem               a bare Ed25519 signing key (PKCS#8)
//	signer/ed25519.pub               its public key
//
// Node keys are RSA (2048 bits, as Puppet's CA issues) unless ec, then
// EC P-256.
func PKI(dir string, ec bool, nodes ...string) error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Puppet CA: test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return err
	}
	ca, _ := x509.ParseCertificate(caDER)
	certs, keys := filepath.Join(dir, "ssl", "certs"), filepath.Join(dir, "ssl", "private_keys")
	for _, d := range []string{certs, keys, filepath.Join(dir, "signer")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := writePEM(filepath.Join(certs, "ca.pem"), "CERTIFICATE", caDER); err != nil {
		return err
	}
	serial := int64(2)
	issue := func(name string, pub crypto.PublicKey) ([]byte, error) {
		serial++
		t := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: name},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(5 * 365 * 24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		}
		return x509.CreateCertificate(rand.Reader, t, ca, pub, caKey)
	}
	for _, n := range nodes {
		var pub crypto.PublicKey
		var typ string
		var der []byte
		if ec {
			k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				return err
			}
			pub, typ = k.Public(), "EC PRIVATE KEY"
			der, _ = x509.MarshalECPrivateKey(k)
		} else {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				return err
			}
			pub, typ, der = k.Public(), "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(k)
		}
		if err := writePEM(filepath.Join(keys, n+".pem"), typ, der); err != nil {
			return err
		}
		cert, err := issue(n, pub)
		if err != nil {
			return err
		}
		if err := writePEM(filepath.Join(certs, n+".pem"), "CERTIFICATE", cert); err != nil {
			return err
		}
	}
	sk, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	skDER, _ := x509.MarshalECPrivateKey(sk)
	sc, err := issue("ci-signer", sk.Public())
	if err != nil {
		return err
	}
	f := filepath.Join(dir, "signer", "key.pem")
	if err := writePEM(f, "EC PRIVATE KEY", skDER); err != nil {
		return err
	}
	if err := appendPEM(f, "CERTIFICATE", sc); err != nil {
		return err
	}
	epub, ek, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	ekDER, _ := x509.MarshalPKCS8PrivateKey(ek)
	epubDER, _ := x509.MarshalPKIXPublicKey(epub)
	if err := writePEM(filepath.Join(dir, "signer", "ed25519.pem"), "PRIVATE KEY", ekDER); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, "signer", "ed25519.pub"), "PUBLIC KEY", epubDER)
}

func writePEM(name, typ string, der []byte) error {
	return os.WriteFile(name, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}

func appendPEM(name, typ string, der []byte) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
