package bundlediff

// Stage: group the nodes that changed alike, and count.

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
	keys := map[string]bool{}
	for i, cs := range results {
		if len(cs) == 0 {
			r.Summary.Unchanged++
			continue
		}
		r.Summary.Changed++
		sortChanges(cs)
		// Nodes group when everything shown about their changes is the
		// same, sources included: the JSON form is exactly that.
		id := sha256.Sum256(fingerprint(cs))
		gi, ok := byChanges[id]
		if !ok {
			gi = len(r.Groups)
			byChanges[id] = gi
			r.Groups = append(r.Groups, Group{Status: NodeChanged, Changes: cs})
			for _, c := range cs {
				if c.Key != "" {
					keys[c.Key] = true
				}
			}
		}
		r.Groups[gi].Nodes = append(r.Groups[gi].Nodes, common[i]) // common is sorted
	}
	r.Summary.KeysChanged = len(keys)
	if len(onlyOld) > 0 {
		r.Groups = append(r.Groups, Group{Status: NodeOnlyOld, Nodes: onlyOld})
	}
	if len(onlyNew) > 0 {
		r.Groups = append(r.Groups, Group{Status: NodeOnlyNew, Nodes: onlyNew})
	}
	slices.SortStableFunc(r.Groups, func(a, b Group) int { return strings.Compare(a.Nodes[0], b.Nodes[0]) })
	return r
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
func sortChanges(cs []Change) {
	slices.SortStableFunc(cs, func(a, b Change) int {
		if c := cmp.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Module, b.Module); c != 0 {
			return c
		}
		return comparePaths(a.Path, b.Path)
	})
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
