package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/compiler"
)

// TestWriteStages pins the table compile --verbose prints on stderr: each
// stage, its time (three significant digits) and its share of the total.
func TestWriteStages(t *testing.T) {
	stages := []compiler.StageTime{
		{Name: "configs", Time: 1234567 * time.Nanosecond},
		{Name: "hierarchies", Time: 0},
		{Name: "keys", Time: 2*time.Second + 345678901},
		{Name: "bundle", Time: 654321 * time.Microsecond},
	}
	var b bytes.Buffer
	if err := writeStages(&b, stages); err != nil {
		t.Fatal(err)
	}
	want := `time per stage, summed over the workers:
  configs         1.23ms    0.0%
  hierarchies         0s    0.0%
  keys             2.35s   78.2%
  bundle           654ms   21.8%
  total               3s  100.0%
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	b.Reset()
	if err := writeStages(&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("no stages: %q, %v; want nothing", b.String(), err)
	}
}
