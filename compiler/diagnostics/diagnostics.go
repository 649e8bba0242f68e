// Package diagnostics holds Diagnostic, the one type of an error or a
// warning from reading a file to printing it, and prints a compile's
// diagnostics for people and for machines. It imports only format (for
// format.Pos) and the standard library, so that every reader (data
// files, facts, hiera.yaml), the compiler, the build and the CLI share it.
//
// One broken file reached by 3,000 nodes is one error with
// 3,000 nodes, not 3,000 lines: Group gathers the diagnostics that differ
// only by node, and Write renders the groups as text (a line each, with the
// count and a few node names), JSON Lines (every node) or GitHub workflow
// commands (`::error file=F,line=L,col=C::message`), which GitHub shows on
// the line of the pull request that caused them.
package diagnostics

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A Group is one error or warning and every node that reported it.
type Group struct {
	// Diagnostic is what the nodes share; its Node is empty.
	Diagnostic
	// Nodes are the nodes that reported it, sorted, each once; empty when
	// it concerns no node (a facts file that cannot be read, a hiera.yaml
	// reported once for the run).
	Nodes []string
}

// GroupAll gathers the diagnostics that differ only by node, in the order
// of their first appearance (the compiler sorts them by position).
func GroupAll(ds []Diagnostic) []Group {
	var gs []Group
	index := map[Diagnostic]int{}
	for _, d := range ds {
		node := d.Node
		d.Node = ""
		i, ok := index[d]
		if !ok {
			i = len(gs)
			index[d] = i
			gs = append(gs, Group{Diagnostic: d})
		}
		if node != "" {
			gs[i].Nodes = append(gs[i].Nodes, node)
		}
	}
	for i := range gs {
		slices.Sort(gs[i].Nodes)
		gs[i].Nodes = slices.Compact(gs[i].Nodes)
	}
	return gs
}

// Format is how Write renders groups.
type Format int

const (
	Text   Format = iota // a line per group, as compile has always printed
	JSON                 // JSON Lines: an object per group, every node listed
	GitHub               // GitHub Actions workflow commands
)

// Formats are the names ParseFormat accepts, in Format order.
var Formats = []string{"text", "json", "github"}

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, error) {
	if i := slices.Index(Formats, s); i >= 0 {
		return Format(i), nil
	}
	return 0, fmt.Errorf("must be %s, not %q", strings.Join(Formats, ", "), s)
}

// Options tune Write.
type Options struct {
	// Verbose names every node of a group in text and GitHub formats;
	// otherwise the first Shown (default 3) and a count.
	Verbose bool
	Shown   int
}

// Write renders gs in format f, one line per group.
func Write(w io.Writer, gs []Group, f Format, o Options) error {
	var b strings.Builder
	for _, g := range gs {
		switch f {
		case JSON:
			nodes := g.Nodes
			if nodes == nil {
				nodes = []string{} // [], not null
			}
			line, err := json.Marshal(jsonGroup{
				Severity: g.Severity.String(), File: g.File, Line: g.Line, Column: g.Column,
				Level: g.Level, Key: g.Key, Message: g.Message, Nodes: nodes,
			})
			if err != nil {
				return err
			}
			b.Write(line)
		case GitHub:
			b.WriteString(github(g, o))
		default:
			b.WriteString(text(g, o))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type jsonGroup struct {
	Severity string   `json:"severity"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Column   int      `json:"column,omitempty"`
	Level    string   `json:"level,omitempty"`
	Key      string   `json:"key,omitempty"`
	Message  string   `json:"message"`
	Nodes    []string `json:"nodes"`
}

// text is the diagnostic as Diagnostic.String prints it, its
// node replaced by the group's nodes: "(key "k", 3000 nodes: a, b, c and
// 2997 more)".
func text(g Group, o Options) string {
	d := g.Diagnostic
	switch len(g.Nodes) {
	case 0:
		return d.String()
	case 1:
		d.Node = g.Nodes[0]
		return d.String()
	}
	s := d.String()
	nodes := nodeList(g.Nodes, o)
	if strings.HasSuffix(s, ")") && (d.Key != "" || d.Level != "") {
		return s[:len(s)-1] + ", " + nodes + ")"
	}
	return s + " (" + nodes + ")"
}

// nodeList is "3 nodes: a, b, c" or "3000 nodes: a, b, c and 2997 more".
func nodeList(nodes []string, o Options) string {
	shown := cmp.Or(o.Shown, 3)
	if o.Verbose || len(nodes) <= shown+1 {
		return fmt.Sprintf("%d nodes: %s", len(nodes), strings.Join(nodes, ", "))
	}
	return fmt.Sprintf("%d nodes: %s and %d more", len(nodes), strings.Join(nodes[:shown], ", "), len(nodes)-shown)
}

// github is a workflow command: ::error file=F,line=L,col=C,title=T::M.
// https://docs.github.com/actions/reference/workflow-commands-for-github-actions
func github(g Group, o Options) string {
	var props []string
	if g.File != "" {
		props = append(props, "file="+escapeProperty(g.File))
		if g.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", g.Line))
			if g.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", g.Column))
			}
		}
	}
	title := "hieracc"
	if g.Key != "" {
		title += ": key " + g.Key
	}
	props = append(props, "title="+escapeProperty(title))
	msg := g.Message
	var ctx []string
	if g.Level != "" {
		ctx = append(ctx, fmt.Sprintf("level %q", g.Level))
	}
	switch len(g.Nodes) {
	case 0:
	case 1:
		ctx = append(ctx, "node "+g.Nodes[0])
	default:
		ctx = append(ctx, nodeList(g.Nodes, o))
	}
	if len(ctx) > 0 {
		msg += " (" + strings.Join(ctx, ", ") + ")"
	}
	return "::" + g.Severity.String() + " " + strings.Join(props, ",") + "::" + escapeData(msg)
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// escapeData and escapeProperty escape as GitHub's toolkit does
// (@actions/core, command.ts), so that a message cannot end the command or
// start another.
func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
