package build

import (
	"os"
	"path/filepath"

	"github.com/hieracc/hieracc/format"
)

// bundleStat identifies a bundle file as the build that wrote it left it:
// any write to the file since (a flipped bit, a truncation, a copy over
// it) changes its change time, which no one can set back.
type bundleStat struct {
	Size  int64  `json:"s"`
	MTime int64  `json:"m"` // nanoseconds since 1970
	CTime int64  `json:"c"` // nanoseconds since 1970; 0 where unknown
	Ino   uint64 `json:"i"`
}

// statBundle identifies the bundle file at p; ok is false when there is
// none, or it cannot be identified on this system.
func statBundle(p string) (bs *bundleStat, ok bool) {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	bs = &bundleStat{Size: st.Size(), MTime: st.ModTime().UnixNano()}
	if bs.CTime, bs.Ino, ok = changeTime(st); !ok {
		return nil, false
	}
	return bs, true
}

// bundleIntact reports whether out holds a whole, uncorrupted bundle of
// node; one that is missing, not a regular file, truncated, damaged (its
// body does not match its digest) or another node's is compiled again by
// an incremental build, whatever the state file says. A bundle that the
// state says was written as it is now (rec: same identity, size and
// times) is not read again; any other has its digest checked.
func bundleIntact(out, node string, rec *bundleStat) bool {
	p := filepath.Join(out, node+".bundle")
	if rec != nil {
		if now, ok := statBundle(p); ok && *now == *rec {
			return true
		}
	}
	h, err := format.VerifyFile(p)
	return err == nil && h.Node == node
}
