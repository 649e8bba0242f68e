package trust

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"testing"
	"time"
)

var (
	rsaKey, _   = rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _    = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, edKey, _ = ed25519.GenerateKey(rand.Reader)
)

// cert issues a certificate for pub, by parent (self-signed when nil).
func cert(t *testing.T, name string, pub crypto.PublicKey, parent *x509.Certificate, parentKey crypto.Signer, ca bool) *x509.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: ca, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParsePrivateKey(t *testing.T) {
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	pk8 := func(k any) []byte { d, _ := x509.MarshalPKCS8PrivateKey(k); return d }
	sec1, _ := x509.MarshalECPrivateKey(ecKey)
	sec1384, _ := x509.MarshalECPrivateKey(p384)
	for _, c := range []struct {
		name string
		der  []byte
		ok   bool
	}{
		{"PKCS#8 Ed25519", pk8(edKey), true},
		{"PKCS#8 ECDSA", pk8(ecKey), true},
		{"PKCS#8 RSA", pk8(rsaKey), true},
		{"PKCS#1 RSA (Puppet)", x509.MarshalPKCS1PrivateKey(rsaKey), true},
		{"SEC1 EC", sec1, true},
		{"SEC1 P-384", sec1384, false},
		{"garbage", []byte("nope"), false},
	} {
		_, err := ParsePrivateKey(c.der)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestSignVerify: each scheme signs deterministically and verifies; a
// changed message, another key, a scheme that does not fit the key fail.
func TestSignVerify(t *testing.T) {
	msg := []byte("hieracc bundle v4 signature\x00header")
	for _, key := range []crypto.Signer{edKey, ecKey, rsaKey} {
		s, err := NewSigner(key, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := s.Sign(msg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := s.Sign(msg)
		if !bytes.Equal(a.Sig, b.Sig) {
			t.Errorf("%s: signatures differ: not deterministic", a.Scheme)
		}
		v := NewKeyVerifier(key.Public())
		if err := v.Verify(a, msg); err != nil {
			t.Errorf("%s: %v", a.Scheme, err)
		}
		if err := v.Verify(a, append(bytes.Clone(msg), 'x')); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: changed message: %v", a.Scheme, err)
		}
		if err := v.Verify(nil, msg); !errors.Is(err, ErrUnsigned) {
			t.Errorf("%s: unsigned: %v", a.Scheme, err)
		}
		other := *a
		other.Scheme = SchemeEd25519
		if a.Scheme == SchemeEd25519 {
			other.Scheme = SchemeECDSA
		}
		if err := v.Verify(&other, msg); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: as %s: %v", a.Scheme, other.Scheme, err)
		}
		if err := NewKeyVerifier(rsaKey.Public(), edKey.Public(), ecKey.Public()).Verify(a, msg); err != nil {
			t.Errorf("%s: among several keys: %v", a.Scheme, err)
		}
	}
	if _, err := NewSigner(edKey, []*x509.Certificate{cert(t, "x", ecKey.Public(), nil, ecKey, false)}); err == nil {
		t.Error("NewSigner with another key's certificate succeeded")
	}
}

// TestVerifyCA: a signer whose certificate chains to the CA through an
// intermediate is trusted; another CA's, or a bare key, is not.
func TestVerifyCA(t *testing.T) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := cert(t, "Puppet CA", caKey.Public(), nil, caKey, true)
	interKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	inter := cert(t, "intermediate", interKey.Public(), ca, caKey, true)
	leaf := cert(t, "ci", ecKey.Public(), inter, interKey, false)
	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherCA := cert(t, "other CA", otherKey.Public(), nil, otherKey, true)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	other := x509.NewCertPool()
	other.AddCert(otherCA)
	msg := []byte("m")
	s, err := NewSigner(ecKey, []*x509.Certificate{leaf, inter})
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := s.Sign(msg)
	if err := NewCAVerifier(pool).Verify(sig, msg); err != nil {
		t.Errorf("chained to the CA: %v", err)
	}
	if err := NewCAVerifier(other).Verify(sig, msg); !errors.Is(err, ErrUntrusted) {
		t.Errorf("another CA: %v", err)
	}
	bare, _ := NewSigner(ecKey, nil)
	bsig, _ := bare.Sign(msg)
	if err := NewCAVerifier(pool).Verify(bsig, msg); !errors.Is(err, ErrUntrusted) {
		t.Errorf("bare key under a CA verifier: %v", err)
	}
	if err := NewKeyVerifier(edKey.Public()).Verify(sig, msg); !errors.Is(err, ErrUntrusted) {
		t.Errorf("certificate of a key not trusted: %v", err)
	}
}

// TestEnvelope: RSA and ECDH seals open with the node's key only; a blob
// opens only as the key and node it was sealed for; synthetic nonces
// repeat only with their plaintext.
func TestEnvelope(t *testing.T) {
	for _, c := range []struct {
		key   crypto.Signer
		other crypto.PrivateKey
	}{{rsaKey, ecKey}, {ecKey, rsaKey}} {
		r, err := NewRecipient(cert(t, "node", c.key.Public(), nil, c.key, false))
		if err != nil {
			t.Fatal(err)
		}
		signer, _ := NewSigner(edKey, nil)
		for _, s := range []*Signer{nil, signer} {
			seal, env, err := NewEnvelope(r, s, "node", "production")
			if err != nil {
				t.Fatal(err)
			}
			blob := env.Seal("node", "k", []byte("secret"))
			if bytes.Contains(blob, []byte("secret")) {
				t.Errorf("%s: plaintext in the blob", seal.Scheme)
			}
			if !bytes.Equal(blob, env.Seal("node", "k", []byte("secret"))) || bytes.Equal(blob[:12], env.Seal("node", "k", []byte("secreT"))[:12]) {
				t.Errorf("%s: synthetic nonces", seal.Scheme)
			}
			opened, err := OpenEnvelope(seal, c.key)
			if err != nil {
				t.Fatalf("%s: %v", seal.Scheme, err)
			}
			if p, err := opened.Open("node", "k", blob); err != nil || string(p) != "secret" {
				t.Errorf("%s: Open = %q, %v", seal.Scheme, p, err)
			}
			for _, who := range [][2]string{{"node", "k2"}, {"node2", "k"}} {
				if _, err := opened.Open(who[0], who[1], blob); !errors.Is(err, ErrWrongKey) {
					t.Errorf("%s: opened as %v: %v", seal.Scheme, who, err)
				}
			}
			if _, err := OpenEnvelope(seal, c.other); !errors.Is(err, ErrWrongKey) {
				t.Errorf("%s: another type of key: %v", seal.Scheme, err)
			}
			again, _, _ := NewEnvelope(r, s, "node", "production")
			if want := s != nil && seal.Scheme == SealECDH; (*again == *seal) != want {
				t.Errorf("%s, signed %v: equal seals = %v", seal.Scheme, s != nil, *again == *seal)
			}
		}
	}
}
