package compiler_test

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/internal/rubybackend"
)

var recordRuby = flag.Bool("record-ruby", false, "rewrite the recorded answers (ruby-answers.txt) of conformance cases that take --ruby-backends, from real Puppet")

// rubyAnswers is the file of a case that takes --ruby-backends=puppet
// holding the answers real Puppet gave (rubybackend.Recorder).
const rubyAnswers = "ruby-answers.txt"

// rubyBackendFor is the Ruby backend of a case that takes
// --ruby-backends=puppet: real Puppet when it is installed, whose answers
// must be those recorded in the case (or are recorded, with
// -record-ruby); else the recorded answers, replayed, so that the case
// runs everywhere.
func rubyBackendFor(t *testing.T, dir string) compiler.RubyBackend {
	t.Helper()
	file := filepath.Join(dir, rubyAnswers)
	recorded, readErr := os.ReadFile(file)
	if _, err := exec.LookPath("puppet"); err != nil {
		if readErr != nil {
			t.Fatalf("%v: record it with `go test ./compiler -run OwnConformance -record-ruby` where Puppet is installed", readErr)
		}
		t.Logf("%s: `puppet` is not on PATH: replaying the Ruby answers recorded in %s", filepath.Base(dir), rubyAnswers)
		r, err := rubybackend.NewReplay(recorded)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := rubybackend.Start(context.Background(), rubybackend.Config{
		EnvDir:     filepath.Join(abs, "env"),
		ModulePath: []string{filepath.Join(abs, "modules")},
		Roots:      []rubybackend.Root{{FS: "env", Disk: filepath.Join(abs, "env")}, {FS: "modules", Disk: filepath.Join(abs, "modules")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &rubybackend.Recorder{B: p}
	t.Cleanup(func() {
		p.Close()
		got := rec.Transcript()
		if *recordRuby {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		if d := cmp.Diff(string(recorded), string(got)); d != "" {
			t.Errorf("real Puppet's answers differ from %s (record them again with -record-ruby) (-recorded +puppet):\n%s", file, d)
		}
	})
	return rec
}
