//go:build unix

package rubybackend

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNoProcessLeft: what the helper's functions start (a fork, a daemon)
// does not outlive the helper, whether it hangs and is stopped, or ends
// when closed.
func TestNoProcessLeft(t *testing.T) {
	for _, tc := range []struct{ name, after string }{
		{"hangs", "read l; sleep 30"},
		{"closed", "read l"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			body := `read l; echo '{"ready":"7.23.0"}'; sleep 300 & echo $! > ` + pidFile + "; " + tc.after
			p, err := Start(context.Background(), Config{Ruby: script(t, body), Timeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "hangs" {
				p.Call(context.Background(), Request{Kind: DataHash, Function: "f", Node: "n"})
			}
			p.Close()
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(3 * time.Second)
			for syscall.Kill(pid, 0) == nil && !zombie(pid) {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("the helper's child %d still runs after the helper was stopped", pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// zombie reports whether pid has ended but is not reaped yet (its parent,
// the helper's shell, was killed: init reaps it in its own time).
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return strings.HasPrefix(rest, "Z")
}
