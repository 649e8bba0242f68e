package main

import (
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
