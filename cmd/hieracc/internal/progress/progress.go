// Package progress shows how far a long run is on a terminal: one line,
// rewritten in place, "compile: 1200/3000 nodes, 410/s, 4s left". It
// writes nothing unless asked to or stderr is a terminal, so logs and
// pipes never see it.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Modes are the values of --progress.
var Modes = []string{"auto", "always", "never"}

// Wanted reports whether mode asks for a meter on w: "always", or "auto"
// when w is a terminal. Any other mode is "never".
func Wanted(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "auto":
		f, ok := w.(*os.File)
		if !ok {
			return false
		}
		st, err := f.Stat()
		return err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return false
}

// Meter counts units of work done and redraws its line every interval.
// A nil *Meter does nothing, so callers need not check.
type Meter struct {
	w     io.Writer
	what  string
	total int
	start time.Time
	done  atomic.Int64
	stop  chan struct{}
	wg    sync.WaitGroup
}

// Start starts a meter of total nodes on w, redrawn every interval.
func Start(w io.Writer, what string, total int, interval time.Duration) *Meter {
	m := &Meter{w: w, what: what, total: total, start: time.Now(), stop: make(chan struct{})}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				fmt.Fprint(m.w, "\r"+m.Line(time.Since(m.start))+"\x1b[K")
			}
		}
	}()
	return m
}

// Add counts n more nodes done.
func (m *Meter) Add(n int) {
	if m != nil {
		m.done.Add(int64(n))
	}
}

// Stop stops redrawing and clears the line, so that what follows starts
// on a clean one.
func (m *Meter) Stop() {
	if m == nil {
		return
	}
	close(m.stop)
	m.wg.Wait()
	fmt.Fprint(m.w, "\r\x1b[K")
}

// Line is the meter's text after elapsed: nodes done of the total, the
// rate, and the time left at that rate.
func (m *Meter) Line(elapsed time.Duration) string {
	done := int(m.done.Load())
	line := fmt.Sprintf("%s: %d/%d nodes", m.what, done, m.total)
	if done == 0 || elapsed <= 0 {
		return line
	}
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(m.total-done) / rate * float64(time.Second))
	return fmt.Sprintf("%s, %.0f/s, %s left", line, rate, left.Round(time.Second))
}
