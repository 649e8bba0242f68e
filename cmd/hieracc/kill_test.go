//go:build unix

package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/runtime"
)

// TestCompileKilled kills `hieracc compile` with SIGKILL at random moments
// while it replaces the bundles of a fleet, and checks that nothing is
// lost: every bundle is whole, the old one or the new one, and the next
// complete run leaves exactly its own bundles and no temporary file.
//
// Each run compiles a new generation of the fleet: its facts say which,
// and a global data file puts that in every bundle, so each bundle tells
// which run wrote it.
func TestCompileKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a fleet of 1,000 nodes a dozen times")
	}
	exe, err := exec.LookPath("hieracc") // this test binary, installed by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	example, err := filepath.Abs("../../testdata/example")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	facts := filepath.Join(dir, "facts")
	global := filepath.Join(dir, "global")
	if err := os.MkdirAll(filepath.Join(global, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Puppet's default global hiera.yaml reads data/common.yaml.
	if err := os.WriteFile(filepath.Join(global, "data", "common.yaml"), []byte("fleet::generation: \"%{facts.generation}\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const copies = 125 // of the 8 example nodes
	writeFleet := func(gen string) {
		t.Helper()
		os.RemoveAll(facts)
		if err := os.MkdirAll(facts, 0o755); err != nil {
			t.Fatal(err)
		}
		nodes, err := filepath.Glob(filepath.Join(example, "nodes", "*.yaml"))
		if err != nil || len(nodes) == 0 {
			t.Fatalf("example nodes: %v", err)
		}
		for _, n := range nodes {
			src, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			src = append(src, "generation: "+gen+"\n"...)
			for i := range copies {
				name := fmt.Sprintf("c%03d-%s", i, filepath.Base(n))
				if err := os.WriteFile(filepath.Join(facts, name), src, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	compile := func(out string) *exec.Cmd {
		cmd := exec.Command(exe, "compile", "--env", filepath.Join(example, "env"),
			"--modules", filepath.Join(example, "modules"), "--global", global, "--facts", facts, "--out", out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		return cmd
	}
	run := func(out string) time.Duration {
		t.Helper()
		cmd := compile(out)
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("compile: %v\n%s", err, cmd.Stderr)
		}
		return time.Since(start)
	}
	readAll := func(out string) map[string][]byte {
		t.Helper()
		m := map[string][]byte{}
		entries, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".bundle") {
				b, err := os.ReadFile(filepath.Join(out, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				m[e.Name()] = b
			}
		}
		return m
	}

	// The first generation, compiled from scratch.
	writeFleet("G0")
	full := run(filepath.Join(dir, "ref"))
	ref := readAll(filepath.Join(dir, "ref"))
	if len(ref) != 8*copies {
		t.Fatalf("%d bundles, want %d", len(ref), 8*copies)
	}
	t.Logf("a full compile takes %v", full)

	// check verifies that every bundle in out is whole, for its node, and
	// of the generation it was before (prev) or of gen, and returns the
	// generation of each bundle and how many temporary files there are.
	var referred map[string]bool // by check: the shared details files the bundles refer to
	check := func(out string, prev map[string]string, gen string) (gens map[string]string, temps int) {
		t.Helper()
		gens = map[string]string{}
		referred = map[string]bool{}
		entries, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			switch {
			case build.IsTemp(name):
				temps++
				continue
			case name == build.StateFile:
				continue
			case name == format.SharedDetailsDir && e.IsDir():
				continue // checked through the bundles that refer to them
			case !strings.HasSuffix(name, ".bundle"):
				t.Fatalf("unexpected file in OUT: %s", name)
			}
			b, err := runtime.Open(filepath.Join(out, name))
			if err != nil {
				t.Fatalf("a bundle does not open: %v", err)
			}
			if node := b.Header().Node; node+".bundle" != name {
				t.Fatalf("%s holds the bundle of node %q", name, node)
			}
			v, err := b.Lookup("fleet::generation")
			g, _ := v.(string)
			if err != nil || (g != prev[name] && g != gen) {
				t.Fatalf("%s: generation %v (%v), want %s (old) or %s (new)", name, v, err, prev[name], gen)
			}
			gens[name] = g
			if d, ok := sharedOf(t, filepath.Join(out, name)); ok {
				referred[format.SharedDetailsName(d)] = true
				f, err := os.Open(filepath.Join(out, filepath.FromSlash(format.SharedDetailsName(d))))
				if err != nil {
					t.Fatalf("%s refers to a shared details file that is not there: %v", name, err)
				}
				got, err := format.VerifySharedDetails(f)
				f.Close()
				if err != nil || got != d {
					t.Fatalf("%s refers to %s, which is not whole: %v", name, format.SharedDetailsName(d), err)
				}
			}
		}
		if len(referred) == 0 {
			t.Fatalf("no bundle in OUT refers to a shared details file")
		}
		if len(gens) != 8*copies {
			t.Fatalf("%d bundles in OUT, want %d", len(gens), 8*copies)
		}
		return gens, temps
	}

	out := filepath.Join(dir, "out")
	run(out)
	gens, _ := check(out, nil, "G0")
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	mixed, killedWithTemps := 0, 0
	for i := range 10 {
		gen := fmt.Sprintf("G%d", i+1)
		writeFleet(gen)
		cmd := compile(out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var how string
		if i%2 == 0 {
			// Any moment of the run.
			d := time.Duration(r.Int64N(int64(full)))
			time.Sleep(d)
			how = fmt.Sprintf("after %v", d)
		} else {
			// While the bundles are renamed into place: once the
			// temporary files of this run (in its staging folders), all
			// written, start to go.
			mine := fmt.Sprintf(".tmp-%d-", cmd.Process.Pid)
			most := 0
			deadline := time.Now().Add(10 * full)
			for time.Now().Before(deadline) {
				entries, _ := os.ReadDir(out)
				n := 0
				for _, e := range entries {
					if !build.IsTemp(e.Name()) || !strings.Contains(e.Name(), mine) {
						continue
					}
					if !e.IsDir() {
						n++
						continue
					}
					staged, _ := os.ReadDir(filepath.Join(out, e.Name()))
					n += len(staged)
				}
				if most > 0 && n < most {
					break
				}
				most = max(most, n)
				time.Sleep(200 * time.Microsecond)
			}
			how = "while renaming"
		}
		cmd.Process.Kill() // SIGKILL
		cmd.Wait()
		var temps int
		gens, temps = check(out, gens, gen)
		count := map[string]int{}
		for _, g := range gens {
			count[g]++
		}
		t.Logf("killed %s: bundles of each generation %v, %d temporary files", how, count, temps)
		if count[gen] > 0 && count[gen] < len(gens) {
			mixed++
		}
		if temps > 0 {
			killedWithTemps++
		}
	}
	// The kills must have hit the moments that matter, or this test tests
	// nothing.
	if mixed == 0 || killedWithTemps == 0 {
		t.Errorf("kills that left a mix of old and new bundles: %d, temporary files: %d; want some of each", mixed, killedWithTemps)
	}

	// A complete run, of the generation the last complete run compiled:
	// exactly its bundles, whatever the killed runs left, and no
	// temporary file, even one a killed run of another process left.
	writeFleet("G0")
	stale := filepath.Join(out, ".c000-web01.fra1.example.net.bundle.tmp-999999999-1")
	if err := os.WriteFile(stale, []byte("half a bundle"), 0o600); err != nil {
		t.Fatal(err)
	}
	staleDir := filepath.Join(out, ".stage.tmp-999999999-2")
	if err := os.Mkdir(staleDir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(staleDir, "c000-web01.fra1.example.net.bundle"), []byte("half a bundle"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(out)
	got := readAll(out)
	wrong := 0
	for name, data := range ref {
		if !bytes.Equal(got[name], data) {
			wrong++
		}
	}
	if _, temps := check(out, gens, "G0"); wrong > 0 || temps > 0 {
		t.Errorf("after a complete run: %d bundles are not those of a full compile, %d temporary files", wrong, temps)
	}
	// And exactly the shared details files its bundles refer to.
	entries, err := os.ReadDir(filepath.Join(out, format.SharedDetailsDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name := format.SharedDetailsDir + "/" + e.Name(); !referred[name] {
			t.Errorf("after a complete run: %s, which no bundle refers to", name)
		}
	}
}

// sharedOf is the digest of the shared details file the bundle file p
// refers to.
func sharedOf(t *testing.T, p string) (d [32]byte, ok bool) {
	t.Helper()
	data, err := format.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return x.SharedDigest()
}
