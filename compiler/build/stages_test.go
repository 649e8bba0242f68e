package build

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/compiler"
)

// TestReportStages: a build forwards the compile's time per stage
// (compiler.Result.Stages), the configurations first, for compile
// --verbose to print.
func TestReportStages(t *testing.T) {
	dir := t.TempDir()
	for file, content := range map[string]string{
		"env/hiera.yaml":       "version: 5\nhierarchy:\n  - name: Common\n    path: common.yaml\n",
		"env/data/common.yaml": "a: 1\n",
		"facts/n1.yaml":        "a: 1\n", "facts/n2.yaml": "a: 2\n",
	} {
		p := filepath.Join(dir, file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Run(context.Background(), Config{Env: filepath.Join(dir, "env"), Facts: []string{filepath.Join(dir, "facts")}, Out: filepath.Join(dir, "out")})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stages) < 2 || r.Stages[0].Name != "configs" {
		t.Fatalf("stages %v: want the configurations, then the node's stages", r.Stages)
	}
	var total time.Duration
	seen := map[string]bool{}
	for _, st := range r.Stages {
		if seen[st.Name] || st.Name == "" || st.Time < 0 {
			t.Errorf("stage %+v: unnamed, negative or twice", st)
		}
		seen[st.Name] = true
		total += st.Time
	}
	if total <= 0 {
		t.Errorf("stages %v: no time at all", r.Stages)
	}
}

// TestAddStages: the compiles of several environments add up, stage by
// stage.
func TestAddStages(t *testing.T) {
	var r Report
	r.addStages([]compiler.StageTime{{Name: "configs", Time: 1}, {Name: "keys", Time: 10}})
	r.addStages([]compiler.StageTime{{Name: "configs", Time: 2}, {Name: "keys", Time: 20}})
	want := []compiler.StageTime{{Name: "configs", Time: 3}, {Name: "keys", Time: 30}}
	if d := cmp.Diff(want, r.Stages); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
