//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// startServe runs `hieracc serve DIR` (the test binary, installed by
// testscript.Main) on a free loopback port and returns its URL.
func startServe(t *testing.T, dir string, args ...string) (url string, cmd *exec.Cmd, stderr *bytes.Buffer) {
	t.Helper()
	exe, err := exec.LookPath("hieracc")
	if err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(t.TempDir(), "ready")
	cmd = exec.Command(exe, append(append([]string{"serve", "--listen", "127.0.0.1:0", "--poll", "20ms", "--ready-file", ready}, args...), dir)...)
	stderr = &bytes.Buffer{}
	cmd.Stderr = &syncWriter{w: stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(ready); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			return strings.TrimSpace(string(b)), cmd, stderr
		}
	}
	t.Fatalf("hieracc serve did not start:\n%s", stderr)
	return
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// TestServe compiles the example, serves it, checks that the API's value
// is lookup --render-as json's, recompiles under load (every answer from
// one compile), and stops the server with SIGTERM.
func TestServe(t *testing.T) {
	example, err := filepath.Abs("../../testdata/example")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	facts, global, out := filepath.Join(dir, "facts"), filepath.Join(dir, "global"), filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(global, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(global, "data", "common.yaml"), []byte("fleet::generation: \"%{facts.generation}\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const copies = 25
	writeFleet := func(gen string) {
		t.Helper()
		os.RemoveAll(facts)
		if err := os.MkdirAll(facts, 0o755); err != nil {
			t.Fatal(err)
		}
		nodes, _ := filepath.Glob(filepath.Join(example, "nodes", "*.yaml"))
		for _, n := range nodes {
			src, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			src = append(src, "generation: "+gen+"\n"...)
			for i := range copies {
				if err := os.WriteFile(filepath.Join(facts, fmt.Sprintf("c%03d-%s", i, filepath.Base(n))), src, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	compile := func() {
		t.Helper()
		code, _, stderr := runCLI("compile", "--env", filepath.Join(example, "env"), "--modules", filepath.Join(example, "modules"),
			"--global", global, "--facts", facts, "--out", out)
		if code != 0 {
			t.Fatalf("compile: %d\n%s", code, stderr)
		}
	}
	writeFleet("G0")
	compile()

	url, cmd, stderr := startServe(t, out)
	getJSON := func(path string, v any) int {
		t.Helper()
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if v != nil {
			if err := json.Unmarshal(body, v); err != nil {
				t.Fatalf("GET %s: %v\n%s", path, err, body)
			}
		}
		return resp.StatusCode
	}

	// The value is lookup --render-as json's, byte for byte.
	node := "c003-web01.fra1.example.net"
	for _, key := range []string{"profile::base::packages", "profile::base::motd", "fleet::generation"} {
		_, want, _ := runCLI("lookup", "--bundle", out, "--node", node, "--render-as", "json", key)
		var a struct{ Value json.RawMessage }
		if st := getJSON("/v1/nodes/"+node+"/keys/"+key, &a); st != 200 {
			t.Fatalf("GET %s: %d", key, st)
		}
		if got := string(a.Value); got != strings.TrimSuffix(want, "\n") {
			t.Errorf("%s: value %s, lookup --render-as json %s", key, got, want)
		}
	}
	var e struct{ Error string }
	if st := getJSON("/v1/nodes/"+node+"/keys/no::such", &e); st != 404 {
		t.Errorf("a key not found: %d", st)
	}
	_, _, want := runCLI("lookup", "--bundle", out, "--node", node, "no::such")
	if !strings.Contains(want, e.Error) || e.Error == "" {
		t.Errorf("not found: %q, lookup says %q", e.Error, want)
	}

	// Recompiled under load: every fleet-wide answer is one generation.
	var stop atomic.Bool
	var wg sync.WaitGroup
	gens := sync.Map{}
	var answers atomic.Int32
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				var a struct {
					Groups []struct {
						Value json.RawMessage
						Count int
					}
				}
				if st := getJSON("/v1/keys/fleet::generation", &a); st != 200 {
					t.Errorf("status %d", st)
					return
				}
				answers.Add(1)
				if len(a.Groups) != 1 || a.Groups[0].Count != 8*copies {
					t.Errorf("a mixed answer: %+v", a)
					return
				}
				gens.Store(string(a.Groups[0].Value), true)
			}
		}()
	}
	for _, g := range []string{"G1", "G2", "G3"} {
		writeFleet(g)
		compile()
	}
	time.Sleep(200 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	n := 0
	gens.Range(func(_, _ any) bool { n++; return true })
	t.Logf("%d answers across %d generations", answers.Load(), n)
	var last struct{ Value string }
	getJSON("/v1/nodes/"+node+"/keys/fleet::generation", &last)
	if last.Value != "G3" {
		t.Errorf("after the compiles, %s's generation is %q, want G3", node, last.Value)
	}

	// SIGTERM: a clean exit; the access log has a JSON line per request.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v\n%s", err, stderr)
	}
	requests := 0
	sc := bufio.NewScanner(strings.NewReader(stderr.String()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("a log line is not JSON: %q", sc.Text())
		}
		if line["msg"] == "request" {
			requests++
		}
	}
	if requests < int(answers.Load()) {
		t.Errorf("%d requests logged, fewer than the %d answers", requests, answers.Load())
	}
}
