package bundlediff

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ANSI styles of the text output, used only with Options.Color.
const (
	styleBold  = "\x1b[1m"
	styleRed   = "\x1b[31m"
	styleGreen = "\x1b[32m"
	styleDim   = "\x1b[2m"
	styleReset = "\x1b[0m"
)

// wrapAt is the width node lists are wrapped at.
const wrapAt = 100

// WriteText writes the report for a terminal or a log, diff -u style: the
// summary first, then each distinct change once with the nodes it touches
// (their names up to five, else patterns of their names with counts; every
// name with Options.FullNodes), then the nodes found on one side only:
//
//	--- old: OLD
//	+++ new: NEW
//
//	8 nodes compared: 2 changed, 6 unchanged, 0 only in OLD, 0 only in NEW; 1 key changed
//
//	ntp::servers /0: changed
//	  on 2 nodes: db01.fra1.example.net, web01.fra1.example.net
//	    - "0.pool.ntp.org"
//	        from env/data/common.yaml:74 (level "Common")
//	    + "9.pool.ntp.org"
//	        from env/data/datacenters/fra1.yaml:3 (level "Datacenter")
func WriteText(w io.Writer, r *Report, o Options) error {
	bw := bufio.NewWriter(w)
	// Every text but the styles' own codes is escaped: key names, node
	// names and revisions come from the bundles.
	style := func(s, text string) string {
		text = escapeControls(text)
		if !o.Color {
			return text
		}
		return s + text + styleReset
	}
	bw.WriteString(style(styleBold, "--- old: "+sideName(r.Old, r.OldRevision)) + "\n")
	bw.WriteString(style(styleBold, "+++ new: "+sideName(r.New, r.NewRevision)) + "\n")
	bw.WriteString("\n" + style(styleBold, summaryLine(r.Summary)) + "\n")
	of := map[string]int{}
	for _, e := range r.Entries {
		c := e.Change
		bw.WriteString("\n" + style(styleBold, heading(c)+": "+describe(c)) + "\n")
		bw.WriteString(escapeControls(textNodes("  on "+plural(len(e.Nodes), "node"), e.Nodes, r.Nodes, o, of)) + "\n")
		for _, side := range []struct {
			s      *Side
			mark   string
			colour string
		}{{c.Old, "-", styleRed}, {c.New, "+", styleGreen}} {
			if side.s == nil {
				continue
			}
			v := sideValue(side.s)
			if side.s.Err == nil && !side.s.Secret {
				v = foldValue(v, wrapAt-6)
			}
			v = strings.ReplaceAll(v, "\n", "\n      ")
			bw.WriteString(style(side.colour, "    "+side.mark+" "+v) + "\n")
			for _, src := range side.s.Sources {
				bw.WriteString(style(styleDim, "        from "+lineOf(src.Pos)+" ("+where(src)+")") + "\n")
			}
		}
		for _, p := range c.Parts {
			bw.WriteString(style(styleDim, "    · "+partText(c, p)) + "\n")
		}
	}
	for _, g := range r.Groups {
		if g.Status != NodeChanged {
			bw.WriteString("\n" + style(styleBold, textNodes(groupTitle(g), g.Nodes, r.Nodes, o, of)) + "\n")
		}
	}
	return bw.Flush()
}

// escapeControls escapes every control character of s but newline and
// tab, and every byte that is not UTF-8, as Go quotes them (\x1b, \u0085,
// \xe9), so that no text of a bundle reaches a terminal as it is.
func escapeControls(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r != '\n' && r != '\t' && unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r != '\n' && r != '\t' && unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// textNodes is head, then the nodes: their names, or patterns of them.
func textNodes(head string, nodes, all []string, o Options, of map[string]int) string {
	if o.FullNodes {
		return wrapList(head+": ", nodes)
	}
	return wrapList(head+": ", patternTexts(Summarise(nodes, all, summaryPatterns, of)))
}

// wrapList writes head followed by items separated by ", ", wrapped at
// wrapAt columns with continuation lines indented.
func wrapList(head string, items []string) string {
	var b strings.Builder
	b.WriteString(head)
	col := len(head)
	for i, it := range items {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		if i > 0 && col+len(sep)+len(it) > wrapAt {
			b.WriteString(",\n  ")
			col = 2
			sep = ""
		}
		b.WriteString(sep + it)
		col += len(sep) + len(it)
	}
	return b.String()
}
