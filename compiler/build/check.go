package build

import (
	"os"
	"path/filepath"

	"github.com/hieracc/hieracc/compiler/build/internal/stage"
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

// keptBundle reports whether out holds a whole, uncorrupted bundle of
// node, and which shared details file it refers to; one that is missing,
// not a regular file, truncated, damaged (its body does not match its
// digest) or another node's is compiled again by an incremental build,
// whatever the state file says. A bundle that the state prev says was
// written as it is now (ns.Bundle: same identity, size and times) is not
// read again, and refers to what the state says; any other is read, its
// digest checked.
func keptBundle(out, node string, ns nodeState, prev *buildState) (stage.Ref, bool) {
	p := filepath.Join(out, node+".bundle")
	if ns.Bundle != nil {
		if now, ok := statBundle(p); ok && *now == *ns.Bundle {
			if ns.Shared == 0 {
				return stage.Ref{}, true
			}
			if i := ns.Shared - 1; i >= 0 && i < len(prev.Shared) {
				if d, ok := parseDigest(prev.Shared[i].Digest); ok {
					return stage.Ref{Digest: d, Has: true}, true
				}
			}
			// A damaged state: the bundle says.
		}
	}
	data, err := format.ReadFile(p)
	if err != nil {
		return stage.Ref{}, false
	}
	x, err := format.DecodeIndex(data)
	if err != nil || x.Node != node {
		return stage.Ref{}, false
	}
	var ref stage.Ref
	ref.Digest, ref.Has = x.SharedDigest()
	return ref, true
}

// sharedKept reports whether out holds the shared details file of digest
// d whole: as the state says it was written (rec), or its digest checked.
func sharedKept(out string, d [32]byte, rec *bundleStat) bool {
	p := sharedPath(out, d)
	if rec != nil {
		if now, ok := statBundle(p); ok && *now == *rec {
			return true
		}
	}
	return stage.SharedIntact(p, d)
}
