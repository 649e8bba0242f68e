package bundlediff

import (
	"bufio"
	_ "embed"
	"html/template"
	"io"
	"strings"
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
			Nodes: e.Nodes, NodeList: strings.Join(e.Nodes, "\n"),
			Old: htmlSideOf(c.Old, true, o.Links), New: htmlSideOf(c.New, false, o.Links),
		}
		for _, p := range c.Parts {
			he.Parts = append(he.Parts, partText(c, p))
		}
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
	Patterns, Nodes                  []string
	NodeList                         string
	Old, New                         *htmlSide
	Parts                            []string
}

type htmlSide struct {
	Value   string
	Long    bool // folded
	Size    string
	Sources []htmlSource
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

// kindClass is the kind of change a colour stands for in the HTML map.
func kindClass(c Change) string {
	if c.Kind == ErrorChanged {
		return "error-" + errorKind(c)
	}
	return string(c.Kind)
}
