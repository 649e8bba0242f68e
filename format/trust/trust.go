// Package trust is the cryptography of signed and sealed bundles (format
// version 4, see format/SPEC.md), as agents need it: checking a bundle's
// signature (Verifier) and opening the secrets sealed to the node with its
// private key (OpenEnvelope). It reads the keys a Puppet fleet already
// has: PEM files, PKCS#8, or PKCS#1 RSA and SEC1 EC private keys as Puppet
// writes them, and X.509 certificates.
//
// The writer's half, signing a bundle and sealing secrets to a node's
// certificate, is package format/trust/sign, which the compiler uses and
// agents do not link; the rules both halves apply (schemes, key sizes,
// the key derivation, the envelopes' encryption) are written once, here.
//
// It uses the standard library only, and knows nothing of the bundle's
// encoding: package format decides what is signed and what is sealed.
package trust

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/hieracc/hieracc/format/internal/regular"
)

// Errors of verification and unsealing, wrapped with details; test with
// errors.Is.
var (
	// ErrUnsigned: a verifier was given and the bundle has no signature.
	ErrUnsigned = errors.New("bundle is not signed")
	// ErrBadSignature: the signature does not match the bundle (it was
	// changed, renamed or damaged after it was signed).
	ErrBadSignature = errors.New("bundle signature does not verify")
	// ErrUntrusted: the signature holds, but its signer is none of the
	// verifier's keys, or its certificate does not chain to the CA.
	ErrUntrusted = errors.New("bundle signed by an untrusted signer")
	// ErrWrongKey: the private key given cannot open the bundle's sealed
	// secrets (it is another node's, or of another type).
	ErrWrongKey = errors.New("private key does not open this bundle's sealed secrets")
)

// Signature schemes, as written in a bundle's signature.
const (
	SchemeEd25519 = "ed25519"
	SchemeECDSA   = "ecdsa-p256-sha256"
	SchemeRSA     = "rsa-pkcs1v15-sha256"
)

// Seal schemes, as written in a bundle's seal.
const (
	SealRSA  = "RSA-OAEP-SHA256/AES-256-GCM"
	SealECDH = "ECDH-P256-HKDF-SHA256/AES-256-GCM"
	// SealLabel is SealRSA's OAEP label and the purpose of SealECDH's key
	// derivation (ECDHKey).
	SealLabel = "hieracc bundle key v4"
)

// readPEM reads the PEM blocks of the file name; a file without any is an
// error naming it.
func readPEM(name string) ([]*pem.Block, error) {
	data, err := regular.Read(regular.OS, name, 16<<20) // a regular file: a CA bundle is a few hundred KB
	if err != nil {
		return nil, err
	}
	var blocks []*pem.Block
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%s: no PEM data (a key or certificate file, -----BEGIN ...)", name)
	}
	return blocks, nil
}

// ParsePrivateKey reads a private key in DER: PKCS#8, PKCS#1 RSA (Puppet's
// agents) or SEC1 EC. It accepts Ed25519, ECDSA P-256 and RSA keys.
func ParsePrivateKey(der []byte) (crypto.Signer, error) {
	var key any
	var err error
	if key, err = x509.ParsePKCS8PrivateKey(der); err != nil {
		if k, err1 := x509.ParsePKCS1PrivateKey(der); err1 == nil {
			key, err = k, nil
		} else if k, err2 := x509.ParseECPrivateKey(der); err2 == nil {
			key, err = k, nil
		}
	}
	if err != nil {
		return nil, errors.New("not a PKCS#8, PKCS#1 RSA or SEC1 EC private key")
	}
	switch k := key.(type) {
	case ed25519.PrivateKey:
		return k, nil
	case *rsa.PrivateKey:
		return k, nil
	case *ecdsa.PrivateKey:
		if k.Curve.Params().Name != "P-256" {
			return nil, fmt.Errorf("ECDSA key on %s: only P-256 is supported", k.Curve.Params().Name)
		}
		return k, nil
	}
	return nil, fmt.Errorf("unsupported private key type %T", key)
}

// ReadPrivateKey reads the first private key of the PEM file name (a
// Puppet agent's ssl/private_keys/<certname>.pem, or a signing key), and
// the certificates that follow it in the same file, leaf first.
func ReadPrivateKey(name string) (crypto.Signer, []*x509.Certificate, error) {
	blocks, err := readPEM(name)
	if err != nil {
		return nil, nil, err
	}
	var key crypto.Signer
	var certs []*x509.Certificate
	for _, b := range blocks {
		switch b.Type {
		case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
			if key != nil {
				return nil, nil, fmt.Errorf("%s: more than one private key", name)
			}
			if key, err = ParsePrivateKey(b.Bytes); err != nil {
				return nil, nil, fmt.Errorf("%s: %v", name, err)
			}
		case "CERTIFICATE":
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", name, err)
			}
			certs = append(certs, c)
		}
	}
	if key == nil {
		return nil, nil, fmt.Errorf("%s: no private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)", name)
	}
	return key, certs, nil
}

// ReadCertificates reads the certificates of the PEM file name, in order.
func ReadCertificates(name string) ([]*x509.Certificate, error) {
	blocks, err := readPEM(name)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for _, b := range blocks {
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s: no certificate", name)
	}
	return certs, nil
}
