package compiler

// The order nodes are compiled in. Compile may take them in any order (each
// bundle depends on its node's inputs only), so it takes the nodes of one
// hierarchy slice one after the other, on one worker: the worker's slice
// table, its results and the encoder's memory of the last bundles are then
// still in the CPU's caches when the next node reads them, instead of being
// evicted by the other slices' nodes in between, and other workers need not
// build that slice's table again. The order changes only how fast a compile
// runs, never a value.

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// compileOrder returns the indexes of nodes, grouped by what their
// hierarchies interpolate: the variables of the lowest-priority levels
// first, so that nodes that differ only in a per-node level (their
// certname, say) end up next to each other. Ties keep Input order.
func (c *compilation) compileOrder(nodes []Node) []int {
	order, _ := c.orderGroups(nodes)
	return order
}

// orderGroups is compileOrder, with each node's group: the values of the
// hierarchy variables but the per-node ones (those with a value of their
// own on most nodes, as posStat counts files). Nodes of one group reach
// the same files but at per-node positions: one slice.
func (c *compilation) orderGroups(nodes []Node) (order []int, group []string) {
	order = make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	exprs := c.hierarchyExprs()
	if len(exprs) == 0 || len(nodes) < 2 {
		return order, make([]string, len(nodes))
	}
	vals := make([][]byte, len(exprs)*len(nodes))
	perNode := make([]bool, len(exprs))
	distinct := map[string]struct{}{}
	for e, k := range exprs {
		clear(distinct)
		for i, node := range nodes {
			v := appendCanonical(nil, orderValue(node, k))
			vals[i*len(exprs)+e] = v
			distinct[string(v)] = struct{}{}
		}
		perNode[e] = len(distinct) >= perNodeMin && 2*len(distinct) > len(nodes)
	}
	keys := make([]string, len(nodes))
	group = make([]string, len(nodes))
	var b []byte
	for i := range nodes {
		b = b[:0]
		for e := range exprs {
			if !perNode[e] {
				b = append(b, vals[i*len(exprs)+e]...)
			}
		}
		group[i] = string(b)
		for e := range exprs {
			b = append(b, vals[i*len(exprs)+e]...)
		}
		keys[i] = string(b)
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(keys[x], keys[y]) })
	return order, group
}

// compileRuns cuts compileOrder's nodes into the runs workers take whole:
// the nodes of one group, so that one worker builds each slice's table and
// its first results, instead of every worker building its own. Runs come
// largest first, so that the last ones, when a worker may be left idle,
// are short; a group longer than a quarter of a worker's share is cut.
func (c *compilation) compileRuns(nodes []Node, jobs int) [][]int {
	order, group := c.orderGroups(nodes)
	maxRun := max(1, len(nodes)/(4*max(jobs, 1)))
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

// hierarchyExprs lists the variable expressions of every layer's
// hierarchy paths, lowest-priority level first, each once.
func (c *compilation) hierarchyExprs() []hiera.Key {
	var out []hiera.Key
	seen := map[string]bool{}
	add := func(levels []levelConf) {
		for i := len(levels) - 1; i >= 0; i-- {
			lvl := &levels[i]
			texts := append([]string{lvl.datadir}, lvl.locs...)
			texts = append(texts, lvl.mapped[:]...)
			for _, t := range texts {
				for at := 0; ; {
					start, end := nextExpr(t, at)
					if start < 0 {
						break
					}
					at = end
					expr := strings.TrimSpace(t[start+2 : end-1])
					if seen[expr] {
						continue
					}
					seen[expr] = true
					if k, err := hiera.ParseKey(expr); err == nil {
						out = append(out, k)
					}
				}
			}
		}
	}
	configs := []*config{c.global, c.env}
	for _, name := range c.moduleNames {
		configs = append(configs, c.modules[name])
	}
	// Lowest priority first: modules, then the environment, the global layer.
	for i := len(configs) - 1; i >= 0; i-- {
		if conf := configs[i]; conf != nil && conf.present {
			add(conf.defaultHierarchy)
			add(conf.hierarchy)
		}
	}
	return out
}

// orderValue is roughly what a hierarchy's %{k} reads for node: only the
// order of the compile depends on it.
func orderValue(node Node, k hiera.Key) any {
	root := strings.TrimPrefix(k.Root, "::")
	var v any
	var ok bool
	switch {
	case root == "trusted":
		v, ok = node.Trusted, true
		if node.Trusted == nil {
			v = derivedTrusted(node.Name)
		}
	case root == "facts":
		v, ok = node.Facts, node.Facts != nil
	case node.Facts != nil:
		v, ok = node.Facts.Get(root)
	}
	if !ok {
		return nil
	}
	if len(k.Segments) > 0 {
		d, found, err := k.Dig(v)
		if err != nil || !found {
			return nil
		}
		v = d
	}
	if h, ok := v.(*format.Hash); ok && h.Len() > 8 {
		return nil // a whole facts hash: no grouping to find in it
	}
	return v
}

// sortRun orders the nodes of a run (one group) for the worker compiling
// them: by the values of the variables the worker has seen the data
// interpolate, those with fewest values first, the per-node ones (the
// certname) left out; ties keep their order. Nodes of a group reach the
// same files, but their values still differ where the data reads a fact
// the hierarchy does not (%{facts.os.release.major} in a role file, say):
// taken one value after the other, consecutive nodes share those results
// and the encoder its last shared details file, instead of alternating
// between them. The worker learns the variables from the nodes it has
// compiled (Compile sorts a run again after its first node, for the
// worker's first run). Like compileOrder, this changes only how fast a
// compile runs, never a value.
func (w *worker) sortRun(nodes []Node, run []int) {
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
		k, ok := w.exprs[expr]
		if !ok {
			var err error
			if k, err = hiera.ParseKey(expr); err != nil {
				continue
			}
			w.exprs[expr] = k
		}
		vars = append(vars, sortVar{k, expr, len(st.values)})
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
			b = appendCanonical(b, orderValue(nodes[i], v.key))
		}
		keys[i] = string(b)
	}
	slices.SortStableFunc(run, func(x, y int) int { return cmp.Compare(keys[x], keys[y]) })
}
