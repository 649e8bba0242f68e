package benchmarks

import (
	"context"
	"testing"
	"time"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/format"
)

// BenchmarkEncodeCompiled encodes the compiled bundles of 300 nodes of the
// 1,000-node fleet with one warm format.Encoder, as each compile worker
// does: what writing a bundle costs a compile. The baseline, measured in
// the same run, is format.Encode, which remembers nothing from one bundle
// to the next (cold-ratio: the warm encoder's time over it).
func BenchmarkEncodeCompiled(b *testing.B) {
	f := loadFleet(b, 1000, 2000)
	in := f.input()
	in.Nodes = in.Nodes[:300]
	res, err := compiler.Compile(context.Background(), in)
	if err != nil {
		b.Fatal(err)
	}
	bundles := res.Bundles

	// The baseline, once over every bundle.
	start := time.Now()
	total := 0
	for _, bd := range bundles {
		data, err := format.Encode(bd)
		if err != nil {
			b.Fatal(err)
		}
		total += len(data)
	}
	cold := time.Since(start) / time.Duration(len(bundles))

	enc := format.NewEncoder()
	var buf []byte
	for _, bd := range bundles { // warm it up as a compile would
		if buf, err = enc.Append(buf[:0], bd); err != nil {
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
			buf, _ = enc.Append(buf[:0], bd)
		}
	}
	perBundle := b.Elapsed() / time.Duration(b.N*len(bundles))
	b.ReportMetric(float64(perBundle.Nanoseconds()), "ns/bundle")
	b.ReportMetric(float64(perBundle)/float64(cold), "cold-ratio")
}
