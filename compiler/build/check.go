package build

import (
	"encoding/hex"
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

// keptBundle is a bundle an incremental build keeps: the file as it is
// (nil when it cannot be identified), its digest (hex) and the shared
// details file it refers to.
type keptBundle struct {
	file   *bundleStat
	digest string
	ref    stage.Ref
}

// checkBundle reports whether out holds the bundle of node that the build
// of state prev wrote, whole, and what the state of the next build is to
// say of it; one that is missing, not a regular file, truncated, damaged
// (its body does not match its digest), another node's or another build's
// is compiled again by an incremental build, whatever the state file
// says. A bundle that the state says was written as it is now (ns.Bundle:
// same identity, size and times) is not read again; any other has its
// digest checked, which must be the one the state recorded (ns.Digest).
// What the bundle refers to is what the state says; a bundle the state
// has no digest of (one compiled but not written) is read to know it.
func checkBundle(out, node string, ns nodeState, prev *buildState) (keptBundle, bool) {
	p := filepath.Join(out, node+".bundle")
	now, _ := statBundle(p) // before it is read: a write after, and it is read again next time
	ref, refOK := ns.sharedRef(prev)
	if ns.Bundle != nil && now != nil && *now == *ns.Bundle && refOK {
		return keptBundle{file: now, digest: ns.Digest, ref: ref}, true
	}
	h, err := format.VerifyFile(p)
	if err != nil || h.Node != node {
		return keptBundle{}, false
	}
	digest := hex.EncodeToString(h.Digest[:])
	switch {
	case ns.Digest != "" && ns.Digest != digest:
		return keptBundle{}, false // whole, but not the one written
	case ns.Digest != "" && refOK:
		return keptBundle{file: now, digest: digest, ref: ref}, true
	}
	// What it refers to, the state does not say: the bundle does.
	data, err := format.ReadFile(p)
	if err != nil {
		return keptBundle{}, false
	}
	x, err := format.DecodeIndex(data)
	if err != nil || x.Node != node {
		return keptBundle{}, false
	}
	k := keptBundle{file: now, digest: hex.EncodeToString(x.Digest[:])}
	k.ref.Digest, k.ref.Has = x.SharedDigest()
	return k, true
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
