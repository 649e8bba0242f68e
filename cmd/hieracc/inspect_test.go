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
