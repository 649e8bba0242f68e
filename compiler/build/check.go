package build

import (
	"os"
	"path/filepath"

	"github.com/hieracc/hieracc/format"
)

// bundleIntact reports whether OUT holds a whole bundle of node, as far as
// its header tells: one that is missing, truncated, or another node's is
// compiled again by an incremental compile, whatever the state file says.
func bundleIntact(out, node string) bool {
	f, err := os.Open(filepath.Join(out, node+".bundle"))
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	h, err := format.ReadHeader(f)
	return err == nil && h.Node == node && h.Size == st.Size()
}
