//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDiffGitSignals stops `hieracc diff --git` with SIGTERM and SIGHUP
// (how CI cancels a job) and SIGINT while it compiles a revision: it
// exits, saying so, and leaves no hieracc-diff-* folder in $TMPDIR (it
// holds both revisions' bundles, decrypted secrets and all).
func TestDiffGitSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a fleet of 1,000 nodes at two revisions")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	exe, err := exec.LookPath("hieracc") // this test binary, installed by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	example, err := filepath.Abs("../../testdata/example")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	repo, facts := filepath.Join(dir, "repo"), filepath.Join(dir, "facts")
	if err := os.CopyFS(repo, os.DirFS(example)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(facts, 0o755); err != nil {
		t.Fatal(err)
	}
	nodes, err := filepath.Glob(filepath.Join(example, "nodes", "*.yaml"))
	if err != nil || len(nodes) == 0 {
		t.Fatalf("example nodes: %v", err)
	}
	for _, n := range nodes {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 125 {
			if err := os.WriteFile(filepath.Join(facts, fmt.Sprintf("c%03d-%s", i, filepath.Base(n))), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=hieracc", "GIT_AUTHOR_EMAIL=hieracc@example.net",
		"GIT_COMMITTER_NAME=hieracc", "GIT_COMMITTER_EMAIL=hieracc@example.net")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "first")
	f, err := os.OpenFile(filepath.Join(repo, "env", "data", "common.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "signal::test: second")
	f.Close()
	git("commit", "-q", "-a", "-m", "second")

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := filepath.Join(dir, "tmp-"+strings.ReplaceAll(sig.String(), " ", "-"))
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "diff", "--git", "HEAD~1..HEAD", "--env", filepath.Join(repo, "env"),
				"--modules", filepath.Join(repo, "modules"), "--facts", facts)
			cmd.Env = append(env, "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Once the first revision's compile has started.
			deadline := time.Now().Add(30 * time.Second)
			for {
				m, _ := filepath.Glob(filepath.Join(tmp, "hieracc-diff-*", "old", "tree"))
				if len(m) > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no checkout in %s after 30 s:\n%s", tmp, stderr.String())
				}
				time.Sleep(time.Millisecond)
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 60 s after %v", sig)
			}
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Errorf("killed by %v, without removing its temporary folder", ws.Signal())
			} else if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("exit %d without a word of the signal (did it come too late?):\n%s", cmd.ProcessState.ExitCode(), stderr.String())
			}
			var left []string
			filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
				if p != tmp {
					left = append(left, strings.TrimPrefix(p, tmp+string(filepath.Separator)))
				}
				if d != nil && d.IsDir() && p != tmp && len(left) > 5 {
					return filepath.SkipDir
				}
				return nil
			})
			if len(left) > 0 {
				t.Errorf("left in $TMPDIR after %v: %s", sig, strings.Join(left[:min(len(left), 6)], ", "))
			}
		})
	}
}
