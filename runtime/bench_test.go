package runtime_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime"
)

var sink any

// BenchmarkLookup compares Lookup with a Go map[string]any holding the same
// keys, in the same run: x-map is Lookup's ns/lookup over the map's (an op
// is a chunk of lookups).
func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{100, 1000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			src := Synthetic(n)
			rb := open(b, src)
			m := make(map[string]any, n)
			for _, k := range src.Keys {
				m[k.Name] = k.Value
			}
			// Queries in random order, as fresh strings (not the bundle's
			// own, which would make string comparison trivial).
			queries := make([]string, n)
			for i, j := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
				queries[i] = strings.Clone(src.Keys[j].Name)
			}
			// Each iteration looks up a chunk of keys, then (untimed by the
			// benchmark, timed here) the same chunk in the map, so that
			// both see the same machine load, and a few iterations
			// (-benchtime 3x) are enough.
			const chunk = 1 << 14
			var mapTime time.Duration
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				first := i
				for range chunk {
					v, err := rb.Lookup(queries[i])
					if err != nil {
						b.Fatal(err)
					}
					sink = v
					if i++; i == n {
						i = 0
					}
				}
				b.StopTimer()
				start := time.Now()
				j := first
				for range chunk {
					v, ok := m[queries[j]]
					if !ok {
						b.Fatal("missing")
					}
					sink = v
					if j++; j == n {
						j = 0
					}
				}
				mapTime += time.Since(start)
				b.StartTimer()
			}
			ops := float64(b.N) * chunk
			lookupNs := float64(b.Elapsed().Nanoseconds()) / ops
			mapNs := float64(mapTime.Nanoseconds()) / ops
			b.ReportMetric(lookupNs, "ns/lookup")
			b.ReportMetric(mapNs, "map-ns/lookup")
			b.ReportMetric(lookupNs/mapNs, "x-map")
		})
	}
}

func BenchmarkLookupDotted(b *testing.B) {
	rb := open(b, testBundle())
	b.ReportAllocs()
	for b.Loop() {
		sink, _ = rb.Lookup("users.alice.uid")
	}
}

func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{2000, 100_000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			data, err := encode.Encode(Synthetic(n))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := runtime.OpenBytes(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	src := Synthetic(2000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encode.Encode(src); err != nil {
			b.Fatal(err)
		}
	}
}
