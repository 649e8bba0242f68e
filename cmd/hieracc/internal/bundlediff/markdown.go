package bundlediff

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Limits of the markdown output, which is meant for a pull-request comment
// (GitHub refuses comments over 65,536 characters).
const (
	mdMaxBytes = 60000 // the whole comment, with room to spare
	mdFoldRows = 15    // tables longer than this are folded
)

// mdCut is how much a markdown rendering shows; WriteMarkdown tries them in
// order until the comment fits.
type mdCut struct {
	fullNodes bool // every node of each change, in <details>
	value     int  // runes of a value shown
	patterns  int  // names or patterns of a change's nodes
	sources   int  // sources shown per side; -1 for all
	note      string
	links     *Links // links sources to their files, when set
}

var mdCuts = []mdCut{
	{fullNodes: true, value: 200, patterns: summaryPatterns, sources: -1},
	{value: 200, patterns: summaryPatterns, sources: -1, note: "node lists (patterns are shown)"},
	{value: 60, patterns: 2, sources: 2, note: "values past 60 characters, node patterns past 2, sources past 2 per value"},
	{value: 20, patterns: 1, sources: 1, note: "values past 20 characters, node patterns past 1, sources past 1 per value"},
	{value: 20, patterns: 0, sources: 0, note: "values past 20 characters, node patterns and sources"},
}

// WriteMarkdown writes the report for a pull-request comment: a title and
// the summary, then one table row per distinct change (the nodes it
// touches, key, path, change, old and new value with their sources), then
// the nodes found on one side only. The comment stays under 60,000 bytes:
// it cuts, in turn, full node lists (only shown with Options.FullNodes),
// long values, node patterns and sources, and says what it cut; rows are
// left out, and counted, only when even the shortest rows do not fit.
// Tables longer than 15 rows are folded in <details>.
func WriteMarkdown(w io.Writer, r *Report, o Options) error {
	of := map[string]int{}
	var out bytes.Buffer
	for i, c := range mdCuts {
		if i == 0 && !o.FullNodes {
			continue
		}
		out.Reset()
		c.links = o.Links
		switch {
		case i > 1 && o.FullNodes:
			c.note = "Cut to fit a pull-request comment: node lists, " + c.note + "."
		case i > 1 || (i == 1 && o.FullNodes):
			c.note = "Cut to fit a pull-request comment: " + c.note + "."
		default:
			c.note = ""
		}
		writeMarkdown(&out, r, c, of, false)
		if out.Len() <= mdMaxBytes {
			break
		}
		if i == len(mdCuts)-1 {
			out.Reset()
			writeMarkdown(&out, r, c, of, true)
		}
	}
	_, err := w.Write(out.Bytes())
	return err
}

// writeMarkdown renders r as c says; with dropRows, it leaves out the rows
// past the size limit and counts them.
func writeMarkdown(out *bytes.Buffer, r *Report, c mdCut, of map[string]int, dropRows bool) {
	title := "no differences"
	if r.Differs() {
		title = fmt.Sprintf("%d of %s changed", r.Summary.Changed, plural(r.Summary.Nodes, "node"))
	}
	fmt.Fprintf(out, "### hieracc diff: %s\n\n", title)
	fmt.Fprintf(out, "%s → %s\n\n", mdSideName(r.Old, r.OldRevision), mdSideName(r.New, r.NewRevision))
	fmt.Fprintf(out, "**%s**\n", mdEscape(summaryLine(r.Summary)))

	// The tail (nodes on one side only, what was cut) is written first to
	// know the room left for rows.
	var tail bytes.Buffer
	for _, g := range r.Groups {
		if g.Status != NodeChanged {
			list := mdNodes(g.Nodes, r.Nodes, max(c.patterns, 1), of)
			if c.fullNodes {
				list = mdNames(g.Nodes)
			}
			fmt.Fprintf(&tail, "\n**%s**: %s\n", groupTitle(g), list)
		}
	}
	if len(r.Entries) > 0 {
		fold := len(r.Entries) > mdFoldRows
		if fold {
			fmt.Fprintf(out, "\n<details><summary>%s</summary>\n", plural(len(r.Entries), "change"))
		}
		out.WriteString("\n| nodes | key | path | change | old | new |\n| --- | --- | --- | --- | --- | --- |\n")
		var row bytes.Buffer
		for i, e := range r.Entries {
			row.Reset()
			writeMarkdownRow(&row, r, e, c, of)
			const reserve = 400 // the fold's end, the note on what was cut
			if dropRows && out.Len()+row.Len()+tail.Len()+reserve > mdMaxBytes {
				c.note = fmt.Sprintf("%s; %s not shown.", strings.TrimSuffix(c.note, "."), plural(len(r.Entries)-i, "more change"))
				break
			}
			out.Write(row.Bytes())
		}
		if fold {
			out.WriteString("\n</details>\n")
		}
	}
	if c.fullNodes {
		writeMarkdownNodeLists(out, r)
	}
	out.Write(tail.Bytes())
	if c.note != "" {
		fmt.Fprintf(out, "\n_%s Run `hieracc diff --format json` for the whole report._\n", mdEscape(c.note))
	}
}

func writeMarkdownRow(b *bytes.Buffer, r *Report, e Entry, c mdCut, of map[string]int) {
	nodes := plural(len(e.Nodes), "node")
	if c.patterns > 0 {
		nodes += ": " + mdNodes(e.Nodes, r.Nodes, c.patterns, of)
	}
	key := code(e.Key)
	if e.Key == "" {
		key = mdEscape(subject(e.Change))
	}
	path := ""
	if e.Path != "" {
		path = code(e.Path)
	}
	fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", nodes, key, path, mdChange(e.Change, c), mdSide(e.Old, c, true), mdSide(e.New, c, false))
}

// mdChange says what happened, then the parts of a change shown whole,
// one a line, as many as the cut's sources allow (all at first).
func mdChange(e Change, c mdCut) string {
	parts := []string{mdEscape(describe(e))}
	for i, p := range e.Parts {
		if c.sources >= 0 && i == max(c.sources, 1)*mdPartsPerSource {
			parts = append(parts, "and "+plural(len(e.Parts)-i, "more part"))
			break
		}
		parts = append(parts, mdValue(partText(e, p), c.value))
	}
	return strings.Join(parts, "<br>")
}

// mdPartsPerSource is how many parts of a change are listed for each
// source a cut shows.
const mdPartsPerSource = 5

// mdSideName is sideName in markdown.
func mdSideName(name, rev string) string {
	if rev == "" || strings.Contains(name, shortRev(rev)) {
		return code(name)
	}
	return code(name) + " (revision " + code(shortRev(rev)) + ")"
}

// mdNodes is nodes as names or patterns, at most max of them.
func mdNodes(nodes, all []string, max int, of map[string]int) string {
	ps := Summarise(nodes, all, max, of)
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = code(p.Glob)
		if t := patternText(p); t != p.Glob {
			texts[i] += mdEscape(strings.TrimPrefix(t, p.Glob))
		}
	}
	return strings.Join(texts, ", ")
}

// writeMarkdownNodeLists lists every node of each change, folded.
func writeMarkdownNodeLists(b *bytes.Buffer, r *Report) {
	for _, e := range r.Entries {
		if len(e.Nodes) <= 1 {
			continue
		}
		fmt.Fprintf(b, "\n<details><summary>%s: %s</summary>\n\n%s\n\n</details>\n",
			mdEscape(heading(e.Change)+": "+describe(e.Change)), plural(len(e.Nodes), "node"), mdNames(e.Nodes))
	}
}

func mdNames(nodes []string) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = code(n)
	}
	return strings.Join(names, ", ")
}

// mdSide is one side of a change in a table cell: the value, then its
// sources.
func mdSide(s *Side, c mdCut, old bool) string {
	if s == nil {
		return ""
	}
	var parts []string
	if v, ok := strings.CutPrefix(sideValue(s), "error: "); ok && s.Err != nil {
		parts = append(parts, "error: "+mdValue(v, c.value))
	} else {
		parts = append(parts, mdValue(sideValue(s), c.value))
	}
	for i, src := range s.Sources {
		if c.sources >= 0 && i == c.sources {
			if i == 0 {
				parts = append(parts, plural(len(s.Sources), "source"))
			} else {
				parts = append(parts, "and "+plural(len(s.Sources)-i, "more source"))
			}
			break
		}
		loc := code(lineOf(src.Pos))
		if u := c.links.url(old, src.File, src.Line); u != "" {
			loc = "[" + loc + "](" + u + ")"
		}
		parts = append(parts, "from "+loc+" ("+mdEscape(where(src))+")")
	}
	return strings.Join(parts, "<br>")
}

// mdValue is s in a code span, shortened to n runes, saying so: "`[1,2,…`
// (of 1,234 characters)".
func mdValue(s string, n int) string {
	if k := utf8.RuneCountInString(s); k > n {
		return code(cut(s, n)) + fmt.Sprintf(" (of %d characters)", k)
	}
	return code(s)
}

// cut shortens s to n runes.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// code is s as an inline code span that is safe in a table cell: a fence
// longer than any run of backticks in s, "|" escaped (GitHub splits cells
// on it even inside code), line breaks as spaces, other control characters
// escaped as the text report escapes them (escapeControls).
func code(s string) string {
	s = escapeControls(s)
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "|", `\|`, "#", `\#`, "~", `\~`, "\n", " ",
)

// mdEscape makes text literal in markdown (and in a table cell), its
// control characters escaped as the text report escapes them.
func mdEscape(s string) string { return mdEscaper.Replace(escapeControls(s)) }
