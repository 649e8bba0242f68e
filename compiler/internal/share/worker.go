package share

import "github.com/hieracc/hieracc/format"

// Worker holds the caches of one compiling goroutine, which outlive a
// node (no locking needed): what it learnt of the fleet (which variables
// and positions are per-node), the results kept for other nodes, the
// slice tables, level expansions and lookup_options results, and the
// memory of the last node's keys.
type Worker struct {
	// Off (Input.NoSharing) turns sharing off: every node is compiled
	// from scratch.
	Off bool
	// Stats counts how nodes and keys were compiled, for tests.
	Stats Stats

	vars  map[string]*varStat // by variable expression (see SeeVar)
	canon []byte

	unions   map[[2]uint32]*KeyList
	keyLists uint32 // the KeyLists it made

	// Numbers for key signatures (see KeySig).
	scratch      []uint32
	shapes       map[string]uint32
	mergeIDs     map[format.Merge]uint32
	convertIDs   map[string][]convertSpec // by the spec's Ruby inspection
	convertCount uint32
}
