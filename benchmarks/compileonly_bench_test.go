package benchmarks

import (
	"context"
	"fmt"
	"testing"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/internal/cputime"
)

// BenchmarkCompileOnly is BenchmarkCompile without the encoder: each
// bundle is dropped as soon as it is compiled, so ns/node and allocs/op are
// the compiler's own (data files parsed, hierarchies expanded, keys
// resolved, work shared across nodes). The baseline is the same as
// BenchmarkCompile's: parsing every input file once ("parse-ratio", and
// "cpu-ratio" in CPU time, as BenchmarkCompile's). The
// reference fleet (10,000 nodes) is skipped with -short.
func BenchmarkCompileOnly(b *testing.B) {
	for _, size := range []struct{ nodes, keys int }{{100, 2000}, {1000, 2000}, {10000, 2000}} {
		b.Run(fmt.Sprintf("nodes=%d/keys=%d", size.nodes, size.keys), func(b *testing.B) {
			if testing.Short() && size.nodes > 1000 {
				b.Skip("reference fleet skipped in -short mode")
			}
			f := loadFleet(b, size.nodes, size.keys)
			base := parseBaseline(b, f)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cputime.Used()
			for b.Loop() {
				in := f.input()
				in.Emit = func(int, *format.Bundle) error { return nil }
				if _, err := compiler.Compile(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
			base.report(b, cputime.Used()-cpu0, size.nodes)
		})
	}
}
