package benchmarks

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
)

// BenchmarkEncodeCompiled encodes the compiled bundles of 300 nodes of the
// 1,000-node fleet with one warm encode.Encoder, as each compile worker
// does (in the order a compile hands them over, slice by slice, and with
// their shared details files): what writing a bundle costs a compile. The
// baseline, measured in the same run, is encode.EncodeShared, which
// remembers nothing from one bundle to the next (cold-ratio: the warm
// encoder's time over it).
func BenchmarkEncodeCompiled(b *testing.B) {
	f := loadFleet(b, 1000, 2000)
	in := f.input()
	in.Nodes = in.Nodes[:300]
	in.Jobs = 1
	// The order a worker meets the nodes in: Emit's bundles live only
	// during the call, so the compile is run twice.
	var order []string
	in.Emit = func(_ int, bd *format.Bundle) error { order = append(order, bd.Node); return nil }
	if _, err := compiler.Compile(context.Background(), in); err != nil {
		b.Fatal(err)
	}
	in.Emit = nil
	res, err := compiler.Compile(context.Background(), in)
	if err != nil {
		b.Fatal(err)
	}
	byNode := map[string]*format.Bundle{}
	for _, bd := range res.Bundles {
		byNode[bd.Node] = bd
	}
	bundles := make([]*format.Bundle, 0, len(order))
	for _, n := range order {
		bundles = append(bundles, byNode[n])
	}
	if len(bundles) != len(res.Bundles) || slices.Contains(bundles, nil) {
		b.Fatalf("compile order names %d bundles of %d", len(bundles), len(res.Bundles))
	}

	// The baseline, once over every bundle.
	start := time.Now()
	total := 0
	for _, bd := range bundles {
		data, _, err := encode.EncodeShared(bd, encode.Protection{})
		if err != nil {
			b.Fatal(err)
		}
		total += len(data)
	}
	cold := time.Since(start) / time.Duration(len(bundles))

	enc := encode.NewEncoder()
	var buf []byte
	for _, bd := range bundles { // warm it up as a compile would
		if buf, _, err = enc.AppendShared(buf[:0], bd, encode.Protection{}); err != nil {
			b.Fatal(err)
		}
	}
	// An op encodes every bundle once, so that a few ops (-benchtime 3x)
	// are enough.
	b.ReportAllocs()
	b.SetBytes(int64(total))
	b.ResetTimer()
	for b.Loop() {
		for _, bd := range bundles {
			buf, _, _ = enc.AppendShared(buf[:0], bd, encode.Protection{})
		}
	}
	perBundle := b.Elapsed() / time.Duration(b.N*len(bundles))
	b.ReportMetric(float64(perBundle.Nanoseconds()), "ns/bundle")
	b.ReportMetric(float64(perBundle)/float64(cold), "cold-ratio")
}
