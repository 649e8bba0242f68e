// Package sign is the writer's half of package trust: what the compiler
// does to a bundle of format version 4 and later (format/SPEC.md) before
// it writes it. A Signer signs a bundle's header; NewEnvelope seals a
// node's secrets to its Puppet agent certificate (a Recipient), deriving
// the bundle key from the signing key so that a signed and sealed bundle
// is reproducible.
//
// Agents do neither: they verify signatures and open sealed secrets with
// package trust, which is all that runtime links. The rules both halves
// apply (the schemes, MinRSABits, the key derivation and the envelopes'
// encryption) are trust's, written once there; this package adds the
// choice of keys and the checks that refuse, before a compile, what a
// verifier would refuse after it (an expired certificate, a short RSA
// key).
package sign

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hieracc/hieracc/format/trust"
)

// Signer signs bundles with one private key, deterministically: the same
// message always gets the same signature (Ed25519, ECDSA per RFC 6979,
// RSA PKCS#1 v1.5). It also derives from its key the bundle keys and
// ephemeral keys of the bundles it seals, so that a signed and sealed
// bundle is reproducible.
type Signer struct {
	key    crypto.Signer
	scheme string
	certs  [][]byte
	secret []byte // the key in PKCS#8: the secret derivations start from
}

// NewSigner returns a Signer for key (Ed25519, ECDSA P-256 or RSA of at
// least trust.MinRSABits) and its certificate chain, leaf first (may be
// empty). The leaf must hold key's public key, and every certificate of
// the chain must be valid now: a verifier would refuse what it signs.
func NewSigner(key crypto.Signer, chain []*x509.Certificate) (*Signer, error) {
	s := &Signer{key: key}
	switch k := key.(type) {
	case ed25519.PrivateKey:
		s.scheme = trust.SchemeEd25519
	case *ecdsa.PrivateKey:
		if k.Curve.Params().Name != "P-256" {
			return nil, fmt.Errorf("trust: ECDSA signing key on %s: only P-256 is supported", k.Curve.Params().Name)
		}
		s.scheme = trust.SchemeECDSA
	case *rsa.PrivateKey:
		if err := trust.CheckRSAKey(&k.PublicKey); err != nil {
			return nil, fmt.Errorf("trust: signing key: %v", err)
		}
		s.scheme = trust.SchemeRSA
	default:
		return nil, fmt.Errorf("trust: unsupported signing key type %T", key)
	}
	if len(chain) > 0 {
		if leaf, ok := chain[0].PublicKey.(interface{ Equal(crypto.PublicKey) bool }); !ok || !leaf.Equal(key.Public()) {
			return nil, errors.New("trust: the signing certificate does not hold the signing key's public key")
		}
		now := time.Now()
		for i, c := range chain {
			what := "the signing certificate"
			if i > 0 {
				what = "certificate " + strconv.Itoa(i+1) + " of the signing chain"
			}
			if err := validAt(c, now); err != nil {
				return nil, fmt.Errorf("trust: %s: %v", what, err)
			}
			s.certs = append(s.certs, c.Raw)
		}
	}
	var err error
	if s.secret, err = x509.MarshalPKCS8PrivateKey(key); err != nil {
		return nil, fmt.Errorf("trust: %v", err)
	}
	return s, nil
}

// ReadSigner reads a signing key from the PEM file keyFile, with the
// certificates that follow the key in it, or, when certFile is not "",
// those of certFile instead.
func ReadSigner(keyFile, certFile string) (*Signer, error) {
	key, chain, err := trust.ReadPrivateKey(keyFile)
	if err != nil {
		return nil, err
	}
	if certFile != "" {
		if chain, err = trust.ReadCertificates(certFile); err != nil {
			return nil, err
		}
	}
	return NewSigner(key, chain)
}

// validAt refuses a certificate that is not valid at t.
func validAt(c *x509.Certificate, t time.Time) error {
	switch {
	case t.Before(c.NotBefore):
		return fmt.Errorf("%q is not valid before %s", c.Subject.CommonName, c.NotBefore.UTC().Format(time.RFC3339))
	case t.After(c.NotAfter):
		return fmt.Errorf("%q expired on %s", c.Subject.CommonName, c.NotAfter.UTC().Format(time.RFC3339))
	}
	return nil
}

// Sign signs msg.
func (s *Signer) Sign(msg []byte) (*trust.Signature, error) {
	var sig []byte
	var err error
	switch s.scheme {
	case trust.SchemeEd25519:
		sig, err = s.key.Sign(nil, msg, crypto.Hash(0))
	default:
		sum := sha256.Sum256(msg)
		sig, err = s.key.Sign(nil, sum[:], crypto.SHA256) // nil random: deterministic
	}
	if err != nil {
		return nil, fmt.Errorf("trust: signing: %v", err)
	}
	return &trust.Signature{Scheme: s.scheme, Certs: s.certs, Sig: sig}, nil
}

// derive is a secret of n bytes for purpose, from the signing key and the
// parts of info (each length-prefixed, so that no two lists collide).
func (s *Signer) derive(purpose string, n int, info ...[]byte) []byte {
	return trust.Derive(s.secret, purpose, n, info...)
}
