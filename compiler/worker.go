package compiler

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/hieracc/hieracc/compiler/internal/share"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// worker is the state of one compiling goroutine (no locking needed),
// which outlives a node: its buffers, reused from node to node, the
// memoised answers of pure functions (parseExpr, testedList, namesNode),
// which change no result, and its sharing of work across nodes (share).
type worker struct {
	// share holds the results, tables and expansions shared across the
	// nodes the worker compiles (package compiler/internal/share).
	share share.Worker

	exprs map[string]hiera.Key
	calls map[string]*methodExpr
	// Buffers of locsOf and withOwn, reused from key to key.
	locs    []keyLoc
	ownLocs []keyLoc
	// keyTested is nodeRun.keyTested's memory, for the next node.
	keyTested []testedAt
	// key is the key compileKey returns (see there).
	key format.Key
	// named remembers namesNode by location template.
	named   map[string]bool
	dfBlock []*dataFile // see dataFiles
	// contribs is the chunk contributionsBuf cuts from.
	contribs []format.Contribution
	// revBuf and revFacts are the buffers of nodeRun.revision.
	revBuf, revFacts []byte
	// tested holds the lists of names testedList returns, by their
	// names; testedBuf and testedKey are its buffers.
	tested    map[string][]string
	testedBuf []string
	testedKey []byte
	// stageTime is the time spent in each of nodeStages (node.go).
	stageTime [numNodeStages]time.Duration

	// Buffers of the sharing's adapter (share.go): tableLocs', and
	// optionsSig's.
	tableBuf []keyAt
	optSig   []byte
	// Templates (template.go): rc is the contributions fromTemplate
	// reads; anyBlock the values rebind makes.
	rc       readContribs
	anyBlock []any
}

func newWorker() *worker {
	return &worker{
		exprs: map[string]hiera.Key{},
		calls: map[string]*methodExpr{},
	}
}

// parseExpr parses a scope or lookup expression once per worker.
func (w *worker) parseExpr(expr string) (hiera.Key, error) {
	if k, ok := w.exprs[expr]; ok {
		return k, nil
	}
	k, err := hiera.ParseKey(expr)
	if err == nil {
		w.exprs[expr] = k
	}
	return k, err
}

// testedList returns checks (names tested against a lookup stack, see
// lookupStack.checks) sorted and without duplicates, for a result to keep
// (nil when none). The lists are the worker's, shared by every result that
// tested the same names (most that test any test one variable or key):
// never modify one.
func (w *worker) testedList(checks []string) []string {
	if len(checks) == 0 {
		return nil
	}
	t := append(w.testedBuf[:0], checks...)
	slices.Sort(t)
	t = slices.Compact(t)
	w.testedBuf = t
	b := w.testedKey[:0]
	for _, name := range t {
		b = append(binary.AppendUvarint(b, uint64(len(name))), name...)
	}
	w.testedKey = b
	if l, ok := w.tested[string(b)]; ok {
		return l
	}
	l := slices.Clone(t)
	if len(w.tested) < maxTestedLists {
		if w.tested == nil {
			w.tested = map[string][]string{}
		}
		w.tested[string(b)] = l
	}
	return l
}

// cloneOrNil copies s into memory of its own, nil when empty.
func cloneOrNil[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}
