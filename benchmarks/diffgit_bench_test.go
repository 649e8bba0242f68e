package benchmarks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// BenchmarkDiffGitBaseOut is issue 29's measure of a pull request's check
// in CI: `hieracc diff --git BASE..HEAD --base-out DIR`, DIR the base's
// output (as CI caches it), where HEAD changes one scalar of one role's
// data file, against a full `hieracc compile` of HEAD's fleet measured in
// the same run (once before, and again before each timed diff, in turns,
// so that both share the machine's load). The fleet is the reference one
// (10,000 nodes × 2,000 keys), in a git repository of two commits. All are
// the CLI, start to exit, as CI runs them.
//
// Before any timing, the report is checked to be the one of a plain
// `diff --git BASE..HEAD` (both revisions compiled from scratch), whose
// time over the compile's is logged. "compile-ratio" is the diff's wall
// time over the compile's, "cpu-ratio" the same in CPU time (user and
// system, of the process).
func BenchmarkDiffGitBaseOut(b *testing.B) {
	const nodes = 10000
	if testing.Short() {
		b.Skip("reference fleet skipped in -short mode")
	}
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("needs git")
	}
	dir := b.TempDir()
	hieracc := buildHieracc(b, dir)
	src := filepath.Join(dir, "repo")
	writeReference(b, src, nodes)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", src}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
			"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.net",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.net")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "base")

	layers := []string{"--progress", "never", "--env", filepath.Join(src, "env"),
		"--modules", filepath.Join(src, "modules"), "--facts", filepath.Join(src, "nodes")}
	baseOut := filepath.Join(dir, "base-out")
	c0 := runCmd(b, hieracc, append([]string{"compile", "--out", baseOut}, layers...)...)
	changeOneScalar(b, filepath.Join(src, "env", "data", "role"))
	git("commit", "-q", "-a", "-m", "one file")
	c1 := runCmd(b, hieracc, append([]string{"compile", "--out", filepath.Join(dir, "full")}, layers...)...)
	b.Logf("compiles: base %v, HEAD %v wall (%v CPU)", c0.wall, c1.wall, c1.cpu)

	// The report must be right before its speed means anything.
	diff := append([]string{"diff", "--git", "HEAD~1..HEAD"}, layers...)
	plain := runCmd(b, hieracc, diff...)
	withBase := runCmd(b, hieracc, append(diff, "--base-out", baseOut)...)
	if plain.code != 1 || !strings.Contains(plain.out, fmt.Sprintf("%d nodes compared: ", nodes)) || strings.Contains(plain.out, " 0 changed,") {
		b.Fatalf("hieracc diff --git: exit %d, want 1 and changes; output starts:\n%s", plain.code, plain.out[:min(len(plain.out), 500)])
	}
	if withBase.code != plain.code || withBase.out != plain.out {
		b.Fatalf("diff --git --base-out: exit %d, report:\n%s\nwant exit %d, the report without it:\n%s", withBase.code, withBase.out, plain.code, plain.out)
	}
	summary, _, _ := strings.Cut(strings.SplitN(plain.out, "\n\n", 3)[1], "\n")
	b.Logf("%s; plain diff --git: %v wall (%.2f× a compile)", summary, plain.wall, float64(plain.wall)/float64(c1.wall))

	// Each diff follows a full compile of HEAD, so that the baseline is
	// measured beside it, under the same load.
	var wall, cpu time.Duration
	cWall, cCPU := c1.wall, c1.cpu
	full := filepath.Join(dir, "full")
	for b.Loop() {
		b.StopTimer()
		if err := os.RemoveAll(full); err != nil {
			b.Fatal(err)
		}
		c := runCmd(b, hieracc, append([]string{"compile", "--out", full}, layers...)...)
		cWall, cCPU = cWall+c.wall, cCPU+c.cpu
		b.StartTimer()
		d := runCmd(b, hieracc, append(diff, "--base-out", baseOut)...)
		if d.code != 1 {
			b.Fatalf("exit %d", d.code)
		}
		wall += d.wall
		cpu += d.cpu
	}
	n, nc := time.Duration(b.N), time.Duration(b.N+1)
	b.ReportMetric(float64(wall/n)/float64(cWall/nc), "compile-ratio")
	b.ReportMetric(float64(cpu/n)/float64(cCPU/nc), "cpu-ratio")
	b.ReportMetric(float64((cWall / nc).Milliseconds()), "compile-ms")
}

// changeOneScalar changes the first scalar written on one line without
// interpolation of the first data file in dir (its name order): a number
// or a string gets a "9" more, a boolean flips.
func changeOneScalar(b *testing.B, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no data file in %s (%v)", dir, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	scalar := regexp.MustCompile(`^[a-z_:0-9]+: [^ ].*$`)
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if !scalar.MatchString(l) || strings.Contains(l, "%{") {
			continue
		}
		lines[i] = changeScalar(l)
		if err := os.WriteFile(files[0], []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			b.Fatal(err)
		}
		return
	}
	b.Fatalf("%s: no scalar to change", files[0])
}
