package bundlediff

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format"
)

// BenchmarkCompare is Compare in-process on two outputs of n nodes, 1% of
// which changed (three keys each). The end-to-end figure, the CLI on 10,000
// nodes, is benchmarks.BenchmarkDiff; this one isolates the engine.
// "headers-ratio" is ns/op over the time to only read every header, in the
// same run, in parallel as Compare does.
func BenchmarkCompare(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		if testing.Short() && n > 1000 {
			continue
		}
		// Built here, once: the function given to b.Run runs again for
		// each round of b.N and each -count.
		oldDir, newDir, files := benchFleet(b, n)
		headers := headerBaseline(b, files)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := Compare(oldDir, newDir, Filter{})
				if err != nil {
					b.Fatal(err)
				}
				if r.Summary.Changed != n/100 {
					b.Fatalf("%d changed, want %d", r.Summary.Changed, n/100)
				}
			}
			perOp := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(perOp)/float64(headers), "headers-ratio")
		})
	}
}

// benchFleet writes two outputs of n nodes, 1% of them changed.
func benchFleet(b *testing.B, n int) (oldDir, newDir string, files []string) {
	dir := b.TempDir()
	oldDir, newDir = filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, d := range []string{oldDir, newDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		name := fmt.Sprintf("node%05d", i)
		for _, side := range []struct {
			dir     string
			changed bool
		}{{oldDir, false}, {newDir, i%100 == 0}} {
			var keys []format.Key
			for k := range 50 {
				v := any(fmt.Sprintf("value-%d", k))
				switch {
				case k%3 == 1:
					v = hash("port", int64(8000+k), "users", hash("alice", hash("shell", "/bin/bash")))
				case k%3 == 2:
					v = arr("a.example.net", "b.example.net")
				}
				if side.changed && k < 3 {
					v = "changed"
				}
				keys = append(keys, key(fmt.Sprintf("k%02d", k), v))
			}
			writeBundle(b, side.dir, node(name, keys...))
			files = append(files, filepath.Join(side.dir, name+".bundle"))
		}
	}
	return oldDir, newDir, files
}

func headerBaseline(b *testing.B, files []string) time.Duration {
	start := time.Now()
	const rounds = 3
	for range rounds {
		var wg sync.WaitGroup
		work := make(chan string)
		for range goruntime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := range work {
					f, err := os.Open(p)
					if err != nil {
						b.Error(err)
						continue
					}
					if _, err := format.ReadHeader(f); err != nil {
						b.Error(err)
					}
					f.Close()
				}
			}()
		}
		for _, p := range files {
			work <- p
		}
		close(work)
		wg.Wait()
	}
	return time.Since(start) / rounds
}
