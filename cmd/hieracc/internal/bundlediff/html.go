package bundlediff

import (
	"bufio"
	_ "embed"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
)

//go:embed assets/report.html.tmpl
var htmlTemplate string

var reportTemplate = template.Must(template.New("report").Parse(htmlTemplate))

// WriteHTML writes the report as one self-contained web page, to keep as a
// CI artifact: no network, no external script, style sheet or font. It
// shows the summary; a map of where the changes land (a row per group of
// nodes that changed alike, a column per key, each cell coloured by the
// kind of change); then each distinct change with its old and new values
// (long ones folded), their sources (linked to the repository with
// Options.Links), the parts of an array shown whole, and the nodes it
// touches (patterns, and every name folded). Filters by key and by node
// glob hide the rest. Secrets show no value, as in every format.
func WriteHTML(w io.Writer, r *Report, o Options) error {
	of := map[string]int{}
	d := htmlReport{
		Old: sideName(r.Old, r.OldRevision), New: sideName(r.New, r.NewRevision),
		Summary: summaryLine(r.Summary), Differs: r.Differs(),
	}
	// Each node is written once, in its group's row; a change names the
	// groups it touches (all the nodes of a group share its changes), so
	// that the page grows with the fleet, not with changes × nodes.
	groupOf := map[string]int{}
	for gi, g := range r.Groups {
		for _, n := range g.Nodes {
			groupOf[n] = gi
		}
	}
	col := map[string]int{}
	for i, e := range r.Entries {
		c := e.Change
		s := subject(c)
		if _, ok := col[s]; !ok {
			col[s] = len(d.Keys)
			d.Keys = append(d.Keys, s)
		}
		he := htmlEntry{
			ID: i, Subject: s, Path: c.Path, What: describe(c), Kind: kindClass(c),
			Count: plural(len(e.Nodes), "node"), Patterns: patternTexts(Summarise(e.Nodes, r.Nodes, summaryPatterns, of)),
			Groups: entryGroups(e.Nodes, groupOf), Many: len(e.Nodes) > 1,
			Old: htmlSideOf(c.Old, true, o.Links), New: htmlSideOf(c.New, false, o.Links),
		}
		for _, p := range c.Parts {
			he.Parts = append(he.Parts, partText(c, p))
		}
		markElements(c, he.Old, he.New)
		d.Entries = append(d.Entries, he)
	}
	// The map: a row per group, a column per key; where a group holds
	// several changes of a key of different kinds, the cell says "mixed".
	for _, g := range r.Groups {
		row := htmlRow{Title: groupTitle(g), Patterns: strings.Join(patternTexts(Summarise(g.Nodes, r.Nodes, 3, of)), ", "),
			NodeList: strings.Join(g.Nodes, "\n"), Cells: make([]htmlCell, len(d.Keys))}
		switch g.Status {
		case NodeOnlyOld:
			row.Whole = "removed"
		case NodeOnlyNew:
			row.Whole = "added"
		}
		for _, c := range g.Changes {
			i, ok := col[subject(c)]
			if !ok {
				continue
			}
			k := kindClass(c)
			switch cell := &row.Cells[i]; {
			case cell.Kind == "":
				cell.Kind, cell.Title = k, subject(c)+": "+describe(c)
			case cell.Kind != k:
				cell.Kind, cell.Title = "mixed", subject(c)+": several kinds of change"
			}
		}
		d.Rows = append(d.Rows, row)
	}
	bw := bufio.NewWriter(w)
	if err := reportTemplate.Execute(bw, d); err != nil {
		return err
	}
	return bw.Flush()
}

type htmlReport struct {
	Old, New, Summary string
	Differs           bool
	Keys              []string
	Rows              []htmlRow
	Entries           []htmlEntry
}

type htmlRow struct {
	Title, Patterns, NodeList string
	Whole                     string // "added"/"removed" for a group of nodes on one side only
	Cells                     []htmlCell
}

type htmlCell struct{ Kind, Title string }

type htmlEntry struct {
	ID                               int
	Subject, Path, What, Kind, Count string
	Patterns                         []string
	Groups                           string // indexes of the groups (rows) it touches
	Many                             bool   // more than one node: their list is folded
	Old, New                         *htmlSide
	Parts                            []string
}

type htmlSide struct {
	Value   string
	Elems   []htmlElem // instead of Value, for an array shown whole: its elements, those only on this side marked
	Long    bool       // folded
	Size    string
	Sources []htmlSource
}

type htmlElem struct {
	Text   string
	Marked bool
	Last   bool
}

// markElements shows the arrays of a changed array element by element,
// marking those only on one side: those outside a longest common
// subsequence of the two (when it is too large to match, those that
// differ at their index).
func markElements(c Change, old, new *htmlSide) {
	if c.Parts == nil || c.Old == nil || c.New == nil || c.Old.Secret || c.New.Secret {
		return
	}
	a, ok1 := c.Old.Value.([]any)
	b, ok2 := c.New.Value.([]any)
	if !ok1 || !ok2 {
		return
	}
	inA, inB := make([]bool, len(a)), make([]bool, len(b))
	if m := lcs(a, b); m != nil || len(a)*len(b) <= maxLCS {
		for _, p := range m {
			inA[p[0]], inB[p[1]] = true, true
		}
	} else {
		for i := range min(len(a), len(b)) {
			inA[i] = format.Identical(a[i], b[i])
			inB[i] = inA[i]
		}
	}
	for _, s := range []struct {
		side *htmlSide
		vs   []any
		in   []bool
	}{{old, a, inA}, {new, b, inB}} {
		s.side.Elems = make([]htmlElem, len(s.vs))
		for i, v := range s.vs {
			s.side.Elems[i] = htmlElem{Text: display(v), Marked: !s.in[i], Last: i == len(s.vs)-1}
		}
		s.side.Long = len(s.vs) > 12
		if s.side.Long {
			s.side.Size = plural(len(s.vs), "element")
		}
	}
}

type htmlSource struct{ Where, Link, Level string }

// htmlFold is the length past which a value is folded.
const htmlFold = 400

func htmlSideOf(s *Side, old bool, links *Links) *htmlSide {
	if s == nil {
		return nil
	}
	v := sideValue(s)
	if s.Err == nil && !s.Secret {
		v = foldValue(v, 60)
	}
	h := &htmlSide{Value: v, Long: len(v) > htmlFold || strings.Count(v, "\n") > 12}
	if h.Long {
		h.Size = plural(strings.Count(v, "\n")+1, "line")
	}
	for _, src := range s.Sources {
		h.Sources = append(h.Sources, htmlSource{Where: lineOf(src.Pos), Link: links.url(old, src.File, src.Line), Level: where(src)})
	}
	return h
}

// entryGroups lists the groups holding nodes, as "0 3 7".
func entryGroups(nodes []string, groupOf map[string]int) string {
	seen := map[int]bool{}
	var b strings.Builder
	for _, n := range nodes {
		gi := groupOf[n]
		if seen[gi] {
			continue
		}
		seen[gi] = true
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(gi))
	}
	return b.String()
}

// kindClass is the kind of change a colour stands for in the HTML map.
func kindClass(c Change) string {
	if c.Kind == ErrorChanged {
		return "error-" + errorKind(c)
	}
	return string(c.Kind)
}
