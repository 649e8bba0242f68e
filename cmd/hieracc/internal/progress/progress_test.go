package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	m := &Meter{what: "compile", total: 3000}
	if got := m.Line(time.Second); got != "compile: 0/3000 nodes" {
		t.Errorf("nothing done: %q", got)
	}
	m.Add(1200)
	if got, want := m.Line(3*time.Second), "compile: 1200/3000 nodes, 400/s, 5s left"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	var nilMeter *Meter
	nilMeter.Add(1) // a nil meter does nothing
	nilMeter.Stop()
}

// syncBuffer is a bytes.Buffer safe for the meter's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestMeter(t *testing.T) {
	var out syncBuffer
	m := Start(&out, "compile", 10, time.Millisecond)
	m.Add(10)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "compile: 10/10 nodes") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	m.Stop()
	s := out.String()
	if !strings.Contains(s, "\rcompile: 10/10 nodes, ") || !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("meter wrote %q; want a redrawn line, cleared at the end", s)
	}
}

func TestWanted(t *testing.T) {
	var b bytes.Buffer
	for mode, want := range map[string]bool{"always": true, "auto": false, "never": false} {
		if got := Wanted(mode, &b); got != want {
			t.Errorf("Wanted(%q, buffer) = %v, want %v", mode, got, want)
		}
	}
}
