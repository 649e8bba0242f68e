package stage

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
)

// TestStagedModeUnderUmask: a bundle is mode 0640 whatever the umask,
// whether Stage sets its mode (a umask that takes bits of 0640) or
// creates it so (one that does not).
func TestStagedModeUnderUmask(t *testing.T) {
	defer func(saved func() bool) { createdExact = saved }(createdExact)
	for _, mask := range []int{0o022, 0o077, 0o000, 0o027} {
		old := syscall.Umask(mask)
		createdExact = sync.OnceValue(func() bool {
			m, ok := umask()
			return ok && m&0o640 == 0
		})
		if m, ok := umask(); !ok || m != os.FileMode(mask) {
			t.Errorf("umask() = %o, %v; want %o", m, ok, mask)
		}
		out := t.TempDir()
		w := NewWriter(out)
		b := &format.Bundle{Node: "web01", Environment: "production", Revision: "r"}
		if _, err := w.Stage(0, b, encode.Protection{}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Commit(Cleanup{}); err != nil {
			t.Fatal(err)
		}
		syscall.Umask(old)
		st, err := os.Stat(filepath.Join(out, "web01.bundle"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o640 {
			t.Errorf("umask %03o: bundle mode %v, want 0640", mask, st.Mode().Perm())
		}
	}
}
