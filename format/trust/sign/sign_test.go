package sign

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
	"encoding/asn1"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format/trust"
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
		v := trust.NewKeyVerifier(key.Public())
		if err := v.Verify(a, msg); err != nil {
			t.Errorf("%s: %v", a.Scheme, err)
		}
		if err := v.Verify(a, append(bytes.Clone(msg), 'x')); !errors.Is(err, trust.ErrBadSignature) {
			t.Errorf("%s: changed message: %v", a.Scheme, err)
		}
		if err := v.Verify(nil, msg); !errors.Is(err, trust.ErrUnsigned) {
			t.Errorf("%s: unsigned: %v", a.Scheme, err)
		}
		other := *a
		other.Scheme = trust.SchemeEd25519
		if a.Scheme == trust.SchemeEd25519 {
			other.Scheme = trust.SchemeECDSA
		}
		if err := v.Verify(&other, msg); !errors.Is(err, trust.ErrBadSignature) {
			t.Errorf("%s: as %s: %v", a.Scheme, other.Scheme, err)
		}
		if err := trust.NewKeyVerifier(rsaKey.Public(), edKey.Public(), ecKey.Public()).Verify(a, msg); err != nil {
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
	caV := func(pool *x509.CertPool) *trust.Verifier {
		v, err := trust.NewCAVerifier(pool, "ci")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if err := caV(pool).Verify(sig, msg); err != nil {
		t.Errorf("chained to the CA: %v", err)
	}
	if err := caV(other).Verify(sig, msg); !errors.Is(err, trust.ErrUntrusted) {
		t.Errorf("another CA: %v", err)
	}
	bare, _ := NewSigner(ecKey, nil)
	bsig, _ := bare.Sign(msg)
	if err := caV(pool).Verify(bsig, msg); !errors.Is(err, trust.ErrUntrusted) {
		t.Errorf("bare key under a CA verifier: %v", err)
	}
	if err := trust.NewKeyVerifier(edKey.Public()).Verify(sig, msg); !errors.Is(err, trust.ErrUntrusted) {
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
			opened, err := trust.OpenEnvelope(seal, c.key)
			if err != nil {
				t.Fatalf("%s: %v", seal.Scheme, err)
			}
			if p, err := opened.Open("node", "k", blob); err != nil || string(p) != "secret" {
				t.Errorf("%s: Open = %q, %v", seal.Scheme, p, err)
			}
			for _, who := range [][2]string{{"node", "k2"}, {"node2", "k"}} {
				if _, err := opened.Open(who[0], who[1], blob); !errors.Is(err, trust.ErrWrongKey) {
					t.Errorf("%s: opened as %v: %v", seal.Scheme, who, err)
				}
			}
			if _, err := trust.OpenEnvelope(seal, c.other); !errors.Is(err, trust.ErrWrongKey) {
				t.Errorf("%s: another type of key: %v", seal.Scheme, err)
			}
			// Keys that are nil or empty, of either type, are wrong keys, not
			// a panic.
			for _, k := range []crypto.PrivateKey{nil, (*rsa.PrivateKey)(nil), (*ecdsa.PrivateKey)(nil), &rsa.PrivateKey{}, &ecdsa.PrivateKey{}} {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s: trust.OpenEnvelope with a %T key %v: panic: %v", seal.Scheme, k, k, r)
						}
					}()
					if _, err := trust.OpenEnvelope(seal, k); !errors.Is(err, trust.ErrWrongKey) {
						t.Errorf("%s: trust.OpenEnvelope with a %T key %v: %v, want trust.ErrWrongKey", seal.Scheme, k, k, err)
					}
				}()
			}
			again, _, _ := NewEnvelope(r, s, "node", "production")
			if want := s != nil && seal.Scheme == trust.SealECDH; (*again == *seal) != want {
				t.Errorf("%s, signed %v: equal seals = %v", seal.Scheme, s != nil, *again == *seal)
			}
		}
	}
}

// issue is a certificate for pub issued by the CA parent, its template
// changed by edit.
func issue(t *testing.T, name string, pub crypto.PublicKey, parent *x509.Certificate, parentKey crypto.Signer, edit func(*x509.Certificate)) *x509.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment}
	if edit != nil {
		edit(tmpl)
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

// ext is an extension as Puppet's CA copies it from a CSR: the value a
// DER UTF8String.
func ext(oid asn1.ObjectIdentifier, value string) func(*x509.Certificate) {
	return func(c *x509.Certificate) {
		v, _ := asn1.MarshalWithParams(value, "utf8")
		c.ExtraExtensions = append(c.ExtraExtensions, pkix.Extension{Id: oid, Value: v})
	}
}

// TestVerifySigners: under a CA verifier, a signer must be named: by its
// certname, a pattern of certnames or an extension its certificate
// carries. Every other certificate the CA issued (any agent's) is
// untrusted, a node's signing its own bundle included; a CA without a
// rule is an error.
func TestVerifySigners(t *testing.T) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := cert(t, "Puppet CA: puppet", caKey.Public(), nil, caKey, true)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	role := asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 34380, 1, 1, 13}
	authRole := asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 34380, 1, 3, 13}
	msg := []byte("m")
	sign := func(name string, edit func(*x509.Certificate)) *trust.Signature {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		s, err := NewSigner(k, []*x509.Certificate{issue(t, name, k.Public(), ca, caKey, edit)})
		if err != nil {
			t.Fatal(err)
		}
		sig, _ := s.Sign(msg)
		return sig
	}
	ci := sign("ci.example.com", ext(authRole, "hieracc-signer"))
	ci2 := sign("build2.ci.example.com", nil)
	node := sign("web01.example.com", ext(role, "web"))
	roleSigner := sign("db01.example.com", ext(role, "hieracc-signer"))
	rawExt := sign("raw.example.com", func(c *x509.Certificate) {
		c.ExtraExtensions = []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 2, 3, 4}, Value: []byte("signer")}}
	})
	for _, c := range []struct {
		rules []string
		sig   *trust.Signature
		ok    bool
	}{
		{[]string{"ci.example.com"}, ci, true},
		{[]string{"ci.example.com"}, node, false},
		{[]string{"ci.example.com"}, ci2, false},
		{[]string{"*.ci.example.com"}, ci2, true},
		{[]string{"*.ci.*.com"}, ci2, true}, // a pattern that names a domain is not refused
		{[]string{"build?.ci.example.com"}, ci2, true},
		{[]string{"ci*"}, ci, true},
		{[]string{"*.ci.example.com"}, ci, false},
		{[]string{"*.ci.example.com"}, node, false},
		{[]string{"web01.example.com"}, node, true}, // named, a node may sign
		{[]string{"web02.example.com", "ci.example.com"}, ci, true},
		{[]string{"pp_auth_role=hieracc-signer"}, ci, true},
		{[]string{"1.3.6.1.4.1.34380.1.3.13=hieracc-signer"}, ci, true},
		{[]string{"pp_auth_role=hieracc-signe"}, ci, false},
		{[]string{"pp_auth_role=hieracc-signer"}, node, false},
		{[]string{"pp_role=hieracc-signer"}, roleSigner, true},
		{[]string{"pp_role=hieracc-signer"}, node, false},
		{[]string{"pp_auth_role=hieracc-signer"}, roleSigner, false}, // another extension
		{[]string{"1.2.3.4=signer"}, rawExt, true},                   // not DER: its bytes
	} {
		v, err := trust.NewCAVerifier(pool, c.rules...)
		if err != nil {
			t.Fatalf("%v: %v", c.rules, err)
		}
		err = v.Verify(c.sig, msg)
		if c.ok && err != nil || !c.ok && !errors.Is(err, trust.ErrUntrusted) {
			leaf, _ := x509.ParseCertificate(c.sig.Certs[0])
			t.Errorf("signer %s, rules %v: %v", leaf.Subject.CommonName, c.rules, err)
		}
		if !c.ok && err != nil && !strings.Contains(err.Error(), "none of the signers named") {
			t.Errorf("rules %v: %v", c.rules, err)
		}
	}
	for _, bad := range [][]string{nil, {""}, {"*"}, {"**?"}, {"[x"}, {"pp_nope=x"}, {"1=x"}, {"1.2.x=y"}, {"pp_role="}, {"1.02.3=x"},
		// Patterns that match every certname, or every one of some number of
		// labels (every agent's FQDN), name no signer either.
		{"[^.]*"}, {`*[a-z0-9_\-]*`}, {"*.*"}, {"*.*.*"}, {"?*.*"}, {`[\-a-z0-9_]*.*`}, {"*[^/]"}} {
		if _, err := trust.NewCAVerifier(pool, bad...); err == nil {
			t.Errorf("trust.NewCAVerifier with %q succeeded", bad)
		} else if bad == nil && !strings.Contains(err.Error(), "name the signer") {
			t.Errorf("trust.NewCAVerifier without a rule: %v", err)
		}
	}
	if _, err := trust.ReadCAVerifier("no such file"); err == nil || !strings.Contains(err.Error(), "a CA alone does not say who may sign") {
		t.Errorf("trust.ReadCAVerifier without a rule: %v", err)
	}
}

// TestSignerValidity: a signing certificate (or one of its chain) that is
// expired or not yet valid, and an RSA key under 2048 bits, are refused
// when the signer is made, not only by the verifier.
func TestSignerValidity(t *testing.T) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := cert(t, "CA", caKey.Public(), nil, caKey, true)
	expired := func(c *x509.Certificate) {
		c.NotBefore, c.NotAfter = time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour)
	}
	future := func(c *x509.Certificate) {
		c.NotBefore, c.NotAfter = time.Now().Add(24*time.Hour), time.Now().Add(48*time.Hour)
	}
	oldCA := issue(t, "old CA", caKey.Public(), ca, caKey, func(c *x509.Certificate) {
		expired(c)
		c.IsCA, c.BasicConstraintsValid, c.KeyUsage = true, true, x509.KeyUsageCertSign
	})
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	for _, c := range []struct {
		name  string
		key   crypto.Signer
		chain []*x509.Certificate
		want  string
	}{
		{"valid", ecKey, []*x509.Certificate{issue(t, "ci", ecKey.Public(), ca, caKey, nil)}, ""},
		{"expired", ecKey, []*x509.Certificate{issue(t, "ci", ecKey.Public(), ca, caKey, expired)}, `the signing certificate: "ci" expired on `},
		{"not yet valid", ecKey, []*x509.Certificate{issue(t, "ci", ecKey.Public(), ca, caKey, future)}, `the signing certificate: "ci" is not valid before `},
		{"expired intermediate", ecKey, []*x509.Certificate{issue(t, "ci", ecKey.Public(), ca, caKey, nil), oldCA}, `certificate 2 of the signing chain: "old CA" expired on `},
		{"RSA 1024", small, nil, "signing key: RSA key of 1024 bits: at least 2048 are needed"},
		{"RSA 1024, certified", small, []*x509.Certificate{issue(t, "ci", small.Public(), ca, caKey, nil)}, "RSA key of 1024 bits"},
		{"RSA 2048", rsaKey, nil, ""},
	} {
		_, err := NewSigner(c.key, c.chain)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: NewSigner = %v, want %q", c.name, err, c.want)
		}
	}
	// A verifier refuses a short RSA key too.
	s := &Signer{key: small, scheme: trust.SchemeRSA}
	sig, err := s.Sign([]byte("m"))
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.NewKeyVerifier(small.Public()).Verify(sig, []byte("m")); !errors.Is(err, trust.ErrUntrusted) || !strings.Contains(err.Error(), "1024 bits") {
		t.Errorf("verify, RSA 1024: %v", err)
	}
}

// TestRecipientValidity: sealing takes a certificate valid now, with an
// RSA key of 2048 bits or more, and says whom it names.
func TestRecipientValidity(t *testing.T) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := cert(t, "CA", caKey.Public(), nil, caKey, true)
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	r, err := NewRecipient(issue(t, "web01", rsaKey.Public(), ca, caKey, nil))
	if err != nil || r.Name != "web01" {
		t.Errorf("NewRecipient = %+v, %v", r, err)
	}
	for _, c := range []struct {
		name string
		cert *x509.Certificate
		want string
	}{
		{"expired", issue(t, "web01", rsaKey.Public(), ca, caKey, func(c *x509.Certificate) {
			c.NotBefore, c.NotAfter = time.Now().Add(-48*time.Hour), time.Now().Add(-time.Second)
		}), `certificate "web01" expired on `},
		{"not yet valid", issue(t, "web01", ecKey.Public(), ca, caKey, func(c *x509.Certificate) { c.NotBefore = time.Now().Add(time.Hour) }), `certificate "web01" is not valid before `},
		{"RSA 1024", issue(t, "web01", small.Public(), ca, caKey, nil), `certificate "web01": RSA key of 1024 bits`},
	} {
		if _, err := NewRecipient(c.cert); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: NewRecipient = %v, want %q", c.name, err, c.want)
		}
	}
}
