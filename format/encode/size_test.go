package encode

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hieracc/hieracc/format"
)

var bundlesDir = flag.String("bundles", "", "BenchmarkEncodeSize: also re-encode the bundles of this folder (a compile's output) in every version")

// BenchmarkEncodeSize encodes a fleet of 100 nodes × 2,000 keys (fleet:
// 144 role/datacenter/OS slices, keys shared as a compiler shares them)
// and reports the bytes a node's bundle takes (bytes/node), of which the
// details section (details-B/node), and their ratio to the same bundles in
// format versions 1 and 3 (v1-ratio, v3-ratio), written by the reference
// encoder in the same run.
func BenchmarkEncodeSize(b *testing.B) {
	bundles := fleet(100, 2000, true)
	var old [format.Version + 1]int
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
		x, err := format.DecodeIndex(data)
		if err != nil {
			b.Fatal(err)
		}
		total += len(data)
		details += detailsLen(x)
	}
	b.ReportMetric(float64(total)/float64(len(bundles)), "bytes/node")
	b.ReportMetric(float64(details)/float64(len(bundles)), "details-B/node")
	for _, v := range []int{1, 3} {
		b.ReportMetric(float64(total)/float64(old[v]), fmt.Sprintf("v%d-ratio", v))
	}
}

// BenchmarkEncodeSizeCompiled decodes the bundles a compile wrote into
// -bundles (at most 1,000 of them, with their shared details files) and
// encodes each again in every version, with the reference encoder (which
// writes no shared file): the bytes a node takes in each (v<N>-B/node)
// and the newest version's ratio to version 1's (v1-ratio); and what the
// compile wrote a node, its bundle and its share of the folder's shared
// details files (written-B/node), against version 1's
// (written-v1-ratio). Without -bundles it is skipped.
func BenchmarkEncodeSizeCompiled(b *testing.B) {
	if *bundlesDir == "" {
		b.Skip("no -bundles folder: give a compile's output, e.g. of the reference fleet")
	}
	files, err := filepath.Glob(filepath.Join(*bundlesDir, "*.bundle"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no bundles in %s (%v)", *bundlesDir, err)
	}
	files = files[:min(len(files), 1000)]
	var size [format.Version + 1]int
	written := 0 // the files as they are, shared details files added below
	for b.Loop() {
		size = [format.Version + 1]int{}
		written = 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			x, err := format.DecodeIndex(data)
			if err != nil {
				b.Fatalf("%s: %v", f, err)
			}
			if d, ok := x.SharedDigest(); ok {
				sd, err := os.ReadFile(filepath.Join(*bundlesDir, filepath.FromSlash(format.SharedDetailsName(d))))
				if err == nil {
					err = x.AttachShared(sd)
				}
				if err != nil {
					b.Fatalf("%s: %v", f, err)
				}
			}
			bd, err := x.Bundle()
			if err != nil {
				b.Fatalf("%s: %v", f, err)
			}
			written += len(data)
			for v := 1; v <= format.Version; v++ {
				enc, err := refEncodeVersion(bd, v)
				if err != nil {
					b.Fatal(err)
				}
				size[v] += len(enc)
			}
		}
	}
	for v := 1; v <= format.Version; v++ {
		b.ReportMetric(float64(size[v])/float64(len(files)), fmt.Sprintf("v%d-B/node", v))
	}
	b.ReportMetric(float64(size[format.Version])/float64(size[1]), "v1-ratio")
	// What the compile wrote: these bundles, and every shared details
	// file of the folder over all its bundles.
	shared, _ := filepath.Glob(filepath.Join(*bundlesDir, format.SharedDetailsDir, "*.details"))
	all, _ := filepath.Glob(filepath.Join(*bundlesDir, "*.bundle"))
	sharedBytes := 0
	for _, f := range shared {
		if fi, err := os.Stat(f); err == nil {
			sharedBytes += int(fi.Size())
		}
	}
	perNode := float64(written)/float64(len(files)) + float64(sharedBytes)/float64(len(all))
	b.ReportMetric(perNode, "written-B/node")
	b.ReportMetric(perNode/(float64(size[1])/float64(len(files))), "written-v1-ratio")
}

// BenchmarkDetails decodes the details section (Index.Bundle: what an
// explanation or a lookup-time merge reads) of the same bundles written
// in versions 3 and 4.
func BenchmarkDetails(b *testing.B) {
	bundles := fleet(20, 2000, true)
	for _, v := range []int{3, format.Version} {
		b.Run(fmt.Sprintf("version=%d", v), func(b *testing.B) {
			var xs []*format.Index
			size := 0
			for _, bd := range bundles {
				data, err := refEncodeVersion(bd, v)
				if err != nil {
					b.Fatal(err)
				}
				x, err := format.DecodeIndex(data)
				if err != nil {
					b.Fatal(err)
				}
				xs = append(xs, x)
				size += detailsLen(x)
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
