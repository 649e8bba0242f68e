package dataload

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// hieraFile is a typical large data file: n keys with nested hashes,
// arrays and strings.
func hieraFile(n int) string {
	var b strings.Builder
	b.WriteString("---\n# common data\nlookup_options:\n  profile::base::packages:\n    merge: unique\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "profile::app%d::enabled: %v\n", i, i%2 == 0)
		fmt.Fprintf(&b, "profile::app%d::port: %d\n", i, 8000+i)
		fmt.Fprintf(&b, "profile::app%d::servers:\n  - ntp%d.example.com\n  - 'ntp%d.example.org'\n", i, i, i)
		fmt.Fprintf(&b, "profile::app%d::settings:\n  cache: {size: %d, ttl: 1.5}\n  user: app%d\n  path: \"/srv/app%d/%%{facts.hostname}\"\n", i, i, i, i)
	}
	return b.String()
}

func BenchmarkYAML(b *testing.B) {
	src := []byte(hieraFile(1000))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if doc, probs := YAML("f", src); doc == nil || len(probs) > 0 {
			b.Fatal(probs)
		}
	}
}

// blockFile is a data file of n keys in block style only, as generated
// fleets' (and many real) data files are: the part of YAML parseSimple
// reads.
func blockFile(n int) string {
	var b strings.Builder
	b.WriteString("---\n# node data\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "profile::app%d::enabled: %v\n", i, i%2 == 0)
		fmt.Fprintf(&b, "profile::app%d::port: %d\n", i, 8000+i)
		fmt.Fprintf(&b, "profile::app%d::servers:\n  - ntp%d.example.com\n  - 'ntp%d.example.org'\n", i, i, i)
		fmt.Fprintf(&b, "profile::app%d::settings:\n  cache:\n    size: %d\n    ttl: 1.5\n  user: app%d\n  path: \"/srv/app%d/%%{facts.hostname}\"\n", i, i, i, i)
	}
	return b.String()
}

// BenchmarkYAMLBlock loads a block-style file (blockFile), which
// parseSimple reads; "events-ratio" is its time over that of building the
// same tree through libyaml's events.
func BenchmarkYAMLBlock(b *testing.B) {
	src := []byte(blockFile(1000))
	if _, ok := new(builder).parseSimple(src); !ok {
		b.Fatal("parseSimple does not read blockFile")
	}
	// Each with a builder of its own, reset after each tree, as YAML's
	// builders are.
	ev, bl := &builder{}, &builder{}
	start := time.Now()
	const rounds = 20
	for range rounds {
		if _, err := ev.parseEvents(src); err != nil {
			b.Fatal(err)
		}
		ev.reset()
	}
	events := time.Since(start) / rounds
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		if _, ok := bl.parseSimple(src); !ok {
			b.Fatal("not read")
		}
		bl.reset()
	}
	b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(events), "events-ratio")
}

// BenchmarkYAMLv3Node is the baseline: yaml.v3 parsing into a yaml.Node.
func BenchmarkYAMLv3Node(b *testing.B) {
	src := []byte(hieraFile(1000))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		var n yaml.Node
		if err := yaml.Unmarshal(src, &n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSON(b *testing.B) {
	var y any
	yaml.Unmarshal([]byte(hieraFile(1000)), &y)
	src, _ := json.Marshal(y)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if doc, probs := JSON("f", src); doc == nil || len(probs) > 0 {
			b.Fatal(probs)
		}
	}
}

// linearInputs make inputs of a size that grows with n, each of a shape
// that once took (or could take) quadratic time or memory to load.
var linearInputs = map[string]func(n int) string{
	"hiera file": hieraFile,
	"flat keys": func(n int) string {
		var b strings.Builder
		for i := 0; i < n*10; i++ {
			fmt.Fprintf(&b, "k%d: v\n", i)
		}
		return b.String()
	},
	"deep flow with a long list": func(n int) string {
		return strings.Repeat("[", 500) + strings.Repeat("a, ", n*10) + "a" + strings.Repeat("]", 500)
	},
	"many aliases": func(n int) string {
		var b strings.Builder
		b.WriteString("a: &a {x: [1, 2, 3]}\n")
		for i := 0; i < n*10; i++ {
			fmt.Fprintf(&b, "k%d: {<<: *a, y: *a}\n", i)
		}
		return b.String()
	},
	"long line": func(n int) string { return "a: " + strings.Repeat("word ", n*100) + "\n" },
	"many complex keys": func(n int) string {
		var b strings.Builder
		b.WriteString("h:\n")
		for i := 0; i < n*2; i++ {
			fmt.Fprintf(&b, "  ? [k%d]\n  : v\n", i)
		}
		return b.String()
	},
}

// TestLinear guards against quadratic behaviour without a clock (timed
// assertions fail on a loaded machine): ten times the input must not
// allocate much more than ten times as much. BenchmarkLinear reports the
// time ratio of the same inputs.
func TestLinear(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	for name, gen := range linearInputs {
		small, large := []byte(gen(200)), []byte(gen(2000))
		bs, bl := allocated(small), allocated(large)
		if ratio := float64(bl) / float64(bs); ratio > 20 {
			t.Errorf("%s: 10x the input allocated %.0fx as much (%d vs %d bytes)", name, ratio, bs, bl)
		}
	}
}

// allocated is the number of bytes loading src allocates, with no
// builder from an earlier file to reuse: how many the pool holds (two
// collections empty it) would otherwise decide the ratio (a small input
// read with a warm builder against a large one with none gave 22-25x).
func allocated(src []byte) uint64 {
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	YAML("f", src)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// BenchmarkLinear reports, for each input of TestLinear, how much longer
// ten times the input takes to load (x10-ratio; linear is about 10).
func BenchmarkLinear(b *testing.B) {
	for name, gen := range linearInputs {
		small, large := []byte(gen(200)), []byte(gen(2000))
		b.Run(name, func(b *testing.B) {
			var ts, tl time.Duration
			for b.Loop() {
				start := time.Now()
				YAML("f", small)
				ts += time.Since(start)
				start = time.Now()
				YAML("f", large)
				tl += time.Since(start)
			}
			b.ReportMetric(float64(tl)/float64(ts), "x10-ratio")
		})
	}
}
