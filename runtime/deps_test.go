package runtime_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps holds runtime, which every agent links, to the standard library
// and format's packages (format reads msgpack itself), in the spirit of
// Go's go/build deps_test.go.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := []string{
		"github.com/hieracc/hieracc/runtime",
		"github.com/hieracc/hieracc/format",
	}
	seen := 0
	for _, p := range strings.Fields(string(out)) {
		seen++
		ok := false
		for _, a := range allowed {
			if p == a || strings.HasPrefix(p, a+"/") {
				ok = true
			}
		}
		for _, bad := range neverInRuntime {
			if p == bad || strings.HasPrefix(p, bad+"/") {
				ok = false // under format/, yet the writer's or the tests' (TestDepsNoWriter)
			}
		}
		if !ok {
			t.Errorf("runtime depends on %s", p)
		}
	}
	if seen < 3 { // runtime, format, format/hiera at least: the list was read
		t.Errorf("go list returned %d packages: %q", seen, out)
	}
}
