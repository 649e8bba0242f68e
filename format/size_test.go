package format

import (
	"fmt"
	"testing"
)

// BenchmarkEncodeSize encodes a fleet of 100 nodes × 2,000 keys (fleet:
// 144 role/datacenter/OS slices, keys shared as a compiler shares them)
// and reports the bytes a node's bundle takes (bytes/node), of which the
// details section (details-B/node), and their ratio to the same bundles in
// format versions 1 and 3 (v1-ratio, v3-ratio), written by the reference
// encoder in the same run.
func BenchmarkEncodeSize(b *testing.B) {
	bundles := fleet(100, 2000, true)
	var old [Version + 1]int
	for _, v := range []int{1, 3} {
		for _, bd := range bundles {
			data, err := refEncodeVersion(bd, v)
			if err != nil {
				b.Fatal(err)
			}
			old[v] += len(data)
		}
	}
	e := NewEncoder()
	var buf []byte
	for b.Loop() { // what encoding them takes, for the record
		for _, bd := range bundles {
			var err error
			if buf, err = e.Append(buf[:0], bd); err != nil {
				b.Fatal(err)
			}
		}
	}
	total, details := 0, 0
	for _, bd := range bundles {
		data, err := Encode(bd)
		if err != nil {
			b.Fatal(err)
		}
		x, err := DecodeIndex(data)
		if err != nil {
			b.Fatal(err)
		}
		total += len(data)
		details += len(x.details)
	}
	b.ReportMetric(float64(total)/float64(len(bundles)), "bytes/node")
	b.ReportMetric(float64(details)/float64(len(bundles)), "details-B/node")
	for _, v := range []int{1, 3} {
		b.ReportMetric(float64(total)/float64(old[v]), fmt.Sprintf("v%d-ratio", v))
	}
}

// BenchmarkDetails decodes the details section (Index.Bundle: what an
// explanation or a lookup-time merge reads) of the same bundles written
// in versions 3 and 4.
func BenchmarkDetails(b *testing.B) {
	bundles := fleet(20, 2000, true)
	for _, v := range []int{3, Version} {
		b.Run(fmt.Sprintf("version=%d", v), func(b *testing.B) {
			var xs []*Index
			size := 0
			for _, bd := range bundles {
				data, err := refEncodeVersion(bd, v)
				if err != nil {
					b.Fatal(err)
				}
				x, err := DecodeIndex(data)
				if err != nil {
					b.Fatal(err)
				}
				xs = append(xs, x)
				size += len(x.details)
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, x := range xs {
					if _, err := x.Bundle(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/bundle")
			b.ReportMetric(float64(size)/float64(len(xs)), "details-B/node")
		})
	}
}
