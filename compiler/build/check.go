package build

import (
	"path/filepath"

	"github.com/hieracc/hieracc/format"
)

// bundleIntact reports whether out holds a whole, uncorrupted bundle of
// node: one that is missing, not a regular file, truncated, damaged (its
// body does not match its digest) or another node's is compiled again by
// an incremental build, whatever the state file says.
func bundleIntact(out, node string) bool {
	h, err := format.VerifyFile(filepath.Join(out, node+".bundle"))
	return err == nil && h.Node == node
}
