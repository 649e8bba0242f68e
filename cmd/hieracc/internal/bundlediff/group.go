package bundlediff

// Stage: gather the distinct changes with the nodes they touch, group the
// nodes that changed alike, and count.

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// group builds the report: results[i] are the changes of common[i].
func group(common []string, results [][]Change, onlyOld, onlyNew []string) *Report {
	g := newGrouper()
	for i, cs := range results {
		g.add(common[i], cs, nil)
	}
	return g.finish(onlyOld, onlyNew)
}

// grouper builds a report from the nodes compared, given one at a time in
// sorted order, keeping only the distinct changes and the nodes' names.
type grouper struct {
	r         *Report
	common    []string
	byChanges map[[32]byte]int // index in r.Groups
	byChange  map[[32]byte]int // index in r.Entries
	keys      map[string]bool
}

func newGrouper() *grouper {
	return &grouper{r: &Report{}, byChanges: map[[32]byte]int{}, byChange: map[[32]byte]int{}, keys: map[string]bool{}}
}

// add records node's changes cs; ids, when not nil, are their
// fingerprints' digests (changeID), in the same order.
func (g *grouper) add(node string, cs []Change, ids [][32]byte) {
	r := &g.r.Summary
	g.common = append(g.common, node)
	if len(cs) == 0 {
		r.Unchanged++
		return
	}
	r.Changed++
	if ids == nil {
		sortChanges(cs)
		ids = make([][32]byte, len(cs))
		for i, c := range cs {
			ids[i] = changeID(c)
		}
	} else {
		// Sort both, changes by key and path, stably.
		perm := make([]int, len(cs))
		for i := range perm {
			perm[i] = i
		}
		slices.SortStableFunc(perm, func(a, b int) int { return compareChanges(cs[a], cs[b]) })
		sc, si := make([]Change, len(cs)), make([][32]byte, len(cs))
		for i, j := range perm {
			sc[i], si[i] = cs[j], ids[j]
		}
		cs, ids = sc, si
	}
	// Changes are the same when everything shown about them is the same,
	// sources included: the JSON form is exactly that (changeID).
	all := make([]byte, 0, 32*len(ids))
	failing := false
	for i, c := range cs {
		id := ids[i]
		all = append(all, id[:]...)
		ei, ok := g.byChange[id]
		if !ok {
			ei = len(g.r.Entries)
			g.byChange[id] = ei
			g.r.Entries = append(g.r.Entries, Entry{Change: c})
			if c.Key != "" {
				g.keys[c.Key] = true
			}
		}
		g.r.Entries[ei].Nodes = append(g.r.Entries[ei].Nodes, node) // nodes come sorted
		if k := errorKind(c); k == "appeared" || k == "changed" {
			failing = true
		}
	}
	if failing {
		r.ErrorNodes++
	}
	id := sha256.Sum256(all)
	gi, ok := g.byChanges[id]
	if !ok {
		gi = len(g.r.Groups)
		g.byChanges[id] = gi
		g.r.Groups = append(g.r.Groups, Group{Status: NodeChanged, Changes: cs})
	}
	g.r.Groups[gi].Nodes = append(g.r.Groups[gi].Nodes, node)
}

// finish completes the report with the nodes found on one side only.
func (g *grouper) finish(onlyOld, onlyNew []string) *Report {
	r := g.r
	r.Summary.Nodes = len(g.common)
	r.Summary.OnlyOld, r.Summary.OnlyNew = len(onlyOld), len(onlyNew)
	r.Summary.KeysChanged = len(g.keys)
	for _, e := range r.Entries {
		switch errorKind(e.Change) {
		case "appeared":
			r.Summary.ErrorsAppeared++
		case "gone":
			r.Summary.ErrorsGone++
		case "changed":
			r.Summary.ErrorsChanged++
		}
	}
	slices.SortStableFunc(r.Entries, func(a, b Entry) int {
		return cmp.Or(compareChanges(a.Change, b.Change), cmp.Compare(len(b.Nodes), len(a.Nodes)), strings.Compare(a.Nodes[0], b.Nodes[0]))
	})
	if len(onlyOld) > 0 {
		r.Groups = append(r.Groups, Group{Status: NodeOnlyOld, Nodes: onlyOld})
	}
	if len(onlyNew) > 0 {
		r.Groups = append(r.Groups, Group{Status: NodeOnlyNew, Nodes: onlyNew})
	}
	slices.SortStableFunc(r.Groups, func(a, b Group) int { return strings.Compare(a.Nodes[0], b.Nodes[0]) })
	r.Nodes = slices.Concat(g.common, onlyOld, onlyNew)
	slices.Sort(r.Nodes)
	return r
}

// changeID identifies a change by everything shown about it.
func changeID(c Change) [32]byte { return sha256.Sum256(fingerprint([]Change{c})) }

// errorKind says what a change does to errors: "appeared", "gone",
// "changed" (its message), or "" when it holds none.
func errorKind(c Change) string {
	oldErr, newErr := c.Old != nil && c.Old.Err != nil, c.New != nil && c.New.Err != nil
	switch {
	case oldErr && newErr:
		return "changed"
	case newErr:
		return "appeared"
	case oldErr:
		return "gone"
	}
	return ""
}

func fingerprint(cs []Change) []byte {
	b, err := json.Marshal(jsonChanges(cs))
	if err != nil {
		// jsonChanges renders every value; Marshal cannot fail on it.
		return []byte(err.Error())
	}
	return b
}

// sortChanges orders changes by key (node- and module-level errors first),
// then path, token by token with array indexes in numeric order. Changes
// at one path keep the order they were found in.
func sortChanges(cs []Change) { slices.SortStableFunc(cs, compareChanges) }

func compareChanges(a, b Change) int {
	if c := cmp.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Module, b.Module); c != 0 {
		return c
	}
	return comparePaths(a.Path, b.Path)
}

func comparePaths(a, b string) int {
	if a == b {
		return 0
	}
	at, bt := strings.Split(a, "/"), strings.Split(b, "/")
	for i := range min(len(at), len(bt)) {
		if at[i] == bt[i] {
			continue
		}
		an, aerr := strconv.ParseUint(at[i], 10, 64)
		bn, berr := strconv.ParseUint(bt[i], 10, 64)
		if aerr == nil && berr == nil && an != bn {
			return cmp.Compare(an, bn)
		}
		return strings.Compare(at[i], bt[i])
	}
	return cmp.Compare(len(at), len(bt))
}
