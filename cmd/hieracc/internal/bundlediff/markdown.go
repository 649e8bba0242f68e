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
	mdMaxBytes = 60000 // groups past this size are left out, and counted
	mdMaxValue = 200   // runes of a value shown in a table cell
	mdFoldNode = 10    // node lists longer than this are folded
	mdFoldRows = 15    // tables longer than this are folded
)

// WriteMarkdown writes the report for a pull-request comment: a title and
// the summary, then per group its nodes and a table of changes (key, path,
// change, old and new value with their sources). Long node lists and long
// tables are folded in <details>; values longer than 200 characters are
// cut; groups that would take the comment past 60,000 bytes are left out,
// and counted.
func WriteMarkdown(w io.Writer, r *Report, _ Options) error {
	var out bytes.Buffer
	title := "no differences"
	if r.Differs() {
		title = fmt.Sprintf("%d of %s changed", r.Summary.Changed, plural(r.Summary.Nodes, "node"))
	}
	fmt.Fprintf(&out, "### hieracc diff: %s\n\n", title)
	fmt.Fprintf(&out, "%s → %s\n\n", code(r.Old), code(r.New))
	fmt.Fprintf(&out, "**%s**\n", mdEscape(summaryLine(r.Summary)))

	for i, g := range r.Groups {
		var gb bytes.Buffer
		writeMarkdownGroup(&gb, g)
		if out.Len()+gb.Len() > mdMaxBytes {
			fmt.Fprintf(&out, "\n_%s not shown: the comment would be too long. Run `hieracc diff` for the whole report._\n",
				plural(len(r.Groups)-i, "more group"))
			break
		}
		out.Write(gb.Bytes())
	}
	_, err := w.Write(out.Bytes())
	return err
}

func writeMarkdownGroup(b *bytes.Buffer, g Group) {
	nodes := make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		nodes[i] = code(n)
	}
	list := strings.Join(nodes, ", ")
	if len(g.Nodes) > mdFoldNode {
		fmt.Fprintf(b, "\n#### %s\n\n<details><summary>nodes</summary>\n\n%s\n\n</details>\n", groupTitle(g), list)
	} else {
		fmt.Fprintf(b, "\n#### %s: %s\n", groupTitle(g), list)
	}
	if len(g.Changes) == 0 {
		return
	}
	fold := len(g.Changes) > mdFoldRows
	if fold {
		fmt.Fprintf(b, "\n<details><summary>%s</summary>\n", plural(len(g.Changes), "change"))
	}
	b.WriteString("\n| key | path | change | old | new |\n| --- | --- | --- | --- | --- |\n")
	for _, c := range g.Changes {
		key := code(c.Key)
		if c.Key == "" {
			key = mdEscape(subject(c))
		}
		path := ""
		if c.Path != "" {
			path = code(c.Path)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", key, path, mdEscape(describe(c)), mdSide(c.Old), mdSide(c.New))
	}
	if fold {
		b.WriteString("\n</details>\n")
	}
}

// mdSide is one side of a change in a table cell: the value, then its
// sources.
func mdSide(s *Side) string {
	if s == nil {
		return ""
	}
	var parts []string
	if v, ok := strings.CutPrefix(sideValue(s), "error: "); ok && s.Err != nil {
		parts = append(parts, "error: "+code(cut(v)))
	} else {
		parts = append(parts, code(cut(sideValue(s))))
	}
	for _, src := range s.Sources {
		parts = append(parts, "from "+code(position(src.File, src.Line))+" ("+mdEscape(where(src))+")")
	}
	return strings.Join(parts, "<br>")
}

// cut shortens s to mdMaxValue runes.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= mdMaxValue {
		return s
	}
	r := []rune(s)
	return string(r[:mdMaxValue]) + "…"
}

// code is s as an inline code span that is safe in a table cell: a fence
// longer than any run of backticks in s, "|" escaped (GitHub splits cells
// on it even inside code), line breaks as spaces.
func code(s string) string {
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

// mdEscape makes text literal in markdown (and in a table cell).
func mdEscape(s string) string { return mdEscaper.Replace(s) }
