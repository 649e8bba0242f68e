package benchmarks

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hieracc/hieracc/compiler"
	"gopkg.in/yaml.v3"
)

// BenchmarkCheck runs `hieracc check` (compiler.Check, without facts) on
// a generated fleet: every data file of the environment and the modules,
// per-node ones included, read whether or not a node reaches it. The
// baseline, measured in the same run, is parsing each of those files once
// with yaml.v3, on one core ("parse-ratio": check's time over it; the
// goal is 1.5 or less).
func BenchmarkCheck(b *testing.B) {
	for _, size := range []struct{ nodes, keys int }{{1000, 2000}, {10000, 2000}} {
		b.Run(fmt.Sprintf("nodes=%d/keys=%d", size.nodes, size.keys), func(b *testing.B) {
			if testing.Short() && size.nodes > 1000 {
				b.Skip("reference fleet skipped in -short mode")
			}
			f := loadFleet(b, size.nodes, size.keys)
			in := f.input()
			in.Nodes = nil
			base := parseData(b, f)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, err := compiler.Check(context.Background(), in)
				if err != nil {
					b.Fatal(err)
				}
				if res.Errors() > 0 {
					b.Fatalf("check: %s", res.Diagnostics[0])
				}
			}
			b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(base), "parse-ratio")
		})
	}
}

// parseData is the time parsing every data file and hiera.yaml of a fleet
// (not the facts) once with yaml.v3 takes.
func parseData(b *testing.B, f *fleet) time.Duration {
	start := time.Now()
	const rounds = 3
	for range rounds {
		for name, file := range f.repo.FS {
			if strings.HasPrefix(name, "nodes/") {
				continue
			}
			var n yaml.Node
			if err := yaml.Unmarshal(file.Data, &n); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
		}
	}
	return time.Since(start) / rounds
}
