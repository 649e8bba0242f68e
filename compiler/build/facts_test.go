package build

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/facts"
)

// TestReportFacts: problems with facts come back in Report.Facts as
// diagnostics, counted as the compiler's are: a file in a facts folder
// that is not read is a warning (an error under Strict, which then
// writes nothing), and does not stop the bundles of nodes whose facts
// are gone from being removed; an override that does not apply is an
// error for its node alone, and then nothing is removed.
func TestReportFacts(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
	write("env/hiera.yaml", "version: 5\n")
	write("env/data/common.yaml", "k: '%{facts.role}'\n")
	write("facts/web01.yaml", "os: {family: RedHat}\n")
	write("facts/db01.json", `{"os": "Debian"}`)
	write("facts/gone01.yaml", "os: {family: RedHat}\n")
	out := filepath.Join(dir, "out")
	cfg := Config{Env: filepath.Join(dir, "env"), Facts: []string{filepath.Join(dir, "facts")}, Out: out}
	if r, err := Run(t.Context(), cfg); err != nil || !r.Committed || r.Written != 3 {
		t.Fatalf("first build: %+v, %v", r, err)
	}
	if err := os.Remove(filepath.Join(dir, "facts/gone01.yaml")); err != nil {
		t.Fatal(err)
	}
	write("facts/README.md", "not facts\n")

	strict := cfg
	strict.Strict = true
	r, err := Run(t.Context(), strict)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Facts) != 1 || r.Facts[0].Severity != diagnostics.Warning || r.Errors != 1 || r.Promoted != 1 || r.Committed {
		t.Errorf("strict, a README in the facts folder: %+v; want one warning counted as an error, nothing written", r)
	}

	r, err = Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Facts) != 1 || r.Warnings != 1 || r.Errors != 0 || !r.Committed || r.Removed != 1 {
		t.Errorf("a README in the facts folder: %+v; want one warning, gone01's bundle removed", r)
	}
	if _, err := os.Stat(filepath.Join(out, "gone01.bundle")); err == nil {
		t.Error("gone01.bundle is still there")
	}

	// os.family through a string: an error for db01 alone.
	write("facts/gone02.yaml", "os: {family: RedHat}\n")
	if r, err := Run(t.Context(), cfg); err != nil || !r.Committed {
		t.Fatalf("build with gone02: %+v, %v", r, err)
	}
	if err := os.Remove(filepath.Join(dir, "facts/gone02.yaml")); err != nil {
		t.Fatal(err)
	}
	ov, err := facts.ParseOverride(`os.family="Alpine"`)
	if err != nil {
		t.Fatal(err)
	}
	over := cfg
	over.FactOverrides, over.KeepGoing = []facts.Override{ov}, true
	r, err = Run(t.Context(), over)
	if err != nil {
		t.Fatal(err)
	}
	var errs []diagnostics.Diagnostic
	for _, d := range r.Facts {
		if d.Severity == diagnostics.Error {
			errs = append(errs, d)
		}
	}
	if len(errs) != 1 || errs[0].Node != "db01" || r.Nodes != 1 || r.Removed != 0 {
		t.Errorf("an override through a string: %+v; want an error for db01, web01 compiled, nothing removed", r)
	}
	if _, err := os.Stat(filepath.Join(out, "gone02.bundle")); err != nil {
		t.Errorf("gone02.bundle was removed after a facts error: %v", err)
	}
}

// writer returns a function that writes a file below dir, creating its
// folders.
func writer(t *testing.T, dir string) func(name, content string) {
	return func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
