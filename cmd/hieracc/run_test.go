package main

import (
	"bytes"
	"errors"
	"fmt"
	goldenfile "github.com/hieracc/hieracc/cmd/hieracc/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/hieracc/hieracc/runtime"
)

// TestExitCodes pins the exit code contract: 0 success, 1 failure, 2 usage.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, exitUsage},
		{[]string{"help"}, exitOK},
		{[]string{"help", "lookup"}, exitOK},
		{[]string{"compile", "-h"}, exitOK},
		{[]string{"lookup", "--help"}, exitOK},
		{[]string{"frob"}, exitUsage},
		{[]string{"help", "frob"}, exitUsage},
		{[]string{"compile"}, exitUsage},
		{[]string{"compile", "--bogus"}, exitUsage},
		{[]string{"compile", "--env", "nosuch", "--facts", "x", "--out", "o"}, exitFail},
		{[]string{"lookup", "--bundle", "x", "--node", "n"}, exitUsage},
		{[]string{"lookup", "--merge", "bogus", "k"}, exitUsage},
		{[]string{"lookup", "--knock-out-prefix", "--", "k"}, exitUsage},
		{[]string{"lookup", "--bundle", "nosuch", "--node", "n", "k"}, exitFail},
		{[]string{"lookup", "--node", "n", "k"}, exitUsage},
		{[]string{"lookup", "--bundle", ".", "k"}, exitUsage},
	} {
		code, _, stderr := runCLI(tc.args...)
		if code != tc.want {
			t.Errorf("hieracc %s: exit %d, want %d\n%s", strings.Join(tc.args, " "), code, tc.want, stderr)
		}
	}
}

// TestHelpGolden pins the help texts, which are long: go test -update
// rewrites testdata/help/*.golden.
func TestHelpGolden(t *testing.T) {
	for _, name := range []string{"", "compile", "lookup", "help"} {
		args := []string{"help"}
		file := "hieracc.golden"
		if name != "" {
			args = append(args, name)
			file = name + ".golden"
		}
		code, stdout, stderr := runCLI(args...)
		if code != exitOK || stderr != "" {
			t.Fatalf("hieracc %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
		golden(t, filepath.Join("testdata", "help", file), stdout)
	}
}

// golden compares got with a golden file; -update rewrites it.
func golden(t *testing.T, file, got string) {
	t.Helper()
	goldenfile.Check(t, file, got, *update)
}

// TestNeverPanics feeds odd command lines; run must answer each with an exit
// code and a message, never a panic (run recovers one, but says so).
func TestNeverPanics(t *testing.T) {
	for _, args := range [][]string{
		{"compile", "--env", "", "--facts", "", "--out", ""},
		{"compile", "--facts"},
		{"lookup", "--bundle", "", "--node", "", ""},
		{"lookup", "--", "--", "--"},
		{"lookup", "--render-as"},
		{"help", ""},
		{""},
		{"-"},
	} {
		var o, e bytes.Buffer
		run(args, strings.NewReader(""), &o, &e)
		if strings.Contains(e.String(), "internal error") {
			t.Errorf("hieracc %q: %s", args, e.String())
		}
	}
}

// TestExplainGolden pins lookup --explain on the example fleet: go test
// -update rewrites testdata/explain/*.golden.
func TestExplainGolden(t *testing.T) {
	out := t.TempDir()
	ex := filepath.Join("..", "..", "testdata", "example")
	if code, stdout, stderr := runCLI("compile", "--env", filepath.Join(ex, "env"), "--modules", filepath.Join(ex, "modules"),
		"--facts", filepath.Join(ex, "nodes"), "--out", out); code != exitOK {
		t.Fatalf("compile: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"deep-knockout", []string{"--node", "bastion01.ams2.example.net", "accounts::users"}},
		{"first-found", []string{"--node", "web01.fra1.example.net", "ntp::servers"}},
		{"merge-flag", []string{"--node", "web01.fra1.example.net", "--merge", "unique", "ntp::servers"}},
		{"dotted", []string{"--node", "web01.fra1.example.net", `nginx::vhosts."www.fra1.example.net".listen`}},
		{"several-keys", []string{"--node", "db01.fra1.example.net", "nosuch::key", "profile::base::proxy"}},
		{"missing-fact", []string{"--node", "ci01.example.org", "profile::base::packages"}},
		{"not-found", []string{"--node", "lb01.fra1.example.net", "ntp::nosuch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"lookup", "--explain", "--bundle", out}, tc.args...)
			code, stdout, stderr := runCLI(args...)
			args[3] = "BUNDLES" // the temporary folder, for the record
			golden(t, filepath.Join("testdata", "explain", tc.name+".golden"),
				fmt.Sprintf("$ hieracc %s\n%s[exit %d]\n%s", strings.Join(args, " "), stdout, code, stderr))
		})
	}
}

// TestRevision checks that bundles name what they were compiled from: the
// same inputs give the same revision wherever they are, and a change to a
// data file gives another.
func TestRevision(t *testing.T) {
	tmp := t.TempDir()
	write := func(p, s string) {
		p = filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	revision := func(repo, out string) string {
		t.Helper()
		code, stdout, stderr := runCLI("compile", "--env", filepath.Join(tmp, repo), "--facts", filepath.Join(tmp, "nodes"), "--out", filepath.Join(tmp, out))
		if code != exitOK {
			t.Fatalf("compile: exit %d\n%s%s", code, stdout, stderr)
		}
		b, err := runtime.Open(filepath.Join(tmp, out, "web01.bundle"))
		if err != nil {
			t.Fatal(err)
		}
		return b.Header().Revision
	}
	hiera := "version: 5\nhierarchy:\n  - name: Common\n    path: common.yaml\n"
	write("a/hiera.yaml", hiera)
	write("a/data/common.yaml", "x: 1\n")
	write("b/hiera.yaml", hiera) // the same repo, elsewhere
	write("b/data/common.yaml", "x: 1\n")
	write("nodes/web01.yaml", "role: web\n")

	ra := revision("a", "out-a")
	if !strings.HasPrefix(ra, "sha256:") {
		t.Fatalf("revision %q is not a digest", ra)
	}
	if rb := revision("b", "out-b"); rb != ra {
		t.Errorf("the same inputs in another folder: revision %s, want %s", rb, ra)
	}
	write("b/data/common.yaml", "x: 2\n")
	if rb := revision("b", "out-b2"); rb == ra {
		t.Errorf("changed data, same revision %s", rb)
	}
}

// TestRawBytesEscaped: what hieracc writes to stderr never holds a raw
// control character or a byte that is not UTF-8, whatever the input it
// quotes (here a key and a node name given to lookup).
func TestRawBytesEscaped(t *testing.T) {
	out := t.TempDir()
	if code, stdout, stderr := runCLI("compile", "--env", filepath.Join("..", "..", "testdata", "example", "env"),
		"--facts", filepath.Join("..", "..", "testdata", "example", "nodes", "web01.fra1.example.net.yaml"), "--out", out); code != exitOK {
		t.Fatalf("compile: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--node", "web01.fra1.example.net", "a\x1b[31mb\x07\x00\xe9\u0085\tc"}, `'a\x1b[31mb\a\x00\xe9\u0085` + "\tc'"},
		{[]string{"--node", "x\x1by", "k"}, `no bundle for node x\x1by`},
	} {
		code, _, stderr := runCLI(append([]string{"lookup", "--bundle", out}, tc.args...)...)
		if code != exitFail || !strings.Contains(stderr, tc.want) {
			t.Errorf("lookup %q: exit %d, stderr %q; want it to hold %q", tc.args, code, stderr, tc.want)
		}
		for _, r := range strings.TrimSuffix(stderr, "\n") {
			if r == utf8.RuneError || r != '\t' && unicode.IsControl(r) {
				t.Errorf("lookup %q: stderr holds %q: %q", tc.args, r, stderr)
			}
		}
	}
}

// failWriter fails every write, as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStdoutWriteFails: output that cannot be written makes every command
// fail with that said, never exit 0 with its output lost.
func TestStdoutWriteFails(t *testing.T) {
	out := t.TempDir()
	if code, stdout, stderr := runCLI("compile", "--env", filepath.Join("..", "..", "testdata", "example", "env"),
		"--facts", filepath.Join("..", "..", "testdata", "example", "nodes", "web01.fra1.example.net.yaml"), "--out", out); code != exitOK {
		t.Fatalf("compile: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"lookup", "--bundle", out, "--node", "web01.fra1.example.net", "ntp::servers"},
		{"lookup", "--bundle", out, "--node", "web01.fra1.example.net", "--explain", "ntp::servers"},
		{"inspect", out},
		{"man"},
		{"completion", "bash"},
		{"version"},
		{"help", "lookup"},
	} {
		var stderr bytes.Buffer
		code := run(args, strings.NewReader(""), failWriter{}, &stderr)
		if code == exitOK || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%q with stdout failing: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}
