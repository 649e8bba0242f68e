package benchmarks

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hieracc/hieracc/benchmarks/internal/gen"
	"github.com/hieracc/hieracc/compiler/build"
)

var (
	serveNodes = flag.String("serve-nodes", "100,10000", "BenchmarkServe: the fleet sizes, comma-separated")
	serveBin   = flag.String("serve-hieracc", "", "BenchmarkServe: the hieracc binary to run (default: built from this module), to compare two builds")
)

// serveClients is how many keep-alive clients drive the server at once.
const serveClients = 16

// serveCache is the server's --cache: the bundles it keeps open.
const serveCache = 256

// BenchmarkServe drives `hieracc serve` (the binary, on 127.0.0.1 only)
// over the reference fleet's compile output with serveClients concurrent
// keep-alive clients, each request's latency recorded:
//
//	lookups/hot   GET /v1/nodes/N/keys/K, N among the nodes the server's
//	              cache holds (--cache 256, opened before), K any key
//	lookups/cold  the same, N any node: most bundles opened from disk
//	notmodified   GET /v1/nodes/N/bundle with the ETag: 304s
//	healthz       GET /healthz: the baseline, the cost of HTTP itself
//
// Each reports "req/s", "p50-ms" and "p99-ms", and "x-healthz", its
// throughput's ratio to the baseline's in the same run. "server-MiB" is
// the server's resident memory (VmRSS) after the sub-benchmark: flat from
// 100 to 10,000 nodes is the evidence that it does not hold every bundle;
// healthz also reports "start-MiB", the same once the server is ready,
// before any request. -serve-nodes sets the fleet sizes; -serve-hieracc
// runs a given binary (to compare two builds on the same fleet).
// Request counts are b.N (bounded: -benchtime 20000x).
func BenchmarkServe(b *testing.B) {
	dir := b.TempDir()
	hieracc := *serveBin
	if hieracc == "" {
		hieracc = buildHieracc(b, dir)
	}
	for _, text := range strings.Split(*serveNodes, ",") {
		nodes, err := strconv.Atoi(text)
		if err != nil {
			b.Fatalf("-serve-nodes: %v", err)
		}
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			if testing.Short() && nodes > 1000 {
				b.Skip("reference fleet skipped in -short mode")
			}
			out, names, keys := compileFleet(b, filepath.Join(dir, strconv.Itoa(nodes)), nodes)
			url, pid := startServer(b, hieracc, out)
			startMiB := rssMiB(b, pid)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: serveClients}}
			hot := names[:min(len(names), serveCache)]
			etags := map[string]string{}
			for _, n := range hot { // opened, in the server's cache
				resp, err := client.Get(url + "/v1/nodes/" + n + "/keys/" + keys[0])
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			for _, n := range names {
				resp, err := client.Get(url + "/v1/nodes/" + n + "/bundle")
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				etags[n] = resp.Header.Get("ETag")
			}
			var base float64
			for _, c := range []struct {
				name string
				req  func(r *rand.Rand) (*http.Request, int)
			}{
				{"healthz", func(*rand.Rand) (*http.Request, int) {
					req, _ := http.NewRequest("GET", url+"/healthz", nil)
					return req, 200
				}},
				{"lookups/hot", func(r *rand.Rand) (*http.Request, int) {
					req, _ := http.NewRequest("GET", url+"/v1/nodes/"+hot[r.IntN(len(hot))]+"/keys/"+keys[r.IntN(len(keys))], nil)
					return req, 200
				}},
				{"lookups/cold", func(r *rand.Rand) (*http.Request, int) {
					req, _ := http.NewRequest("GET", url+"/v1/nodes/"+names[r.IntN(len(names))]+"/keys/"+keys[r.IntN(len(keys))], nil)
					return req, 200
				}},
				{"notmodified", func(r *rand.Rand) (*http.Request, int) {
					n := names[r.IntN(len(names))]
					req, _ := http.NewRequest("GET", url+"/v1/nodes/"+n+"/bundle", nil)
					req.Header.Set("If-None-Match", etags[n])
					return req, 304
				}},
			} {
				b.Run(c.name, func(b *testing.B) {
					rate, p50, p99 := drive(b, client, c.req)
					if c.name == "healthz" {
						base = rate
						b.ReportMetric(startMiB, "start-MiB")
					}
					b.ReportMetric(rate, "req/s")
					b.ReportMetric(p50, "p50-ms")
					b.ReportMetric(p99, "p99-ms")
					if base > 0 {
						b.ReportMetric(rate/base, "x-healthz")
					}
					b.ReportMetric(rssMiB(b, pid), "server-MiB")
				})
			}
		})
	}
}

// drive sends b.N requests from serveClients clients and returns the
// rate (requests a second) and the 50th and 99th percentile latencies
// (ms).
func drive(b *testing.B, client *http.Client, req func(*rand.Rand) (*http.Request, int)) (rate, p50, p99 float64) {
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	var failed sync.Once
	b.ResetTimer()
	start := time.Now()
	for w := range serveClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := w; i < b.N; i += serveClients {
				q, want := req(r)
				t0 := time.Now()
				resp, err := client.Do(q)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				lat[i] = time.Since(t0)
				if err != nil || resp.StatusCode != want {
					failed.Do(func() { b.Errorf("%s: %v %v, want %d", q.URL, err, resp, want) })
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / 1e6 }
	return float64(b.N) / elapsed.Seconds(), pct(0.50), pct(0.99)
}

// compileFleet compiles (once per process) the reference fleet's first
// nodes into out, and returns its nodes and plain keys.
func compileFleet(b *testing.B, dir string, nodes int) (out string, names, keys []string) {
	p := gen.Reference()
	p.Nodes = nodes
	repo, err := gen.Generate(p)
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range repo.Keys {
		keys = append(keys, k.Name)
	}
	out = filepath.Join(dir, "out")
	if _, err := os.Stat(filepath.Join(out, build.StateFile)); err != nil {
		if err := repo.WriteDir(dir); err != nil {
			b.Fatal(err)
		}
		r, err := build.Run(context.Background(), build.Config{Env: filepath.Join(dir, "env"), Modules: filepath.Join(dir, "modules"),
			Facts: []string{filepath.Join(dir, "nodes")}, Out: out})
		if err != nil {
			b.Fatal(err)
		}
		if r.Errors > 0 {
			b.Fatalf("compile: %d errors", r.Errors)
		}
	}
	return out, repo.Nodes, keys
}

// startServer runs hieracc serve on out and returns its URL and pid.
func startServer(b *testing.B, hieracc, out string) (string, int) {
	ready := filepath.Join(b.TempDir(), "ready")
	cmd := exec.Command(hieracc, "serve", "--listen", "127.0.0.1:0", "--ready-file", ready, "--cache", strconv.Itoa(serveCache), out)
	cmd.Stderr = io.Discard // access logs
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(ready); err == nil && strings.HasSuffix(string(data), "\n") {
			return strings.TrimSpace(string(data)), cmd.Process.Pid
		}
	}
	b.Fatal("hieracc serve did not start")
	return "", 0
}

// rssMiB is the resident memory of process pid (Linux), in MiB; 0
// elsewhere.
func rssMiB(b *testing.B, pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}
