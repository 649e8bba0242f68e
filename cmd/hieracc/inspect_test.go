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

// TestInspectGolden pins inspect's text and JSON on the example, compiled
// with a given source revision (go test -update rewrites
// testdata/inspect/*.golden).
func TestInspectGolden(t *testing.T) {
	ex := filepath.Join("..", "..", "testdata", "example")
	out := t.TempDir()
	if code, _, stderr := runCLI("compile", "--env", filepath.Join(ex, "env"), "--modules", filepath.Join(ex, "modules"),
		"--facts", filepath.Join(ex, "nodes"), "--out", out, "--source-revision", "0123456789abcdef0123456789abcdef01234567"); code != exitOK {
		t.Fatalf("compile: exit %d\n%s", code, stderr)
	}
	for file, args := range map[string][]string{
		"folder.txt":  {"inspect", out},
		"bundle.txt":  {"inspect", "--keys", filepath.Join(out, "web01.fra1.example.net.bundle")},
		"bundle.json": {"inspect", "--keys", "--format", "json", filepath.Join(out, "web01.fra1.example.net.bundle")},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitOK {
			t.Fatalf("hieracc %v: exit %d\n%s", args, code, stderr)
		}
		// The output folder's name is the test's own.
		stdout = strings.ReplaceAll(stdout, filepath.ToSlash(out), "OUT")
		stdout = strings.ReplaceAll(stdout, out, "OUT")
		golden(t, filepath.Join("testdata", "inspect", file+".golden"), stdout)
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

// TestSourceRevisionTooLong: a --source-revision past 4096 bytes is refused
// when the flag is read, with a clear message and nothing written; also by
// an incremental compile that would write no bundle (and so never meets the
// header's 64 KiB cap), which kept it silently before.
func TestSourceRevisionTooLong(t *testing.T) {
	ex := filepath.Join("..", "..", "testdata", "example")
	out := filepath.Join(t.TempDir(), "out")
	compile := func(rev string) (int, string) {
		code, _, stderr := runCLI("compile", "--env", filepath.Join(ex, "env"), "--modules", filepath.Join(ex, "modules"),
			"--facts", filepath.Join(ex, "nodes", "web01.fra1.example.net.yaml"), "--out", out, "--source-revision", rev)
		return code, stderr
	}
	if code, stderr := compile("r1"); code != exitOK {
		t.Fatalf("compile: exit %d\n%s", code, stderr)
	}
	long := strings.Repeat("a", 4097)
	if code, stderr := compile(long); code != exitUsage || !strings.Contains(stderr, "source-revision: 4097 bytes: at most 4096") {
		t.Errorf("incremental compile with a 4097-byte revision: exit %d, stderr %.300q", code, stderr)
	}
	if code, stderr := compile(strings.Repeat("a", 4096)); code != exitOK {
		t.Errorf("compile with a 4096-byte revision: exit %d\n%.300s", code, stderr)
	}
	out = filepath.Join(t.TempDir(), "fresh")
	if code, _ := compile(long); code != exitUsage {
		t.Errorf("fresh compile with a 4097-byte revision: exit %d", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("fresh compile with a 4097-byte revision left %s (%v)", out, err)
	}
}
