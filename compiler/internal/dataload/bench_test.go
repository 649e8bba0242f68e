package dataload

import (
	"encoding/json"
	"fmt"
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

// TestLinear guards against quadratic behaviour: ten times the input must
// not take much more than ten times as long.
func TestLinear(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	inputs := map[string]func(n int) string{
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
	for name, gen := range inputs {
		small, large := []byte(gen(200)), []byte(gen(2000))
		ts, tl := timeLoad(small), timeLoad(large)
		if ratio := float64(tl) / float64(ts); ratio > 40 {
			t.Errorf("%s: 10x the input took %.0fx as long (%v vs %v)", name, ratio, ts, tl)
		}
	}
}

func timeLoad(src []byte) time.Duration {
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		start := time.Now()
		YAML("f", src)
		if d := time.Since(start); d < best {
			best = d
		}
	}
	return best
}
