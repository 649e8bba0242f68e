package benchmarks

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hieracc/hieracc/benchmarks/internal/gen"
	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/internal/cputime"
	"gopkg.in/yaml.v3"
)

// encoderBuf is an encoder with the buffer it reuses.
type encoderBuf struct {
	enc  *encode.Encoder
	buf  []byte
	lane int // the compile worker (Emit's lane) of the last bundle it encoded
}

// fleet is a generated repo with its nodes' facts loaded.
type fleet struct {
	repo  *gen.Repo
	nodes []compiler.Node
}

var (
	fleetMu    sync.Mutex
	fleetCache = map[string]*fleet{}
)

// loadFleet generates (once per process) a repo of the given size.
func loadFleet(b testing.TB, nodes, keys int) *fleet {
	b.Helper()
	name := fmt.Sprintf("%dx%d", nodes, keys)
	fleetMu.Lock()
	defer fleetMu.Unlock()
	if f := fleetCache[name]; f != nil {
		return f
	}
	p := gen.Reference()
	p.Nodes, p.Keys = nodes, keys
	if p.ModuleKeys*p.Modules > keys/2 {
		p.Modules, p.ModuleKeys = 2, keys/10
	}
	repo, err := gen.Generate(p)
	if err != nil {
		b.Fatal(err)
	}
	f := &fleet{repo: repo}
	files, _ := fs.Glob(repo.FS, "nodes/*")
	sort.Strings(files)
	for _, file := range files {
		n, ds := compiler.LoadFacts(repo.FS, file)
		if len(ds) > 0 {
			b.Fatalf("facts: %v", ds)
		}
		f.nodes = append(f.nodes, n)
	}
	fleetCache[name] = f
	return f
}

// dropFleet forgets a fleet loadFleet made.
func dropFleet(nodes, keys int) {
	fleetMu.Lock()
	defer fleetMu.Unlock()
	delete(fleetCache, fmt.Sprintf("%dx%d", nodes, keys))
}

func (f *fleet) input() compiler.Input {
	return compiler.Input{FS: f.repo.FS, EnvDir: "env", ModulesDir: "modules", Nodes: f.nodes}
}

// fleet100k adds the 100,000-node step to BenchmarkCompile's sweep: it
// takes minutes and a few GiB, so only when asked.
var fleet100k = flag.Bool("fleet100k", false, "BenchmarkCompile: also compile 100,000 nodes (minutes, a few GiB)")

// BenchmarkCompile compiles a generated fleet and encodes every bundle,
// over a sweep of fleet sizes with the reference fleet's slices. The
// baseline is the cost of only parsing every input file once with yaml.v3,
// measured in the same run: "parse-ratio" says how many input parses a
// whole compile costs. "ns/node" flat across the sweep shows a compile
// that grows with the fleet, no faster; "bundle-B/node" is what a node's
// bundle takes, "written-B/node" that plus the shared details files
// (each written once, "shared-files" of them) over the nodes.
// "cpu-ratio" is the compile's CPU time (the process's, garbage collection
// included, on every core) over the baseline's (one core): wall time on a
// busy machine suffers more from other jobs than CPU time does, so the two
// ratios together tell a slower compile from a busier machine.
// "stage-NAME-ns/node" say where the compile's time went
// (compiler.Result.Stages, over every worker).
//
// The garbage collector is set as hieracc compile sets it (build.TuneGC:
// GOGC=200 and a 3 GiB soft limit, unless GOGC or GOMEMLIMIT are set), so
// that the benchmark measures what the command costs; GOGC=100 in the
// environment gives Go's default.
func BenchmarkCompile(b *testing.B) {
	b.Cleanup(build.TuneGC())
	for _, size := range []struct{ nodes, keys int }{{100, 2000}, {1000, 2000}, {10000, 2000}, {100000, 2000}} {
		b.Run(fmt.Sprintf("nodes=%d/keys=%d", size.nodes, size.keys), func(b *testing.B) {
			if testing.Short() && size.nodes > 1000 {
				b.Skip("reference fleet skipped in -short mode")
			}
			if size.nodes > 10000 && !*fleet100k {
				b.Skip("100,000 nodes only with -fleet100k")
			}
			f := loadFleet(b, size.nodes, size.keys)
			if size.nodes > 10000 {
				// Too big to keep for the other benchmarks.
				b.Cleanup(func() { dropFleet(size.nodes, size.keys) })
			}
			base := parseBaseline(b, f)
			b.ReportAllocs()
			b.ResetTimer()
			var bytes, sharedBytes atomic.Int64
			var shared sync.Map // digest → struct{}: each shared details file once
			cpu0 := cputime.Used()
			var stages []compiler.StageTime
			for b.Loop() {
				bytes.Store(0)
				sharedBytes.Store(0)
				shared.Clear()
				in := f.input()
				// Stream as the CLI does: each bundle is encoded as soon
				// as it is compiled, never all held at once.
				var mu sync.Mutex
				var free []*encoderBuf
				in.Emit = func(lane int, bd *format.Bundle) error {
					// As the CLI does (compiler/build/internal/stage's
					// Writer.encoder): an encoder per concurrent caller,
					// kept for the whole compile, reusing its buffer and
					// what earlier bundles shared; the one that encoded
					// the last bundle of the same compile worker (lane)
					// if it is free.
					mu.Lock()
					var enc *encoderBuf
					if n := len(free); n > 0 {
						i := n - 1
						for j, e := range free {
							if e.lane == lane {
								i = j
								break
							}
						}
						enc = free[i]
						free[i] = free[n-1]
						free = free[:n-1]
					} else {
						enc = &encoderBuf{enc: encode.NewEncoder(), lane: -1}
					}
					mu.Unlock()
					defer func() {
						enc.lane = lane
						mu.Lock()
						free = append(free, enc)
						mu.Unlock()
					}()
					var err error
					var sd *encode.SharedDetails
					enc.buf, sd, err = enc.enc.AppendShared(enc.buf[:0], bd, encode.Protection{})
					bytes.Add(int64(len(enc.buf)))
					if sd != nil {
						if _, dup := shared.LoadOrStore(sd.Digest, struct{}{}); !dup {
							sharedBytes.Add(int64(len(sd.Data)))
						}
					}
					return err
				}
				res, err := compiler.Compile(context.Background(), in)
				if err != nil {
					b.Fatal(err)
				}
				if res.Errors() > 0 {
					b.Fatalf("compile errors: %v", res.Diagnostics[0])
				}
				stages = res.Stages
			}
			base.report(b, cputime.Used()-cpu0, size.nodes)
			// Where the last compile's time went, stage by stage
			// (compiler.Result.Stages; summed over workers).
			for _, st := range stages {
				b.ReportMetric(float64(st.Time.Nanoseconds())/float64(size.nodes), "stage-"+st.Name+"-ns/node")
			}
			b.ReportMetric(float64(bytes.Load())/float64(size.nodes), "bundle-B/node")
			b.ReportMetric(float64(bytes.Load())/float64(size.nodes*size.keys), "bundle-B/key")
			n := 0
			shared.Range(func(any, any) bool { n++; return true })
			b.ReportMetric(float64(n), "shared-files")
			b.ReportMetric(float64(bytes.Load()+sharedBytes.Load())/float64(size.nodes), "written-B/node")
		})
	}
}

// parseCost is the baseline: the cost of parsing every file of a repo once
// with yaml.v3, on one core, in wall time and in the process's CPU time.
type parseCost struct{ wall, cpu time.Duration }

// parseBaseline measures the baseline of a fleet.
func parseBaseline(b *testing.B, f *fleet) parseCost {
	start, cpu0 := time.Now(), cputime.Used()
	const rounds = 3
	for range rounds {
		for name, file := range f.repo.FS {
			var n yaml.Node
			if err := yaml.Unmarshal(file.Data, &n); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
		}
	}
	return parseCost{time.Since(start) / rounds, (cputime.Used() - cpu0) / rounds}
}

// report reports a benchmark's time over the baseline's ("parse-ratio"),
// the CPU time it used (cpu, for all of b.N) over the baseline's
// ("cpu-ratio", where the system tells CPU time) and its time per node.
func (base parseCost) report(b *testing.B, cpu time.Duration, nodes int) {
	perOp := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(perOp)/float64(base.wall), "parse-ratio")
	if cpu > 0 && base.cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N)/float64(base.cpu), "cpu-ratio")
	}
	b.ReportMetric(float64(perOp)/float64(nodes), "ns/node")
}
