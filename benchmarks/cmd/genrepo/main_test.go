package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-nodes", "5", "-keys", "60", "-modules", "2", "-module-keys", "5", "-out", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("run = %d, stderr:\n%s", code, stderr.String())
	}
	for _, f := range []string{"env/hiera.yaml", "env/data/common.yaml", "modules/mod2/hiera.yaml", "modules/mod2/data/common.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	facts, _ := filepath.Glob(filepath.Join(dir, "nodes", "*.yaml"))
	if len(facts) != 5 || !strings.Contains(stdout.String(), "5 nodes, 60 keys") {
		t.Errorf("%d facts files, stdout %q; want 5 and a summary", len(facts), stdout.String())
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-nodes", "x", "-out", t.TempDir()}, {"-out", t.TempDir(), "extra"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2", args, code)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-levels", "1", "-out", t.TempDir()}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "Levels") {
		t.Errorf("run(-levels 1) = %d, stderr %q; want 1 and a message about Levels", code, stderr.String())
	}
}
