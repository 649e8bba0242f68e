package bundlediff

// Stage: summarise a set of nodes by the patterns of their names, so that a
// change touching thousands of nodes reads "web*.fra1.example.net (all
// 1200)" rather than a list of 1,200 names.

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// Pattern summarises some nodes of a set by a glob of their names, in
// path.Match syntax, so that it can be given to --node as it is.
type Pattern struct {
	// Glob is the pattern, or a node's own name (escaped for path.Match)
	// when it stands for one node.
	Glob string
	// Nodes counts the nodes of the set that Glob stands for; the
	// patterns of one set share its nodes out, without overlap: a node
	// that several globs match is counted under the first of them.
	Nodes int
	// Of counts the nodes of the whole comparison that Glob matches: Nodes
	// == Of says that every such node is in the set.
	Of int
}

// generalisations turn a node name into the key of its pattern, from the
// finest (the name itself) to the coarsest ("*"). Every name matches the
// glob its key reads as.
var generalisations = []func(string) string{
	func(n string) string { return escapeGlob(n) },
	func(n string) string { host, dom := splitHost(n); return digitsToStar(host) + escapeGlob(dom) }, // web*.fra1.example.net
	digitsToStar, // web*.fra*.example.net
	func(n string) string { return domainGlob(n, 0) }, // *.fra1.example.net
	func(n string) string { return domainGlob(n, 1) }, // *.example.net
	func(string) string { return "*" },
}

// Summarise describes nodes (a set drawn from all) by at most max
// patterns: the names themselves when there are at most max, else the
// finest generalisation of the names that needs at most max patterns
// (digit runs of the host part as "*", then of every label, then the
// domain, then shorter domains). A pattern standing for one node is its
// name. Patterns are sorted by the nodes they stand for, most first, then
// by glob. of memoises the Of counts of globs across calls; it may be nil.
func Summarise(nodes, all []string, max int, of map[string]int) []Pattern {
	if len(nodes) == 0 {
		return nil
	}
	max = cmp.Or(max, 1)
	for _, gen := range generalisations {
		count := map[string]int{}
		first := map[string]string{}
		for _, n := range nodes {
			k := gen(n)
			if count[k] == 0 {
				first[k] = n
			}
			count[k]++
		}
		if len(count) > max {
			continue
		}
		out := make([]Pattern, 0, len(count))
		for k, c := range count {
			if c == 1 {
				k = escapeGlob(first[k])
			}
			out = append(out, Pattern{Glob: k, Nodes: c})
		}
		out = exact(out, nodes)
		for i := range out {
			out[i].Of = matching(out[i].Glob, all, of)
		}
		return out
	}
	return nil // the last generalisation has one key
}

// exact makes the counts of ps true of the globs: a glob matches more than
// the names it was made from ("*.example.com" matches
// "win2022.ad.example.com"), so each node is counted under the first glob
// that matches it (those standing for most nodes first), and a pattern left
// with no node is dropped. The patterns thus still share the nodes out, and
// a pattern's Nodes are all the nodes of the set its glob matches but the
// earlier globs do not.
func exact(ps []Pattern, nodes []string) []Pattern {
	byCount := func(a, b Pattern) int {
		return cmp.Or(cmp.Compare(b.Nodes, a.Nodes), strings.Compare(a.Glob, b.Glob))
	}
	slices.SortFunc(ps, byCount)
	n := make([]int, len(ps))
	for _, name := range nodes {
		for i, p := range ps {
			if ok, _ := path.Match(p.Glob, name); ok {
				n[i]++
				break
			}
		}
	}
	out := ps[:0]
	for i, p := range ps {
		if n[i] > 0 {
			p.Nodes = n[i]
			out = append(out, p)
		}
	}
	slices.SortFunc(out, byCount)
	return out
}

// matching counts the names of all that glob matches.
func matching(glob string, all []string, memo map[string]int) int {
	if n, ok := memo[glob]; ok {
		return n
	}
	n := 0
	if !strings.ContainsAny(glob, `*?[\`) {
		if _, found := slices.BinarySearch(all, glob); found {
			n = 1
		}
	} else {
		for _, name := range all {
			if ok, _ := path.Match(glob, name); ok {
				n++
			}
		}
	}
	if memo != nil {
		memo[glob] = n
	}
	return n
}

// splitHost cuts a name before its first dot: "web01", ".fra1.example.net".
func splitHost(n string) (host, domain string) {
	if i := strings.IndexByte(n, '.'); i > 0 {
		return n[:i], n[i:]
	}
	return n, ""
}

// digitsToStar is s as a glob, each run of digits made a "*".
func digitsToStar(s string) string {
	var b strings.Builder
	digits := false
	for _, r := range s {
		if r >= '0' && r <= '9' {
			if !digits {
				b.WriteByte('*')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteString(escapeGlob(string(r)))
	}
	return b.String()
}

// domainGlob is "*" followed by the name's domain less its first drop
// labels: for web01.fra1.example.net, drop 0 gives "*.fra1.example.net".
// A name with too few labels gives "*".
func domainGlob(n string, drop int) string {
	_, dom := splitHost(n)
	for range drop {
		i := strings.IndexByte(dom[min(1, len(dom)):], '.')
		if i < 0 {
			return "*"
		}
		dom = dom[i+1:]
	}
	if dom == "" || drop > 0 && strings.Count(dom, ".") < 2 { // not "*.net"
		return "*"
	}
	return "*" + escapeGlob(dom)
}

var globEscaper = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)

// escapeGlob makes s match only itself under path.Match.
func escapeGlob(s string) string { return globEscaper.Replace(s) }
