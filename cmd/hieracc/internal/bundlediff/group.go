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
	r := &Report{Summary: Summary{Nodes: len(common), OnlyOld: len(onlyOld), OnlyNew: len(onlyNew)}}
	byChanges := map[[32]byte]int{} // index in r.Groups
	byChange := map[[32]byte]int{}  // index in r.Entries
	keys := map[string]bool{}
	for i, cs := range results {
		if len(cs) == 0 {
			r.Summary.Unchanged++
			continue
		}
		r.Summary.Changed++
		sortChanges(cs)
		// Changes are the same when everything shown about them is the
		// same, sources included: the JSON form is exactly that.
		var all []byte
		failing := false
		for _, c := range cs {
			fp := fingerprint([]Change{c})
			all = append(all, fp...)
			id := sha256.Sum256(fp)
			ei, ok := byChange[id]
			if !ok {
				ei = len(r.Entries)
				byChange[id] = ei
				r.Entries = append(r.Entries, Entry{Change: c})
				if c.Key != "" {
					keys[c.Key] = true
				}
			}
			r.Entries[ei].Nodes = append(r.Entries[ei].Nodes, common[i]) // common is sorted
			if k := errorKind(c); k == "appeared" || k == "changed" {
				failing = true
			}
		}
		if failing {
			r.Summary.ErrorNodes++
		}
		id := sha256.Sum256(all)
		gi, ok := byChanges[id]
		if !ok {
			gi = len(r.Groups)
			byChanges[id] = gi
			r.Groups = append(r.Groups, Group{Status: NodeChanged, Changes: cs})
		}
		r.Groups[gi].Nodes = append(r.Groups[gi].Nodes, common[i])
	}
	r.Summary.KeysChanged = len(keys)
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
	r.Nodes = slices.Concat(common, onlyOld, onlyNew)
	slices.Sort(r.Nodes)
	return r
}

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
