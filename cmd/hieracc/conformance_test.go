package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/internal/conformancetest"
)

// conformanceDir holds the cases whose expected values real `puppet lookup`
// produced (../shared beside the checkout).
const conformanceDir = "../../../shared/conformance/public"

// TestConformanceViaCLI runs every conformance case the way a user would:
// `hieracc compile` writes bundles to disk, and each check is one
// `hieracc lookup --render-as json` whose output is compared, key order
// included, with what Puppet printed.
func TestConformanceViaCLI(t *testing.T) {
	cases, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Skipf("conformance corpus not found at %s (../shared beside the checkout): %v", conformanceDir, err)
	}
	total, passed := 0, 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		dir := filepath.Join(conformanceDir, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			n, p := runCaseViaCLI(t, dir)
			total += n
			passed += p
		})
	}
	t.Logf("conformance via CLI: %d/%d passed", passed, total)
}

// TestOwnConformanceViaCLI runs hieracc's own cases (testdata/conformance),
// whose expected values real Puppet also produced, the same way.
func TestOwnConformanceViaCLI(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "..", "testdata", "conformance", "*", "expected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	total, passed := 0, 0
	for _, f := range cases {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if why := conformancetest.MissingLinks(dir); why != "" {
				t.Skip(why)
			}
			n, p := runCaseViaCLI(t, dir)
			total += n
			passed += p
		})
	}
	t.Logf("own conformance cases via CLI: %d cases, %d/%d passed", len(cases), passed, total)
}

// TestExampleViaCLI runs the README's example fleet, whose expected.yaml
// real Puppet also produced, the same way.
func TestExampleViaCLI(t *testing.T) {
	total, passed := runCaseViaCLI(t, filepath.Join("..", "..", "testdata", "example"))
	t.Logf("example via CLI: %d/%d passed", passed, total)
}

func runCaseViaCLI(t *testing.T, dir string) (total, passed int) {
	checks, err := conformancetest.ReadChecks(dir)
	if err != nil {
		t.Fatal(err)
	}

	out := compileCase(t, dir)
	for i, ck := range checks {
		if msg := runCheckViaCLI(out, ck); msg != "" {
			t.Errorf("%d:%s/%s: %s", i, ck.Node, ck.Key, msg)
			continue
		}
		passed++
	}
	return len(checks), passed
}

// compileCase compiles a conformance case (keeping going past errors, as
// Puppet answers the other keys) and returns the bundles' folder.
func compileCase(t *testing.T, dir string) string {
	out := t.TempDir()
	args := []string{"compile", "--keep-going", "--env", filepath.Join(dir, "env"), "--facts", filepath.Join(dir, "nodes"), "--out", out}
	if isDir(filepath.Join(dir, "modules")) {
		args = append(args, "--modules", filepath.Join(dir, "modules"))
	}
	flags, err := conformancetest.ReadFlags(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range flags {
		if f.Name == "--ruby-backends" && f.Value == "puppet" {
			if _, err := exec.LookPath("puppet"); err != nil {
				t.Skipf("%s needs --ruby-backends=puppet, which runs Puppet's Ruby, and `puppet` is not on PATH (the compiler's conformance test replays its recorded answers)", filepath.Base(dir))
			}
		}
		args = append(args, f.Name, f.Arg())
	}
	// Puppet always has a global layer: global/hiera.yaml, or its default
	// config over the confdir (global/, or an empty one when the case has
	// none).
	if isDir(filepath.Join(dir, "global")) {
		args = append(args, "--global", filepath.Join(dir, "global"))
	} else {
		args = append(args, "--global", t.TempDir())
	}
	code, stdout, stderr := runCLI(args...)
	if code == exitUsage || code != exitOK && code != exitFail {
		t.Fatalf("compile: exit %d\n%s%s", code, stdout, stderr)
	}
	return out
}

func runCheckViaCLI(out string, ck conformancetest.Check) string {
	args := []string{"lookup", "--bundle", out, "--node", ck.Node, "--render-as", "json"}
	margs, err := ck.MergeFlags()
	if err != nil {
		return err.Error()
	}
	args = append(args, margs...)
	args = append(args, "--", ck.Key) // a key may start with "-"
	code, stdout, stderr := runCLI(args...)

	switch {
	case ck.Error:
		if code != exitFail {
			return fmt.Sprintf("want error containing %q, got exit %d: %s%s", ck.Message, code, stdout, stderr)
		}
		if strings.Contains(stderr, "did not find a value") || !strings.Contains(stderr, ck.Message) {
			return fmt.Sprintf("want error containing %q, got %q", ck.Message, stderr)
		}
	case ck.NotFound:
		want := fmt.Sprintf("Function lookup() did not find a value for the name '%s'", ck.Key)
		if code != exitFail || !strings.Contains(stderr, want) {
			return fmt.Sprintf("want not found, got exit %d: %s%s", code, stdout, stderr)
		}
	default:
		if code != exitOK {
			return fmt.Sprintf("want a value, got exit %d: %s%s", code, stdout, stderr)
		}
		got, err := conformancetest.DecodeJSON(stdout)
		if err != nil {
			return fmt.Sprintf("output is not JSON (%v): %q", err, stdout)
		}
		want, err := ck.Want()
		if err != nil {
			return fmt.Sprintf("expected value: %v", err)
		}
		if d := conformancetest.Diff(want, got); d != "" {
			return fmt.Sprintf("value mismatch (-want +got):\n%s", d)
		}
	}
	return ""
}

// runCLI runs hieracc in-process.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}
