package runtime_test

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/format/trust"
	"github.com/hieracc/hieracc/format/trust/sign"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
	"github.com/hieracc/hieracc/runtime/reload"
)

var (
	pkiOnce sync.Once
	pkiDir  string
	pkiErr  error
)

// pki is a test fleet in Puppet's layout (see formattest.PKI): RSA nodes
// a and b, a CI signing key with a certificate from the CA.
func pki(t testing.TB) string {
	pkiOnce.Do(func() {
		if pkiDir, pkiErr = os.MkdirTemp("", "hieracc-runtime-pki"); pkiErr == nil {
			pkiErr = PKI(pkiDir, false, "a.example.com", "b.example.com")
		}
	})
	if pkiErr != nil {
		t.Fatal(pkiErr)
	}
	return pkiDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pkiDir != "" {
		os.RemoveAll(pkiDir)
	}
	os.Exit(code)
}

// secrets is node's bundle with a secret key (eyaml), a sensitive one and
// a plain one.
func secrets(node string) *format.Bundle {
	h := format.NewHash(1)
	h.Set("password", "s3cret-eyaml")
	b := &format.Bundle{Node: node, Environment: "production", Revision: "r1",
		Env: format.Hierarchy{Present: true, Levels: []format.Level{{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}}}}}
	b.Keys = []format.Key{
		{Name: "db", Value: h, Secret: true, Merge: format.Merge{Strategy: format.MergeHash},
			Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Line: 1, Column: 1, Value: h}}},
		{Name: "plain", Value: "visible", Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Value: "visible"}}},
		{Name: "token", Value: "t0ken", ConvertTo: []format.Value{"Sensitive"}, Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Value: "t0ken"}}},
	}
	return b
}

// sealedFor encodes node's secrets signed by CI and sealed to node, and
// returns the node's key and the CA verifier.
func sealedFor(t testing.TB, node string) ([]byte, crypto.PrivateKey, *trust.Verifier) {
	t.Helper()
	dir := pki(t)
	s, err := sign.ReadSigner(filepath.Join(dir, "signer", "key.pem"), "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := sign.ReadRecipient(filepath.Join(dir, "ssl", "certs", node+".pem"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := encode.EncodeWith(secrets(node), encode.Protection{Signer: s, Recipient: r})
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := trust.ReadPrivateKey(filepath.Join(dir, "ssl", "private_keys", node+".pem"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := trust.ReadCAVerifier(filepath.Join(dir, "ssl", "certs", "ca.pem"), "ci-signer")
	if err != nil {
		t.Fatal(err)
	}
	return data, key, v
}

func TestOpenSealed(t *testing.T) {
	data, key, v := sealedFor(t, "a.example.com")
	b, err := runtime.OpenBytes(data, runtime.Trust{Verifier: v, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := b.LookupString("db.password"); s != "s3cret-eyaml" || err != nil {
		t.Errorf("db.password = %q, %v", s, err)
	}
	if v, err := b.LookupWith("db", runtime.Options{Merge: &format.Merge{Strategy: format.MergeDeep}}); err != nil || v.(*format.Hash).Len() != 1 {
		t.Errorf("db, deep merge = %v, %v", v, err)
	}
	if tok, err := b.Lookup("token"); err != nil || tok.(*runtime.Sensitive).Unwrap() != "t0ken" {
		t.Errorf("token = %v, %v", tok, err)
	}
	if e, err := explain.Key(b, "db"); err != nil || len(e.Sources) != 1 || !e.Secret {
		t.Errorf("Explain(db) = %+v, %v", e, err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = b.Lookup("db") }); n != 0 {
		t.Errorf("Lookup of an unsealed key allocates %v times", n)
	}

	// Without the key: every plain key, no secret.
	b, err = runtime.OpenBytes(data, runtime.Trust{Verifier: v})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := b.LookupString("plain"); s != "visible" || err != nil {
		t.Errorf("plain = %q, %v", s, err)
	}
	for _, lookup := range []func() (any, error){
		func() (any, error) { return b.Lookup("db") },
		func() (any, error) { return b.Lookup("db.password") },
		func() (any, error) { return b.Lookup("token") },
		func() (any, error) {
			return b.LookupWith("db", runtime.Options{Merge: &format.Merge{Strategy: format.MergeDeep}})
		},
		func() (any, error) { return explain.Key(b, "db") },
	} {
		v, err := lookup()
		var se *runtime.SealedError
		if !errors.Is(err, runtime.ErrSealed) || !errors.As(err, &se) || se.Node != "a.example.com" {
			t.Errorf("sealed lookup without the key = %v, %v; want a SealedError", v, err)
		}
	}
	if d, err := b.Details(); err != nil || !d.Keys[0].Sealed || d.Keys[0].Ciphertext == "" {
		t.Errorf("Details without the key: %v", err)
	}
}

// TestOpenWrongNode: node b's key cannot open node a's secrets.
func TestOpenWrongNode(t *testing.T) {
	data, _, v := sealedFor(t, "a.example.com")
	_, keyB, _ := sealedFor(t, "b.example.com")
	_, err := runtime.OpenBytes(data, runtime.Trust{Verifier: v, Key: keyB})
	if !errors.Is(err, runtime.ErrWrongKey) {
		t.Errorf("open with another node's key = %v, want ErrWrongKey", err)
	}
}

// TestOpenOptions: a Trust is an option of Open, OpenBytes and
// reload.NewFile; given several, they add up and none clears another's check,
// and a nil Option (or a nil *Trust) is none.
func TestOpenOptions(t *testing.T) {
	data, _, v := sealedFor(t, "a.example.com")
	wrong := runtime.Trust{Node: "b.example.com"}
	if _, err := runtime.OpenBytes(data, wrong, runtime.Trust{}); !errors.Is(err, runtime.ErrWrongNode) {
		t.Errorf("OpenBytes(a's bundle, Node b, then the zero Trust) = %v, want ErrWrongNode: the zero Trust clears no check", err)
	}
	plain, _ := encode.Encode(secrets("a.example.com"))
	if _, err := runtime.OpenBytes(plain, runtime.Trust{Verifier: v}, runtime.Trust{Node: "a.example.com"}); !errors.Is(err, runtime.ErrUnsigned) {
		t.Errorf("OpenBytes(unsigned, a Verifier, then a Node) = %v, want ErrUnsigned: the Node adds to the Verifier", err)
	}
	if _, err := runtime.OpenBytes(data, wrong, runtime.Trust{Node: "a.example.com"}); err != nil {
		t.Errorf("OpenBytes(a's bundle, Node b, then Node a) = %v, want the later Node to replace the earlier", err)
	}
	if _, err := runtime.OpenBytes(data, runtime.Trust{}, wrong); !errors.Is(err, runtime.ErrWrongNode) {
		t.Errorf("OpenBytes(a's bundle, the zero Trust, then Node b) = %v, want ErrWrongNode", err)
	}
	if _, err := runtime.OpenBytes(data, nil); err != nil {
		t.Errorf("OpenBytes(a's bundle, nil) = %v", err)
	}
	var none *runtime.Trust
	if _, err := runtime.OpenBytes(data, none); err != nil {
		t.Errorf("OpenBytes(a's bundle, a nil *Trust) = %v", err)
	}
	if _, err := runtime.OpenBytes(data, &wrong, none); !errors.Is(err, runtime.ErrWrongNode) {
		t.Errorf("OpenBytes(a's bundle, &Node b, a nil *Trust) = %v, want ErrWrongNode: the nil *Trust is no option", err)
	}
	if _, err := reload.NewFile("no such file", none); err == nil {
		t.Errorf("reload.NewFile(no such file, a nil *Trust) succeeded")
	}
	path := filepath.Join(t.TempDir(), "a.example.com.bundle")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.Open(path, wrong); !errors.Is(err, runtime.ErrWrongNode) {
		t.Errorf("Open(a's bundle, Node b) = %v, want ErrWrongNode", err)
	}
	if _, err := reload.NewFile(path, wrong); !errors.Is(err, runtime.ErrWrongNode) {
		t.Errorf("reload.NewFile(a's bundle, Node b) = %v, want ErrWrongNode", err)
	}
}

func TestOpenVerifier(t *testing.T) {
	data, _, v := sealedFor(t, "a.example.com")
	plain, _ := encode.Encode(secrets("a.example.com"))
	if _, err := runtime.OpenBytes(plain, runtime.Trust{Verifier: v}); !errors.Is(err, runtime.ErrUnsigned) {
		t.Errorf("unsigned: %v", err)
	}
	// The same body, under another node's name: the signature fails.
	renamed := bytes.Replace(data, []byte("a.example.com"), []byte("b.example.com"), 1)
	x, err := format.DecodeIndex(renamed)
	if err == nil {
		t.Fatalf("renamed bundle decodes with its old checksum: %v", x.Node)
	}
	if _, err := runtime.OpenBytes(data); err != nil {
		t.Errorf("a signed bundle opened without a verifier: %v", err)
	}
}

// TestReloaderKeepsVerified: a replacement that is not signed leaves the
// last good bundle in place, and a signed one replaces it.
func TestReloaderKeepsVerified(t *testing.T) {
	data, key, v := sealedFor(t, "a.example.com")
	path := filepath.Join(t.TempDir(), "a.example.com.bundle")
	Replace(t, path, data)
	r, err := reload.NewFile(path, runtime.Trust{Verifier: v, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	forged := secrets("a.example.com")
	forged.Keys[1].Value = "forged"
	bad, _ := encode.Encode(forged)
	Replace(t, path, bad)
	if changed, err := r.Reload(); changed || !errors.Is(err, runtime.ErrUnsigned) {
		t.Errorf("Reload of an unsigned bundle = %v, %v", changed, err)
	}
	if s, _ := r.Bundle().LookupString("plain"); s != "visible" {
		t.Errorf("plain = %q after a refused reload", s)
	}
	good := secrets("a.example.com")
	good.Revision, good.Keys[1].Value = "r2", "new"
	dir := pki(t)
	s, _ := sign.ReadSigner(filepath.Join(dir, "signer", "key.pem"), "")
	rcp, _ := sign.ReadRecipient(filepath.Join(dir, "ssl", "certs", "a.example.com.pem"))
	next, err := encode.EncodeWith(good, encode.Protection{Signer: s, Recipient: rcp})
	if err != nil {
		t.Fatal(err)
	}
	Replace(t, path, next)
	if changed, err := r.Reload(); !changed || err != nil {
		t.Errorf("Reload of a signed bundle = %v, %v", changed, err)
	}
	if s, _ := r.Bundle().LookupString("plain"); s != "new" {
		t.Errorf("plain = %q after a good reload", s)
	}
	if s, _ := r.Bundle().LookupString("db.password"); s != "s3cret-eyaml" {
		t.Errorf("db.password = %q after a good reload", s)
	}
}

// TestWatchKeepsVerified: under Watch, a forged (unsigned) bundle is
// reported and the last verified one stays.
func TestWatchKeepsVerified(t *testing.T) {
	data, key, v := sealedFor(t, "a.example.com")
	path := filepath.Join(t.TempDir(), "a.example.com.bundle")
	Replace(t, path, data)
	r, err := reload.NewFile(path, runtime.Trust{Verifier: v, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	reports := make(chan error, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Watch(ctx, 20*time.Millisecond, func(changed bool, err error) { reports <- err })
	}()
	defer func() { cancel(); <-done }()
	time.Sleep(50 * time.Millisecond)
	forged := secrets("a.example.com")
	forged.Keys[1].Value = "forged"
	bad, _ := encode.Encode(forged)
	Replace(t, path, bad)
	select {
	case err := <-reports:
		if !errors.Is(err, runtime.ErrUnsigned) {
			t.Errorf("Watch reported %v, want ErrUnsigned", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reload reported within 10s")
	}
	if s, _ := r.Bundle().LookupString("plain"); s != "visible" {
		t.Errorf("plain = %q after a forged bundle, want the verified one's", s)
	}
}

// TestOpenWrongNodeFile: node a's bundle, signed by CI, under node b's
// name is refused by Open with a verifier, by a reload.File it is
// renamed over (which keeps b's), and wherever Trust.Node names another
// node; with a verifier, a file not named <certname>.bundle needs
// Trust.Node.
func TestOpenWrongNodeFile(t *testing.T) {
	dataA, _, v := sealedFor(t, "a.example.com")
	dataB, keyB, _ := sealedFor(t, "b.example.com")
	dir := t.TempDir()
	pathB := filepath.Join(dir, "b.example.com.bundle")
	Replace(t, pathB, dataA)
	for _, tr := range []runtime.Trust{{Verifier: v}, {Verifier: v, Node: "b.example.com"}, {Node: "b.example.com"}} {
		if _, err := runtime.Open(pathB, tr); !errors.Is(err, runtime.ErrWrongNode) || !strings.Contains(err.Error(), "holds the bundle of node a.example.com, not b.example.com") {
			t.Errorf("Open(a's bundle as b's, verifier %v, node %q) = %v, want ErrWrongNode", tr.Verifier != nil, tr.Node, err)
		}
	}
	if _, err := runtime.Open(pathB, runtime.Trust{Verifier: v, Node: "a.example.com"}); err != nil {
		t.Errorf("Open(a's bundle, Node a) = %v", err)
	}
	if _, err := runtime.OpenBytes(dataA, runtime.Trust{Verifier: v, Node: "b.example.com"}); !errors.Is(err, runtime.ErrWrongNode) {
		t.Errorf("OpenBytes(a's bundle, Node b) = %v, want ErrWrongNode", err)
	}
	other := filepath.Join(dir, "current")
	Replace(t, other, dataA)
	if _, err := runtime.Open(other, runtime.Trust{Verifier: v}); !errors.Is(err, runtime.ErrWrongNode) || !strings.Contains(err.Error(), "set Trust.Node") {
		t.Errorf("Open(file not named after a node, verifier) = %v", err)
	}
	if _, err := runtime.Open(other, runtime.Trust{Verifier: v, Node: "a.example.com"}); err != nil {
		t.Errorf("Open(file not named after a node, Node a) = %v", err)
	}

	// A reload.File of b's bundle, with or without b's key, does not swap to
	// a's renamed over it.
	for _, key := range []crypto.PrivateKey{nil, keyB} {
		Replace(t, pathB, dataB)
		r, err := reload.NewFile(pathB, runtime.Trust{Verifier: v, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		Replace(t, pathB, dataA)
		if changed, err := r.Reload(); changed || !errors.Is(err, runtime.ErrWrongNode) {
			t.Errorf("Reload of a's bundle renamed over b's (key %v) = %v, %v; want ErrWrongNode", key != nil, changed, err)
		}
		if n := r.Bundle().Header().Node; n != "b.example.com" {
			t.Errorf("after a refused reload, the bundle is %s's", n)
		}
	}
}

// TestOpenAgentSigned: under the fleet's CA, a bundle signed by an agent
// (node a's own key and certificate, which the CA issued) is untrusted
// unless a signer rule names it; the CI signer named is trusted.
func TestOpenAgentSigned(t *testing.T) {
	dir := pki(t)
	s, err := sign.ReadSigner(filepath.Join(dir, "ssl", "private_keys", "a.example.com.pem"), filepath.Join(dir, "ssl", "certs", "a.example.com.pem"))
	if err != nil {
		t.Fatal(err)
	}
	forged, err := encode.EncodeWith(secrets("b.example.com"), encode.Protection{Signer: s})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "b.example.com.bundle")
	Replace(t, path, forged)
	ca := filepath.Join(dir, "ssl", "certs", "ca.pem")
	for _, c := range []struct {
		signers []string
		ok      bool
	}{
		{[]string{"ci-signer"}, false},
		{[]string{"*.example.com"}, true}, // a rule that names the agents trusts them
	} {
		v, err := trust.ReadCAVerifier(ca, c.signers...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = runtime.Open(path, runtime.Trust{Verifier: v})
		if c.ok && err != nil || !c.ok && !errors.Is(err, runtime.ErrUntrusted) {
			t.Errorf("signers %v: Open of a bundle node a signed = %v", c.signers, err)
		}
	}
	if _, err := trust.ReadCAVerifier(ca); err == nil {
		t.Error("ReadCAVerifier without a signer rule succeeded")
	}
}
