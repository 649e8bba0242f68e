package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
)

// diffFleet is the shape of the bundles BenchmarkDiff compares.
const (
	diffKeys    = 200 // keys per node
	diffPerNode = 10  // of those, keys whose value names the node
	diffChanged = 100 // nodes of 10,000 changed (1%)
)

// BenchmarkDiff runs `hieracc diff OLD NEW` on two compile outputs of
// 10,000 nodes that differ on 1% of them (three keys each: a scalar, a
// nested hash entry and an added array element), as a user would: the
// binary, start to exit. The folders and the binary are built once per
// process.
//
// Baselines, measured in the same run: "headers-ratio" is ns/op over the
// time to only read the 20,000 bundle headers (in parallel, as diff does)
// in-process: what skipping unchanged nodes by digest cannot beat;
// "readall-ratio" is ns/op over the time to read every bundle whole, what a
// diff that decoded every bundle would at least cost.
func BenchmarkDiff(b *testing.B) {
	const nodes = 10000
	if testing.Short() {
		b.Skip("10,000-node fleet skipped in -short mode")
	}
	dir := b.TempDir()
	hieracc := buildHieracc(b, dir)
	start := time.Now()
	oldDir, newDir, files := writeDiffFleet(b, dir, nodes)
	b.Logf("setup: %d bundles written in %v", len(files), time.Since(start).Round(time.Millisecond))

	// The report must be right before its speed means anything.
	out, code := runDiff(b, hieracc, oldDir, newDir)
	want := fmt.Sprintf("%d nodes compared: %d changed, %d unchanged, 0 only in OLD, 0 only in NEW; 3 keys changed", nodes, diffChanged, nodes-diffChanged)
	if code != 1 || !strings.Contains(out, want) {
		b.Fatalf("hieracc diff: exit %d, want 1 and %q; output ends:\n%s", code, want, out[max(0, len(out)-500):])
	}
	headers := baseline(b, files, readHeaderFile)
	whole := baseline(b, files, func(p string) error { _, err := os.ReadFile(p); return err })

	b.Run(fmt.Sprintf("nodes=%d/changed=%d", nodes, diffChanged), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, code := runDiff(b, hieracc, oldDir, newDir); code != 1 {
				b.Fatalf("exit %d", code)
			}
		}
		perOp := b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(float64(perOp)/float64(headers), "headers-ratio")
		b.ReportMetric(float64(perOp)/float64(whole), "readall-ratio")
		b.ReportMetric(float64(headers.Nanoseconds()), "headers-ns")
	})
}

func runDiff(b *testing.B, hieracc, oldDir, newDir string) (string, int) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(hieracc, "diff", oldDir, newDir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		if ee.ExitCode() == 2 {
			b.Fatalf("hieracc diff: %s", stderr.String())
		}
		return stdout.String(), ee.ExitCode()
	}
	if err != nil {
		b.Fatal(err)
	}
	return stdout.String(), 0
}

func readHeaderFile(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = format.ReadHeader(f)
	return err
}

// baseline times read over every file, GOMAXPROCS at a time, after one
// warm-up round (the page cache is then as warm as for the diffs).
func baseline(b *testing.B, files []string, read func(string) error) time.Duration {
	round := func() time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		work := make(chan string)
		for range goruntime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := range work {
					if err := read(p); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		for _, p := range files {
			work <- p
		}
		close(work)
		wg.Wait()
		return time.Since(start)
	}
	round()
	const rounds = 5
	var total time.Duration
	for range rounds {
		total += round()
	}
	return total / rounds
}

// writeDiffFleet writes dir/old and dir/new, the bundles of nodes nodes,
// the first diffChanged of which differ; files lists every bundle.
func writeDiffFleet(b *testing.B, dir string, nodes int) (oldDir, newDir string, files []string) {
	oldDir, newDir = filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, d := range []string{oldDir, newDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range goruntime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				name := fmt.Sprintf("node%05d.example.net", i)
				data, err := encode.Encode(diffBundle(name, false))
				if err != nil {
					b.Error(err)
					return
				}
				newData := data // an unchanged node's bundles are the same bytes
				if i < diffChanged {
					if newData, err = encode.Encode(diffBundle(name, true)); err != nil {
						b.Error(err)
						return
					}
				}
				for _, f := range []struct {
					dir  string
					data []byte
				}{{oldDir, data}, {newDir, newData}} {
					p := filepath.Join(f.dir, name+".bundle")
					if err := os.WriteFile(p, f.data, 0o644); err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					files = append(files, p)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range nodes {
		work <- i
	}
	close(work)
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	// Let the kernel write the files out now, not during the measurements
	// (best effort: where there is a sync command).
	if sync, err := exec.LookPath("sync"); err == nil {
		_ = exec.Command(sync).Run()
	}
	return oldDir, newDir, files
}

// diffBundle is one node's bundle: diffKeys keys of every shape over a
// three-level hierarchy, a few naming the node. changed alters three keys.
func diffBundle(node string, changed bool) *format.Bundle {
	bd := &format.Bundle{
		Node: node, Environment: "production", Revision: "bench",
		Env: format.Hierarchy{Present: true, Levels: []format.Level{
			{Name: "Per-node data", Locations: []format.Location{{Path: "env/data/nodes/" + node + ".yaml", Exists: true}}},
			{Name: "Role", Locations: []format.Location{{Path: "env/data/roles/web.yaml", Exists: true}}},
			{Name: "Common", Locations: []format.Location{{Path: "env/data/common.yaml", Exists: true}}},
		}},
	}
	for i := range diffKeys {
		name := fmt.Sprintf("profile::k%03d", i)
		var v any
		switch i % 5 {
		case 0:
			v = fmt.Sprintf("value-%d", i)
		case 1:
			v = int64(i * 7)
		case 2:
			v = []any{fmt.Sprintf("a%d.example.net", i), fmt.Sprintf("b%d.example.net", i), "c.example.net"}
		case 3:
			h := format.NewHash(3)
			h.Set("enabled", i%2 == 0)
			h.Set("port", int64(8000+i))
			users := format.NewHash(2)
			for _, u := range []string{"alice", "bob"} {
				rec := format.NewHash(2)
				rec.Set("shell", "/bin/bash")
				rec.Set("uid", int64(1000+i))
				users.Set(u, rec)
			}
			h.Set("users", users)
			v = h
		case 4:
			v = i%3 == 0
		}
		if i < diffPerNode {
			v = fmt.Sprintf("%s.%d", node, i)
		}
		if changed {
			switch i {
			case 15: // a scalar
				v = "changed-value"
			case 13: // a nested entry: users/alice/shell
				h := v.(*format.Hash).Clone()
				users, _ := h.Get("users")
				u := users.(*format.Hash).Clone()
				alice, _ := u.Get("alice")
				rec := alice.(*format.Hash).Clone()
				rec.Set("shell", "/bin/zsh")
				u.Set("alice", rec)
				h.Set("users", u)
				v = h
			case 12: // an array element added
				v = append(append([]any{}, v.([]any)...), "d.example.net")
			}
		}
		level := 2 // common
		if i < diffPerNode {
			level = 0
		} else if i%4 == 0 {
			level = 1
		}
		bd.Keys = append(bd.Keys, format.Key{Name: name, Value: v, Contributions: []format.Contribution{
			{Layer: format.LayerEnvironment, Level: level, Line: 1 + i*3, Column: 1, Value: v},
		}})
	}
	return bd
}
