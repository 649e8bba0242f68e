package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectEscapes: a header string holding control characters (here a
// source revision, as any compile may be given) reaches the terminal
// escaped, never as it is.
func TestInspectEscapes(t *testing.T) {
	ex := filepath.Join("..", "..", "testdata", "example")
	out := t.TempDir()
	if code, _, stderr := runCLI("compile", "--env", filepath.Join(ex, "env"), "--modules", filepath.Join(ex, "modules"),
		"--facts", filepath.Join(ex, "nodes"), "--out", out, "--source-revision", "evil\x1b[2J\x07"); code != exitOK {
		t.Fatalf("compile: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI("inspect", filepath.Join(out, "web01.fra1.example.net.bundle"))
	if code != exitOK {
		t.Fatalf("inspect: exit %d\n%s", code, stderr)
	}
	if strings.ContainsAny(stdout, "\x1b\x07") {
		t.Errorf("inspect printed a control character as it is:\n%q", stdout)
	}
	if !strings.Contains(stdout, `evil\x1b[2J\a`) {
		t.Errorf("inspect does not show the source revision escaped:\n%s", stdout)
	}
}

// TestSourceRevisionEscaped: lookup --explain and verify, which print a
// bundle's source revision on stdout as inspect does, escape its control
// characters too.
func TestSourceRevisionEscaped(t *testing.T) {
	ex := filepath.Join("..", "..", "testdata", "example")
	dir, out := t.TempDir(), t.TempDir()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	keyFile, pubFile := filepath.Join(dir, "sign.pem"), filepath.Join(dir, "sign.pub")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("compile", "--env", filepath.Join(ex, "env"), "--modules", filepath.Join(ex, "modules"),
		"--facts", filepath.Join(ex, "nodes"), "--out", out, "--sign-key", keyFile,
		"--source-revision", "evil\x1b[2J\x07\r"); code != exitOK {
		t.Fatalf("compile: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{
		{"lookup", "--bundle", out, "--node", "web01.fra1.example.net", "--explain", "ntp::servers"},
		{"verify", "--key", pubFile, out},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s%s", args[0], code, stdout, stderr)
		}
		if strings.ContainsAny(stdout, "\x1b\x07\r") {
			t.Errorf("%s printed a control character as it is:\n%q", args[0], stdout)
		}
		if !strings.Contains(stdout, `evil\x1b[2J\a\r`) {
			t.Errorf("%s does not show the source revision escaped:\n%s", args[0], stdout)
		}
	}
}
