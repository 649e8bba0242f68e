package share

// The order nodes are compiled in. Compile may take them in any order
// (each bundle depends on its node's inputs only), so it takes the nodes of
// one hierarchy slice one after the other, on one worker: the worker's
// slice table, its results and the encoder's memory of the last bundles
// are then still in the CPU's caches when the next node reads them,
// instead of being evicted by the other slices' nodes in between, and
// other workers need not build that slice's table again. The order
// changes only how fast a compile runs, never a value.

import (
	"cmp"
	"slices"

	"github.com/hieracc/hieracc/compiler/internal/canon"
)

// Order returns the indexes of nodes nodes, grouped by what their
// hierarchies interpolate, with each node's group. value(i, e) is node
// i's value of the hierarchies' e-th variable expression of exprs, the
// variables of the lowest-priority levels first, so that nodes that
// differ only in a per-node level (their certname, say) end up next to
// each other. Ties keep their order. A node's group is its values of
// the variables but the per-node ones (those with a value of their own on
// most nodes, as slices count files): nodes of one group reach the same
// files but at per-node positions, one slice.
func Order(nodes, exprs int, value func(node, expr int) any) (order []int, group []string) {
	order = make([]int, nodes)
	for i := range order {
		order[i] = i
	}
	if exprs == 0 || nodes < 2 {
		return order, make([]string, nodes)
	}
	vals := make([][]byte, exprs*nodes)
	perNode := make([]bool, exprs)
	distinct := map[string]struct{}{}
	for e := range exprs {
		clear(distinct)
		for i := range nodes {
			v := canon.Append(nil, value(i, e))
			vals[i*exprs+e] = v
			distinct[string(v)] = struct{}{}
		}
		perNode[e] = len(distinct) >= PerNodeMin && 2*len(distinct) > nodes
	}
	keys := make([]string, nodes)
	group = make([]string, nodes)
	var b []byte
	for i := range nodes {
		b = b[:0]
		for e := range exprs {
			if !perNode[e] {
				b = append(b, vals[i*exprs+e]...)
			}
		}
		group[i] = string(b)
		for e := range exprs {
			b = append(b, vals[i*exprs+e]...)
		}
		keys[i] = string(b)
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(keys[x], keys[y]) })
	return order, group
}

// Runs cuts Order's nodes into the runs workers take whole: the nodes of
// one group, so that one worker builds each slice's table and its first
// results, instead of every worker building its own. Runs come largest
// first, so that the last ones, when a worker may be left idle, are
// short; a group longer than a quarter of a worker's share (jobs workers)
// is cut.
func Runs(order []int, group []string, jobs int) [][]int {
	maxRun := max(1, len(order)/(4*max(jobs, 1)))
	var runs [][]int
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && end-start < maxRun && group[order[end]] == group[order[start]] {
			end++
		}
		runs = append(runs, order[start:end])
		start = end
	}
	slices.SortStableFunc(runs, func(x, y []int) int { return cmp.Compare(len(y), len(x)) })
	return runs
}

// ResortAt reports whether a worker sorts its run again (SortRun) before
// its k-th node: before the first, and again after a few, as it learns
// the variables the data reads, and which are per-node, from the nodes it
// compiles.
func ResortAt(k int) bool {
	return k == 0 || k == PerNodeMin || k == 4*PerNodeMin
}
