package share

import (
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// Worker holds the caches of one compiling goroutine, which outlive a
// node (no locking needed): what it learnt of the fleet (which variables
// and positions are per-node), the results kept for other nodes, the
// slice tables, level expansions and lookup_options results, and the
// memory of the last node's keys. Its zero value is ready to use.
type Worker struct {
	// Off (Input.NoSharing) turns sharing off: every node is compiled
	// from scratch.
	Off bool
	// ReuseKeys (compiler.Input.Emit) makes each node's keys reuse the memory of
	// the last node's (KeepKeys): a fleet's compile then allocates no key
	// table per node.
	ReuseKeys bool
	// Stats counts how nodes and keys were compiled, for tests.
	Stats Stats

	nodes uint64 // the nodes it compiled (see Run.serial)

	vars  map[string]*varStat // by variable expression (see SeeVar)
	pos   map[Pos]*posStat    // by position (see SliceText.File)
	canon []byte

	unions   map[[2]uint32]*KeyList
	keyLists uint32 // the KeyLists it made

	// Numbers for key signatures (see KeySig, Run.ShapeID).
	scratch      []uint32
	shape        []byte
	shapes       map[string]uint32
	mergeIDs     map[format.Merge]uint32
	convertIDs   map[string][]convertSpec // by the spec's Ruby inspection
	convertCount uint32

	// keys are the results kept, by their signature's hash (see
	// remember); varSets interns the variable reads of results (see
	// varSetOf), by their names and values; varKey is its buffer.
	keys    map[uint64][]*Result
	varSets map[string]*varSet
	varKey  []byte
	// Buffers of a key's reads and warnings (see Run.Capture).
	deps  []Dep
	warns []diagnostics.Diagnostic

	// Slices (see slices.go); run counts the runs of nodes the worker
	// took (see StartRun).
	slices   map[string]*Table
	run      uint64
	sigBlock []uint32 // see keepSig
	sliceBuf []byte
	names    []string // a node's key names, when it has keys of its own
	// deltaAt is where each key of a node's per-node files is, or would
	// be, among its slice's keys (see placeDelta).
	deltaAt []int32

	// levels holds recent expansions of each hierarchy level (see
	// ExpandLevel); levelDeps is its buffer. opts holds lookup_options
	// results (see Options).
	levels    map[any][]*Level
	levelDeps []Dep
	opts      map[string]optsEntry
	// tmplVars interns the variables of templates (see TemplateVars), by
	// their names and values; tmplKey is its buffer.
	tmplVars map[string]*TemplateVars
	tmplKey  []byte

	// The memory of the last node's keys (ReuseKeys). keyMarks[p] is
	// slot+1 when keyBuf's memory (keyMem, its first element) holds
	// keyTable.statics[slot] at position p, written there for an earlier
	// node and not written since; keptMark or firstMark when it holds
	// keyFrom[p] (see there); 0 when it holds anything else. The nodes of
	// a slice place most of their static keys alike, so a node finds most
	// of them in place and copies only the rest (appendStatics).
	keyBuf   []format.Key
	keyMarks []int32
	keyMem   *format.Key
	keyTable *Table
	// keyFrom[p] is the key, never changed once made, that keyBuf's
	// memory holds at position p (but for some fields) when keyMarks[p]
	// is keptMark or firstMark: a slot key made from the same key as the
	// last node's at that position is not copied again (appendKey).
	keyFrom []*format.Key
}
