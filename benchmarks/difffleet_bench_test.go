package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// BenchmarkDiffFleet is issue 29's measure: `hieracc diff OLD NEW` on the
// reference fleet (10,000 nodes × 2,000 keys; with -fleet100k also 100,000
// nodes; its first 1,000 and 2,000 nodes, quicker, to iterate with:
// -bench 'BenchmarkDiffFleet/nodes=2000/') where 12 keys of common.yaml changed, so that every node
// changed, against a full `hieracc compile` of the same fleet measured in
// the same run: the two compiles that make OLD and NEW are the baseline.
// All three are the CLI, start to exit, as a user runs them; each timed
// diff follows a full compile of NEW again, which joins the baseline.
//
// "compile-ratio" is the diff's wall time over a compile's (the mean of
// the two), "cpu-ratio" the same in CPU time (user and system, of the
// process): on a busy machine the two together tell a slower diff from a
// busier machine. "peak-MiB" is the diff's peak resident memory,
// "compile-peak-MiB" the compiles' (the larger).
func BenchmarkDiffFleet(b *testing.B) {
	if testing.Short() {
		b.Skip("reference fleet skipped in -short mode")
	}
	dir := b.TempDir()
	hieracc := buildHieracc(b, dir)
	for _, nodes := range []int{1000, 2000, 10000, 100000} {
		b.Run(fmt.Sprintf("nodes=%d/keys=2000/changed=12", nodes), func(b *testing.B) {
			if nodes > 10000 && !*fleet100k {
				b.Skip("100,000 nodes only with -fleet100k")
			}
			diffFleet(b, hieracc, filepath.Join(dir, fmt.Sprint(nodes)), nodes)
		})
	}
}

// run is one run of a command: its wall and CPU time, peak memory.
type run struct {
	wall, cpu time.Duration
	peak      int64 // bytes; 0 where the system does not say
	out       string
	code      int
}

func runCmd(b *testing.B, name string, args ...string) run {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := run{wall: time.Since(start), out: stdout.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		b.Fatal(err)
	}
	if r.code > 1 {
		b.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), r.code, stderr.String())
	}
	ps := cmd.ProcessState
	r.cpu = ps.UserTime() + ps.SystemTime()
	r.peak = peakRSS(ps)
	return r
}

// changeCommon changes 12 scalar keys of common.yaml, every 90th of those
// that are written on one line without interpolation: numbers and strings
// get a "9" more, booleans flip.
func changeCommon(b *testing.B, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	scalar := regexp.MustCompile(`^[a-z_:0-9]+: [^ ].*$`)
	lines := strings.Split(string(data), "\n")
	seen, changed := 0, 0
	for i, l := range lines {
		if changed == 12 || !scalar.MatchString(l) || strings.Contains(l, "%{") {
			continue
		}
		if seen++; (seen-1)%90 != 0 {
			continue
		}
		lines[i] = changeScalar(l)
		changed++
	}
	if changed != 12 {
		b.Fatalf("%s: %d keys changed, want 12", file, changed)
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		b.Fatal(err)
	}
}

func diffFleet(b *testing.B, hieracc, dir string, nodes int) {
	// A run of -count > 1 gets the folder of the one before: every compile
	// must be a full one.
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	src := filepath.Join(dir, "repo")
	writeReference(b, src, nodes)
	compile := func(out string) run {
		return runCmd(b, hieracc, "compile", "--progress", "never", "--env", filepath.Join(src, "env"),
			"--modules", filepath.Join(src, "modules"), "--facts", filepath.Join(src, "nodes"), "--out", out)
	}
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	c1 := compile(oldDir)
	changeCommon(b, filepath.Join(src, "env", "data", "common.yaml"))
	c2 := compile(newDir)
	b.Logf("compiles: %v and %v wall, %v and %v CPU, %d and %d MiB", c1.wall, c2.wall, c1.cpu, c2.cpu, c1.peak>>20, c2.peak>>20)

	// The report must be right before its speed means anything.
	d := runCmd(b, hieracc, "diff", "--progress", "never", oldDir, newDir)
	want := fmt.Sprintf("%d nodes compared: %d changed, 0 unchanged", nodes, nodes)
	if d.code != 1 || !strings.Contains(d.out, want) {
		b.Fatalf("hieracc diff: exit %d, want 1 and %q; output starts:\n%s", d.code, want, d.out[:min(len(d.out), 500)])
	}

	// Each diff follows a full compile of NEW, so that the baseline is
	// measured beside it, under the same load.
	var wall, cpu time.Duration
	cWall, cCPU := c1.wall+c2.wall, c1.cpu+c2.cpu
	var peak int64
	cPeak := max(c1.peak, c2.peak)
	again := filepath.Join(dir, "again")
	for b.Loop() {
		b.StopTimer()
		if err := os.RemoveAll(again); err != nil {
			b.Fatal(err)
		}
		c := compile(again)
		cWall, cCPU, cPeak = cWall+c.wall, cCPU+c.cpu, max(cPeak, c.peak)
		b.StartTimer()
		d := runCmd(b, hieracc, "diff", "--progress", "never", oldDir, newDir)
		wall += d.wall
		cpu += d.cpu
		peak = max(peak, d.peak)
	}
	n, nc := time.Duration(b.N), time.Duration(b.N+2)
	b.ReportMetric(float64(wall/n)/float64(cWall/nc), "compile-ratio")
	b.ReportMetric(float64(cpu/n)/float64(cCPU/nc), "cpu-ratio")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric(float64(cPeak)/(1<<20), "compile-peak-MiB")
}

// changeScalar changes the value of a line "key: scalar" of a data file:
// a boolean flipped, a "9" appended to anything else (inside the quotes of
// a quoted string).
func changeScalar(l string) string {
	switch {
	case strings.HasSuffix(l, ": true"):
		return strings.TrimSuffix(l, "true") + "false"
	case strings.HasSuffix(l, ": false"):
		return strings.TrimSuffix(l, "false") + "true"
	case strings.HasSuffix(l, `"`):
		return strings.TrimSuffix(l, `"`) + `9"`
	}
	return l + "9"
}
