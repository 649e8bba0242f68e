package bundlediff

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteGitHub writes the report as GitHub Actions workflow commands, so
// that a pull request shows each change on the data line that makes it:
// one annotation per line of a data file holding a changed value (the NEW
// side's sources), naming the key, the change and the nodes it touches
// (patterns and count):
//
//	::notice file=data/common.yaml,line=74,title=hieracc%3A ntp%3A%3Aservers::ntp::servers changed (…) on 18 nodes: *.example.com (all 17), example-node%0A- [...]%0A+ [...]
//
// A change that makes an error appear is a ::warning. Changes with no
// source in NEW (a removal, a node-level error) are annotations without a
// file; a removal says where its value was in OLD. Several changes from one line are one annotation. The
// summary comes first, as a ::notice of its own. Files are named as the
// report names them: map them to the repository's paths first (MapPaths).
func WriteGitHub(w io.Writer, r *Report, o Options) error {
	bw := bufio.NewWriter(w)
	type note struct {
		file    string
		line    int
		warning bool
		keys    []string
		texts   []string
	}
	notes := map[string]*note{}
	var order []*note
	of := map[string]int{}
	for _, e := range r.Entries {
		c := e.Change
		// An annotation stands on a line of NEW's files: a change with
		// no source in NEW (a removal) stands on none, and says where
		// the value was.
		side := c.New
		text := ghChange(e, r, of)
		if (side == nil || len(side.Sources) == 0) && c.Old != nil {
			for _, s := range c.Old.Sources {
				text += "\n(OLD: from " + lineOf(s.Pos) + ")"
			}
		}
		warning := errorKind(c) == "appeared" || errorKind(c) == "changed"
		var at [][2]any
		if side != nil {
			for _, s := range side.Sources {
				at = append(at, [2]any{s.File, s.Line})
			}
		}
		if len(at) == 0 {
			at = append(at, [2]any{"", 0})
		}
		for _, a := range at {
			file, line := a[0].(string), a[1].(int)
			id := fmt.Sprintf("%s\x00%d", file, line)
			n := notes[id]
			if n == nil {
				n = &note{file: file, line: line}
				notes[id] = n
				order = append(order, n)
			}
			n.warning = n.warning || warning
			if !slices.Contains(n.keys, subject(c)) {
				n.keys = append(n.keys, subject(c))
			}
			n.texts = append(n.texts, text)
		}
	}
	slices.SortStableFunc(order, func(a, b *note) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})
	fmt.Fprintf(bw, "::notice title=hieracc diff::%s\n", ghData(summaryLine(r.Summary)))
	for _, n := range order {
		cmdName := "notice"
		if n.warning {
			cmdName = "warning"
		}
		var props []string
		if n.file != "" {
			props = append(props, "file="+ghProp(n.file))
			if n.line > 0 {
				props = append(props, fmt.Sprintf("line=%d", n.line))
			}
		}
		keys := n.keys
		if len(keys) > 3 {
			keys = append(keys[:3:3], "and "+plural(len(n.keys)-3, "more key"))
		}
		props = append(props, "title="+ghProp("hieracc: "+strings.Join(keys, ", ")))
		fmt.Fprintf(bw, "::%s %s::%s\n", cmdName, strings.Join(props, ","), ghData(strings.Join(n.texts, "\n\n")))
	}
	for _, g := range r.Groups {
		if g.Status != NodeChanged {
			fmt.Fprintf(bw, "::notice title=hieracc diff::%s\n", ghData(textNodes(groupTitle(g), g.Nodes, r.Nodes, o, of)))
		}
	}
	return bw.Flush()
}

// ghValueMax is how many runes of a value an annotation shows.
const ghValueMax = 300

// ghChange is one change in an annotation: what changed, on which nodes,
// and the two values.
func ghChange(e Entry, r *Report, of map[string]int) string {
	c := e.Change
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s on %s: %s", heading(c), describe(c), plural(len(e.Nodes), "node"),
		strings.Join(patternTexts(Summarise(e.Nodes, r.Nodes, summaryPatterns, of)), ", "))
	for _, side := range []struct {
		s    *Side
		mark string
	}{{c.Old, "-"}, {c.New, "+"}} {
		if side.s != nil {
			fmt.Fprintf(&b, "\n%s %s", side.mark, foldTo(sideValue(side.s), ghValueMax))
		}
	}
	return b.String()
}

// foldTo shortens s past n runes, saying how long it is.
func foldTo(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + fmt.Sprintf("… (%d characters; the text, markdown, JSON and HTML reports show it whole)", len(r))
	}
	return s
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProp escapes a workflow command's property value.
func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
