package format_test

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/format/trust"
	"github.com/hieracc/hieracc/format/trust/sign"
)

// goldenPKI is the committed test fleet of testdata/v<N>-sealed.bundle: an EC P-256
// node (ECDH sealing is reproducible, RSA-OAEP is not), a bare Ed25519
// signing key. -update makes it when it is missing.
const goldenPKI = "testdata/trust"

// TestGoldenV4Sealed decodes the committed version 4 bundle, signed and
// with its secret and sensitive keys sealed.
func TestGoldenV4Sealed(t *testing.T) { testGoldenSealed(t, 4) }

// TestGoldenV5Sealed is the same for version 5.
func TestGoldenV5Sealed(t *testing.T) { testGoldenSealed(t, 5) }

// TestGoldenV6Sealed is the same for version 6.
func TestGoldenV6Sealed(t *testing.T) { testGoldenSealed(t, 6) }

// TestGoldenV7Sealed is the same for version 7, and pins Encode's bytes
// while version 7 is the newest.
func TestGoldenV7Sealed(t *testing.T) { testGoldenSealed(t, 7) }

func testGoldenSealed(t *testing.T, version int) {
	if _, err := os.Stat(goldenPKI); *update && err != nil {
		if err := PKI(goldenPKI, true, "web01.example.com"); err != nil {
			t.Fatal(err)
		}
	}
	golden := fmt.Sprintf("testdata/v%d-sealed.bundle", version)
	p, key := protection(t, goldenPKI, "web01.example.com", filepath.Join(goldenPKI, "signer", "ed25519.pem"))
	sample := sampleV4()
	if version >= 5 {
		sample = sampleOf(version)
	}
	testGoldenWith(t, version, golden, sample, p, key)
	v, err := trust.ReadKeyVerifier(filepath.Join(goldenPKI, "signer", "ed25519.pub"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.VerifySignature(v); err != nil {
		t.Errorf("VerifySignature: %v", err)
	}
	if x.Seal.Scheme != trust.SealECDH || !x.Keys[0].Sealed || !x.Keys[1].Sealed || x.Keys[2].Sealed {
		t.Errorf("seal %q, keys sealed %v %v %v, want the secret and the sensitive key", x.Seal.Scheme, x.Keys[0].Sealed, x.Keys[1].Sealed, x.Keys[2].Sealed)
	}
}

// protection reads the test fleet in dir: the node's certificate to seal
// to, the signing key, and the node's private key.
func protection(t testing.TB, dir, node, signKey string) (encode.Protection, crypto.PrivateKey) {
	t.Helper()
	var p encode.Protection
	var err error
	if signKey != "" {
		if p.Signer, err = sign.ReadSigner(signKey, ""); err != nil {
			t.Fatal(err)
		}
	}
	if p.Recipient, err = sign.ReadRecipient(filepath.Join(dir, "ssl", "certs", node+".pem")); err != nil {
		t.Fatal(err)
	}
	key, _, err := trust.ReadPrivateKey(filepath.Join(dir, "ssl", "private_keys", node+".pem"))
	if err != nil {
		t.Fatal(err)
	}
	return p, key
}

var (
	fleetOnce sync.Once
	fleetDir  string
	fleetErr  error
)

// fleet is a test fleet of two RSA nodes, made once per test binary.
func fleet(t testing.TB) string {
	fleetOnce.Do(func() {
		fleetDir, fleetErr = os.MkdirTemp("", "hieracc-pki")
		if fleetErr == nil {
			fleetErr = PKI(fleetDir, false, "a.example.com", "b.example.com")
		}
	})
	if fleetErr != nil {
		t.Fatal(fleetErr)
	}
	return fleetDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fleetDir != "" {
		os.RemoveAll(fleetDir)
	}
	os.Exit(code)
}

// secretBundle is a bundle of node whose secret key holds its secrets in
// its value, an error and its contributions, and whose sensitive key
// holds another.
func secretBundle(node string) *format.Bundle {
	b := &format.Bundle{Node: node, Environment: "production", Revision: "r1",
		Env: format.Hierarchy{Present: true, Levels: []format.Level{{Name: "Secrets", Locations: []format.Location{{Path: "data/secrets.eyaml", Exists: true}}}}}}
	h := format.NewHash(1)
	h.Set("password", "PLAINTEXT-eyaml-decrypted")
	b.Keys = []format.Key{
		{Name: "app::db", Value: h, Secret: true, Contributions: []format.Contribution{
			{Layer: format.LayerEnvironment, Line: 3, Column: 1, Value: h},
			{Layer: format.LayerEnvironment, Line: 4, Column: 1, Err: &format.Error{Message: "failed near PLAINTEXT-in-error"}},
		}},
		{Name: "app::plain", Value: "public value", Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Value: "public value"}}},
		{Name: "app::token", Value: "PLAINTEXT-sensitive", ConvertTo: []format.Value{"Sensitive"},
			Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Value: "PLAINTEXT-contribution-only"}}},
	}
	return b
}

// TestSealed: a sealed bundle holds none of its secrets' text; the node's
// key opens them, another node's key does not, and without a key
// everything else reads.
func TestSealed(t *testing.T) {
	dir := fleet(t)
	for _, signed := range []bool{false, true} {
		signKey := ""
		if signed {
			signKey = filepath.Join(dir, "signer", "key.pem")
		}
		p, keyA := protection(t, dir, "a.example.com", signKey)
		_, keyB := protection(t, dir, "b.example.com", "")
		want := secretBundle("a.example.com")
		data, err := encode.EncodeWith(want, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"PLAINTEXT", "password"} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("signed=%v: the sealed bundle holds %q", signed, secret)
			}
		}
		if !bytes.Contains(data, []byte("public value")) {
			t.Errorf("signed=%v: the plain key's value is not in the bundle", signed)
		}
		x, err := format.DecodeIndex(data)
		if err != nil {
			t.Fatal(err)
		}
		if !x.Keys[0].Sealed || x.Keys[0].Value != nil || x.Keys[1].Value != "public value" {
			t.Errorf("signed=%v: without a key: %+v", signed, x.Keys)
		}
		if _, err := x.Bundle(); err != nil {
			t.Errorf("signed=%v: Bundle without a key: %v", signed, err)
		}
		if err := x.Unseal(keyB); !errors.Is(err, trust.ErrWrongKey) {
			t.Errorf("signed=%v: Unseal with node b's key = %v, want ErrWrongKey", signed, err)
		}
		if err := x.Unseal(keyA); err != nil {
			t.Fatalf("signed=%v: Unseal: %v", signed, err)
		}
		got, err := x.Bundle()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, Cmp, cmpopts.IgnoreFields(format.Key{}, "Ciphertext")); d != "" {
			t.Errorf("signed=%v: unsealed (-want +got):\n%s", signed, d)
		}
		// Signed, the body is reproducible: the same secrets give the
		// same ciphertexts and digest (RSA-OAEP's header aside).
		again, _ := encode.EncodeWith(want, p)
		y, err := format.DecodeIndex(again)
		if err != nil {
			t.Fatal(err)
		}
		if signed != (y.Digest == x.Digest) {
			t.Errorf("signed=%v: equal digests = %v", signed, y.Digest == x.Digest)
		}
	}
}

// TestSealedEncoderAgain: an Encoder that seals the same keys bundle
// after bundle writes each as a fresh one does (signed: the same body),
// the sealed keys' blobs included, though the last bundle's key table
// holds the same entries.
func TestSealedEncoderAgain(t *testing.T) {
	dir := fleet(t)
	p, key := protection(t, dir, "a.example.com", filepath.Join(dir, "signer", "key.pem"))
	want := secretBundle("a.example.com")
	fresh, err := encode.EncodeWith(want, p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := format.DecodeIndex(fresh)
	if err != nil {
		t.Fatal(err)
	}
	e := encode.NewEncoder()
	for i := range 3 {
		data, err := e.AppendWith(nil, want, p)
		if err != nil {
			t.Fatal(err)
		}
		x, err := format.DecodeIndex(data)
		if err != nil {
			t.Fatalf("bundle %d: %v", i, err)
		}
		if x.Digest != w.Digest {
			t.Errorf("bundle %d: its body differs from a fresh encoder's", i)
		}
		if err := x.Unseal(key); err != nil {
			t.Fatalf("bundle %d: Unseal: %v", i, err)
		}
		got, err := x.Bundle()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, Cmp, cmpopts.IgnoreFields(format.Key{}, "Ciphertext")); d != "" {
			t.Errorf("bundle %d: unsealed (-want +got):\n%s", i, d)
		}
	}
}

// TestSealedUnsealable: a key sealed and not unsealed cannot be written
// again, rather than written empty.
func TestSealedUnsealable(t *testing.T) {
	b := secretBundle("n")
	b.Keys[0].Sealed = true
	if _, err := encode.Encode(b); err == nil || !strings.Contains(err.Error(), "sealed") {
		t.Errorf("Encode of a sealed key = %v", err)
	}
}

// TestFlipEveryByte: every change of one byte of a small signed bundle
// is refused, by the decoder or by the signature.
func TestFlipEveryByte(t *testing.T) {
	dir := fleet(t)
	p, _ := protection(t, dir, "a.example.com", filepath.Join(dir, "signer", "ed25519.pem"))
	data, err := encode.EncodeWith(secretBundle("a.example.com"), p)
	if err != nil {
		t.Fatal(err)
	}
	v, err := trust.ReadKeyVerifier(filepath.Join(dir, "signer", "ed25519.pub"))
	if err != nil {
		t.Fatal(err)
	}
	open := func(d []byte) error {
		x, err := format.DecodeIndex(d)
		if err != nil {
			return err
		}
		return x.VerifySignature(v)
	}
	if err := open(data); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		for _, bit := range []byte{0x01, 0x80} {
			d := bytes.Clone(data)
			d[i] ^= bit
			if open(d) == nil {
				t.Errorf("byte %d of %d changed (^%#x): accepted", i, len(data), bit)
			}
		}
	}
}

// TestSignatureErrors: unsigned, another signer, a renamed bundle.
func TestSignatureErrors(t *testing.T) {
	dir := fleet(t)
	p, _ := protection(t, dir, "a.example.com", filepath.Join(dir, "signer", "key.pem"))
	signed, err := encode.EncodeWith(secretBundle("a.example.com"), p)
	if err != nil {
		t.Fatal(err)
	}
	unsigned, _ := encode.Encode(secretBundle("a.example.com"))
	ca, err := trust.ReadCAVerifier(filepath.Join(dir, "ssl", "certs", "ca.pem"), "ci-signer")
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := trust.ReadCAVerifier(filepath.Join(dir, "ssl", "certs", "ca.pem"), "*.example.com")
	if err != nil {
		t.Fatal(err)
	}
	other, err := trust.ReadKeyVerifier(filepath.Join(dir, "signer", "ed25519.pub"))
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := trust.ReadKeyVerifier(filepath.Join(dir, "signer", "key.pem")) // its certificate
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		v    *trust.Verifier
		want error
	}{
		{"signed, CA", signed, ca, nil},
		{"signed, its certificate", signed, pinned, nil},
		{"unsigned", unsigned, ca, trust.ErrUnsigned},
		{"another key", signed, other, trust.ErrUntrusted},
		{"CA, another signer named", signed, nodes, trust.ErrUntrusted},
		{"renamed", format.Rename(t, signed, "a.example.com", "b.example.com"), ca, trust.ErrBadSignature},
	} {
		x, err := format.DecodeIndex(c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		err = x.VerifySignature(c.v)
		var se *trust.SignatureError
		if c.want == nil && err != nil || c.want != nil && (!errors.Is(err, c.want) || !errors.As(err, &se)) {
			t.Errorf("%s: VerifySignature = %v, want %v", c.name, err, c.want)
		}
	}
}

// BenchmarkProtect measures what signing and sealing add to encoding and
// opening a bundle of the sample's size, against the plain one.
func BenchmarkProtect(b *testing.B) {
	dir := fleet(b)
	rsaP, rsaKey := protection(b, dir, "a.example.com", filepath.Join(dir, "signer", "key.pem"))
	ecP, ecKey := protection(b, goldenPKI, "web01.example.com", filepath.Join(goldenPKI, "signer", "ed25519.pem"))
	signed := encode.Protection{Signer: ecP.Signer}
	for _, c := range []struct {
		name string
		p    encode.Protection
		key  crypto.PrivateKey
	}{
		{"plain", encode.Protection{}, nil},
		{"signed-ed25519", signed, nil},
		{"sealed-ecdh-signed-ed25519", ecP, ecKey},
		{"sealed-rsa-signed-ecdsa", rsaP, rsaKey},
	} {
		bundle := sampleV3()
		bundle.Node = "a.example.com"
		if c.p.Recipient == ecP.Recipient && c.p.Recipient != nil {
			bundle.Node = "web01.example.com"
		}
		b.Run("encode/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encode.EncodeWith(bundle, c.p); err != nil {
					b.Fatal(err)
				}
			}
		})
		data, _ := encode.EncodeWith(bundle, c.p)
		b.Run("open/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x, err := format.DecodeIndex(data)
				if err != nil {
					b.Fatal(err)
				}
				if c.key != nil {
					if err := x.Unseal(c.key); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestAppendSharedSealed: an Encoder writing bundles with shared files
// and sealed keys, the same bundle again and again (its keys then the
// memo's), writes a fresh encoder's bytes, which decode, with their
// shared file and unsealed, to the bundle. The sealed keys have no record
// in the shared file, and are planned as such.
func TestAppendSharedSealed(t *testing.T) {
	p, key := protection(t, goldenPKI, "web01.example.com", filepath.Join(goldenPKI, "signer", "ed25519.pem"))
	sample := sampleV5()
	e := encode.NewEncoder()
	for round := range 3 {
		data, sd, err := e.AppendShared(nil, sample, p)
		if err != nil || sd == nil {
			t.Fatalf("round %d: AppendShared = %v, %v", round, sd, err)
		}
		fresh, fsd, err := encode.EncodeShared(sample, p)
		if err != nil || !bytes.Equal(fresh, data) || !bytes.Equal(fsd.Data, sd.Data) {
			t.Errorf("round %d: a warm encoder's bytes differ from a fresh one's (%v)", round, err)
		}
		x, err := format.DecodeIndex(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.AttachShared(sd.Data); err != nil {
			t.Fatal(err)
		}
		if err := x.Unseal(key); err != nil {
			t.Fatal(err)
		}
		got, err := x.Bundle()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(sample, got, Cmp, cmpopts.IgnoreFields(format.Key{}, "Ciphertext")); d != "" {
			t.Errorf("round %d: decoded (-want +got):\n%s", round, d)
		}
	}
}
