package sign

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"time"

	"github.com/hieracc/hieracc/format/trust"
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
// an RSA key must have at least trust.MinRSABits.
func NewRecipient(cert *x509.Certificate) (*Recipient, error) {
	r := &Recipient{Fingerprint: sha256.Sum256(cert.Raw), Name: cert.Subject.CommonName}
	if err := validAt(cert, time.Now()); err != nil {
		return nil, fmt.Errorf("trust: certificate %v", err)
	}
	switch k := cert.PublicKey.(type) {
	case *rsa.PublicKey:
		if err := trust.CheckRSAKey(k); err != nil {
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
	certs, err := trust.ReadCertificates(name)
	if err != nil {
		return nil, err
	}
	r, err := NewRecipient(certs[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return r, nil
}

// NewEnvelope makes the seal of a bundle of node and env to r. With a
// signer, the bundle key (and the ephemeral ECDH key) derive from the
// signing key, node, env and r, so the bundle is reproducible (but for
// RSA-OAEP's random padding, in the seal only); without one, they are
// random.
func NewEnvelope(r *Recipient, s *Signer, node, env string) (*trust.Seal, *trust.Envelope, error) {
	seal := &trust.Seal{Recipient: r.Fingerprint}
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
		seal.Scheme = trust.SealRSA
		key = random("bundle key", 32)
		w, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, r.rsa, key, []byte(trust.SealLabel))
		if err != nil {
			return nil, nil, fmt.Errorf("trust: sealing: %v", err)
		}
		seal.Wrapped = string(w)
	default:
		seal.Scheme = trust.SealECDH
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
		key = trust.ECDHKey(shared, eph.PublicKey().Bytes(), r.Fingerprint)
	}
	env2, err := trust.NewKeyEnvelope(key)
	return seal, env2, err
}
