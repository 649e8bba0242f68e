package trust

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"fmt"
)

// Signature is a bundle's signature: its scheme, the signer's certificate
// chain (DER, leaf first; empty when a bare key signed) and the signature
// bytes.
type Signature struct {
	Scheme string
	Certs  [][]byte
	Sig    []byte
}

// MinRSABits is the smallest RSA key a Verifier takes, and package sign's
// signers and recipients.
const MinRSABits = 2048

// CheckRSAKey refuses an RSA key under MinRSABits: a verifier's rule, and
// the one package sign applies to signing keys and recipients.
func CheckRSAKey(k *rsa.PublicKey) error {
	if n := k.N.BitLen(); n < MinRSABits {
		return fmt.Errorf("RSA key of %d bits: at least %d are needed", n, MinRSABits)
	}
	return nil
}

func samePublic(a, b crypto.PublicKey) bool {
	x, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && x.Equal(b)
}

// Derive is the key derivation of signed and sealed bundles (format/SPEC.md):
// n bytes of HKDF-SHA256 of secret, salt "hieracc v4", for purpose and the
// parts of info (each length-prefixed, so that no two lists collide).
// Package sign derives a signer's bundle keys with it; the envelopes'
// nonce keys and the ECDH bundle keys (ECDHKey) derive with it here.
func Derive(secret []byte, purpose string, n int, info ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString(purpose)
	for _, p := range info {
		b.WriteByte(0)
		b.WriteByte(byte(len(p) >> 24))
		b.WriteByte(byte(len(p) >> 16))
		b.WriteByte(byte(len(p) >> 8))
		b.WriteByte(byte(len(p)))
		b.Write(p)
	}
	out, err := hkdf.Key(sha256.New, secret, []byte("hieracc v4"), b.String(), n)
	if err != nil {
		panic(err) // only for n beyond 255*32
	}
	return out
}

// Verifier checks bundle signatures: against public keys (the signer's
// key, or a certificate's), or against CA certificates that must have
// issued the signer's certificate and signer rules that it must match.
type Verifier struct {
	keys    []crypto.PublicKey
	roots   *x509.CertPool
	signers []signerRule // with roots: who may sign
}

// NewKeyVerifier accepts signatures made by any of keys (Ed25519, ECDSA
// P-256 or RSA public keys).
func NewKeyVerifier(keys ...crypto.PublicKey) *Verifier { return &Verifier{keys: keys} }

// NewCAVerifier accepts signatures whose signer's certificate (carried in
// the bundle, with its intermediates) chains to one of roots and matches
// one of the signer rules: a certname (ci.example.com), a pattern of
// certnames (*.ci.example.com, Go's path.Match), or EXT=VALUE, an
// extension the certificate carries with that value, EXT an OID or one of
// Puppet's extension names (pp_auth_role=hieracc-signer). Without a rule
// it is an error: a CA issues every agent's certificate, and any agent
// could then sign any node's bundle.
func NewCAVerifier(roots *x509.CertPool, signers ...string) (*Verifier, error) {
	if len(signers) == 0 {
		return nil, errNoSigner
	}
	v := &Verifier{roots: roots}
	for _, s := range signers {
		r, err := parseSignerRule(s)
		if err != nil {
			return nil, err
		}
		v.signers = append(v.signers, r)
	}
	return v, nil
}

// ReadKeyVerifier reads the public keys of the PEM file name: PUBLIC KEY
// blocks, and the keys of CERTIFICATE blocks.
func ReadKeyVerifier(name string) (*Verifier, error) {
	blocks, err := readPEM(name)
	if err != nil {
		return nil, err
	}
	v := &Verifier{}
	for _, b := range blocks {
		switch b.Type {
		case "PUBLIC KEY":
			k, err := x509.ParsePKIXPublicKey(b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			v.keys = append(v.keys, k)
		case "CERTIFICATE":
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			v.keys = append(v.keys, c.PublicKey)
		}
	}
	if len(v.keys) == 0 {
		return nil, fmt.Errorf("%s: no PUBLIC KEY or CERTIFICATE", name)
	}
	return v, nil
}

// ReadCAVerifier reads the CA certificates of the PEM file name (Puppet's
// ssl/certs/ca.pem, or the CA that issued the signing certificate) and
// returns NewCAVerifier of them and signers.
func ReadCAVerifier(name string, signers ...string) (*Verifier, error) {
	if _, err := NewCAVerifier(nil, signers...); err != nil {
		return nil, err // the rules, before the file
	}
	certs, err := ReadCertificates(name)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return NewCAVerifier(pool, signers...)
}

// SignatureError is a failed verification: Err is ErrUnsigned,
// ErrBadSignature or ErrUntrusted, Reason says more.
type SignatureError struct {
	Err    error
	Reason string
}

func (e *SignatureError) Error() string {
	if e.Reason == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + ": " + e.Reason
}

func (e *SignatureError) Unwrap() error { return e.Err }

// Verify checks sig (nil when the bundle is unsigned) over msg.
func (v *Verifier) Verify(sig *Signature, msg []byte) error {
	if sig == nil {
		return &SignatureError{Err: ErrUnsigned}
	}
	var pub crypto.PublicKey
	var leaf *x509.Certificate
	if len(sig.Certs) > 0 {
		var err error
		if leaf, err = x509.ParseCertificate(sig.Certs[0]); err != nil {
			return &SignatureError{Err: ErrBadSignature, Reason: "signer certificate: " + err.Error()}
		}
		pub = leaf.PublicKey
	} else if len(v.keys) == 1 {
		pub = v.keys[0]
	}
	if pub == nil {
		// A bare signature and several keys: try each.
		for _, k := range v.keys {
			if check(sig, k, msg) == nil {
				return nil
			}
		}
		if v.roots != nil {
			return &SignatureError{Err: ErrUntrusted, Reason: "signed by a bare key, without a certificate for the CA to vouch for"}
		}
		return &SignatureError{Err: ErrBadSignature, Reason: "no trusted key verifies it"}
	}
	if err := check(sig, pub, msg); err != nil {
		return err
	}
	if v.roots != nil {
		if leaf == nil {
			return &SignatureError{Err: ErrUntrusted, Reason: "signed by a bare key, without a certificate for the CA to vouch for"}
		}
		inter := x509.NewCertPool()
		for _, d := range sig.Certs[1:] {
			c, err := x509.ParseCertificate(d)
			if err != nil {
				return &SignatureError{Err: ErrUntrusted, Reason: "intermediate certificate: " + err.Error()}
			}
			inter.AddCert(c)
		}
		_, err := leaf.Verify(x509.VerifyOptions{Roots: v.roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
		if err != nil {
			return &SignatureError{Err: ErrUntrusted, Reason: fmt.Sprintf("signer %q: %v", leaf.Subject.CommonName, err)}
		}
		if len(v.signers) == 0 {
			return &SignatureError{Err: ErrUntrusted, Reason: errNoSigner.Error()}
		}
		for _, r := range v.signers {
			if r.matches(leaf) {
				return nil
			}
		}
		return &SignatureError{Err: ErrUntrusted, Reason: fmt.Sprintf("signer %q is none of the signers named (%s), though the CA issued its certificate", leaf.Subject.CommonName, signerNames(v.signers))}
	}
	for _, k := range v.keys {
		if samePublic(k, pub) {
			return nil
		}
	}
	return &SignatureError{Err: ErrUntrusted, Reason: "the signer's key is none of the trusted keys"}
}

// check verifies sig over msg with pub; the scheme must fit the key.
func check(sig *Signature, pub crypto.PublicKey, msg []byte) error {
	if k, isRSA := pub.(*rsa.PublicKey); isRSA {
		if err := CheckRSAKey(k); err != nil {
			return &SignatureError{Err: ErrUntrusted, Reason: "the signer's " + err.Error()}
		}
	}
	ok := false
	sum := sha256.Sum256(msg)
	switch k := pub.(type) {
	case ed25519.PublicKey:
		ok = sig.Scheme == SchemeEd25519 && ed25519.Verify(k, msg, sig.Sig)
	case *ecdsa.PublicKey:
		ok = sig.Scheme == SchemeECDSA && ecdsa.VerifyASN1(k, sum[:], sig.Sig)
	case *rsa.PublicKey:
		ok = sig.Scheme == SchemeRSA && rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig.Sig) == nil
	}
	if !ok {
		return &SignatureError{Err: ErrBadSignature, Reason: "scheme " + sig.Scheme}
	}
	return nil
}
