package share

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/internal/canon"
	"github.com/hieracc/hieracc/format/hiera"
)

// PerNodeMin is the number of distinct values (files at a hierarchy
// position, values of a variable) seen before they can count as per-node.
const PerNodeMin = 4

// seed hashes values and signatures; its hashes never leave a process.
var seed = maphash.MakeSeed()

// varStat counts the values a variable expression has shown, one per
// node that read it: a variable with a value of its own on most nodes
// (trusted.certname, networking.hostname) is per-node, as posStat finds
// per-node files.
type varStat struct {
	nodes  int
	values map[uint64]struct{}
	key    *hiera.Key // parsed, once sortRun asks
}

func (s *varStat) perNode() bool {
	return len(s.values) >= PerNodeMin && 2*len(s.values) > s.nodes
}

// SeeVar counts a node's value of a variable expression (read once per
// node). The variables that take a value of their own on most nodes are
// per-node: a result that read one is not kept for others, and SortRun
// leaves them out.
func (w *Worker) SeeVar(expr string, v any) {
	st := w.vars[expr]
	if st == nil {
		st = &varStat{values: map[uint64]struct{}{}}
		if w.vars == nil {
			w.vars = map[string]*varStat{}
		}
		w.vars[expr] = st
	}
	st.nodes++
	w.canon = canon.Append(w.canon[:0], v)
	st.values[maphash.Bytes(seed, w.canon)] = struct{}{}
}

// ReadsPerNode reports whether a result read a per-node variable: no
// other node can reuse it.
func (w *Worker) ReadsPerNode(deps []Dep) bool {
	for _, d := range deps {
		if st := w.vars[d.Name]; !d.Lookup && st != nil && st.perNode() {
			return true
		}
	}
	return false
}

// SortRun orders the nodes of a run (one group, see Order) for the worker
// compiling them: by the values of the variables the worker has seen the
// data interpolate, those with fewest values first, the per-node ones
// (the certname) left out; ties keep their order. value(i, k) is what
// variable k reads on node i. Nodes of a group reach the same files, but
// their values still differ where the data reads a fact the hierarchy
// does not (%{facts.os.release.major} in a role file, say): taken one
// value after the other, consecutive nodes share those results and the
// encoder its last shared details file, instead of alternating between
// them. The worker learns the variables from the nodes it has compiled
// (Compile sorts a run again after its first nodes, for the worker's
// first run). Like Order, this changes only how fast a compile runs,
// never a value.
func (w *Worker) SortRun(run []int, value func(node int, k hiera.Key) any) {
	if len(run) < 3 {
		return
	}
	type sortVar struct {
		key    hiera.Key
		expr   string
		values int
	}
	var vars []sortVar
	for expr, st := range w.vars {
		if len(st.values) < 2 || st.perNode() {
			continue
		}
		if st.key == nil {
			k, err := hiera.ParseKey(expr)
			if err != nil {
				continue
			}
			st.key = &k
		}
		vars = append(vars, sortVar{*st.key, expr, len(st.values)})
	}
	if len(vars) == 0 {
		return
	}
	slices.SortFunc(vars, func(a, b sortVar) int {
		return cmp.Or(cmp.Compare(a.values, b.values), strings.Compare(a.expr, b.expr))
	})
	keys := make(map[int]string, len(run))
	var b []byte
	for _, i := range run {
		b = b[:0]
		for _, v := range vars {
			b = canon.Append(b, value(i, v.key))
		}
		keys[i] = string(b)
	}
	slices.SortStableFunc(run, func(x, y int) int { return cmp.Compare(keys[x], keys[y]) })
}
