package compiler

// Limits on the work one node's data can ask for. Inputs of a few lines
// (a string that doubles at each of 30 nested lookups, a fact of 26 brace
// groups in a glob, a chain of 20,000 lookups) would otherwise ask for more
// memory or time than any machine has. Past a limit, the key or hierarchy
// level is an error, placed where it arose; other keys and nodes compile.
// README.md ("Limits and errors") lists them.

import (
	"fmt"

	"github.com/hieracc/hieracc/format"
)

const (
	// maxInterpolated bounds a string interpolation builds (data files
	// hold at most 64 MiB).
	maxInterpolated = 16 << 20
	// maxGlobPatterns bounds the patterns a glob gives once its braces
	// are expanded.
	maxGlobPatterns = 1024
	// maxGlobEntries bounds the directory entries one glob reads (a
	// repeated "**" reads a tree again for each).
	maxGlobEntries = 1 << 18
	// maxLocations bounds the data files one hierarchy level names.
	maxLocations = 10_000
	// maxLookupDepth bounds nested lookups (lookup(), alias(), hiera() in
	// data); Puppet 7 fails between 100 and 200 ("stack level too deep").
	maxLookupDepth = 200
)

// limitError is the error of an input past one of hieracc's limits.
func limitError(msg string, args ...any) *format.Error {
	return &format.Error{Message: fmt.Sprintf(msg, args...) + ": over hieracc's limit (see \"Limits and errors\" in its README)"}
}

// inspectSize is at most the length of v's Ruby inspect text (each string
// counts its bytes, each other value one): more than max stops the count.
// A value built by aliases can share subtrees, so it is counted at each
// use, as its text would repeat them.
func inspectSize(v any, max int) int {
	n := 0
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case string:
			n += len(v)
		case []any:
			n++
			for _, e := range v {
				if !walk(e) {
					return false
				}
			}
		case *format.Hash:
			n++
			for k, e := range v.All() {
				if !walk(k) || !walk(e) {
					return false
				}
			}
		default:
			n++
		}
		return n <= max
	}
	walk(v)
	return n
}

// checkSize refuses a value a bundle cannot hold: nested deeper than
// format.MaxDepth or of more than format.MaxNodes nodes, shared subtrees
// counted at each use (an alias of an alias can build one from a few lines).
func checkSize(v any) *format.Error {
	switch v.(type) {
	case []any, *format.Hash:
	default:
		return nil // a scalar: interpolation's usual result
	}
	if small(v, 1<<12, 0) {
		return nil // the common case, without the bookkeeping below
	}
	type size struct{ depth, nodes int }
	seen := map[any]size{}
	var measure func(v any) size
	measure = func(v any) size {
		var id any
		var s size
		switch v := v.(type) {
		case []any:
			if len(v) == 0 {
				return size{1, 1}
			}
			id = &v[0]
			if m, ok := seen[id]; ok {
				return m
			}
			s = size{1, 1}
			for _, e := range v {
				m := measure(e)
				s = size{max(s.depth, m.depth+1), min(s.nodes+m.nodes, format.MaxNodes+1)}
			}
		case *format.Hash:
			id = v
			if m, ok := seen[id]; ok {
				return m
			}
			s = size{1, 1}
			for k, e := range v.All() {
				mk, m := measure(k), measure(e)
				s = size{max(s.depth, mk.depth+1, m.depth+1), min(s.nodes+mk.nodes+m.nodes, format.MaxNodes+1)}
			}
		default:
			return size{0, 1}
		}
		seen[id] = s
		return s
	}
	s := measure(v)
	switch {
	case s.depth > format.MaxDepth:
		return limitError("value nested deeper than %d", format.MaxDepth)
	case s.nodes > format.MaxNodes:
		return limitError("value of more than %d nodes (shared parts counted at each use)", format.MaxNodes)
	}
	return nil
}

// small reports whether v has at most budget nodes, counted at each use,
// and is nested less deep than format.MaxDepth (depth is v's own depth).
func small(v any, budget, depth int) bool {
	n := 0
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		n++
		if n > budget || depth >= format.MaxDepth {
			return false
		}
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				if !walk(e, depth+1) {
					return false
				}
			}
		case *format.Hash:
			for k, e := range v.All() {
				if !walk(k, depth+1) || !walk(e, depth+1) {
					return false
				}
			}
		}
		return true
	}
	return walk(v, depth)
}
