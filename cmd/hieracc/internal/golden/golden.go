// Package golden compares test output with golden files, which go test
// -update rewrites (only those whose content changed).
package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Check compares got with file, or, when update is set, rewrites file if
// its content differs.
func Check(t testing.TB, file, got string, update bool) {
	t.Helper()
	want, err := os.ReadFile(file)
	if update {
		if err == nil && string(want) == got {
			return
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (go test -update rewrites it) (-want +got):\n%s", file, d)
	}
}
