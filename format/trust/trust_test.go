package trust

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"testing"
)

var (
	rsaKey, _   = rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _    = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, edKey, _ = ed25519.GenerateKey(rand.Reader)
)

// The tests of signatures and seals, which need the writer's half, are
// package sign's.

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
