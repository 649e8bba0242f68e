package diagnostics

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/format"
)

// Severity says whether a Diagnostic fails the run.
type Severity int

const (
	Error   Severity = iota // Puppet fails the lookup
	Warning                 // Puppet only logs it
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one error or warning, with where it arose: the one type
// from the reader of a file (a data file, hiera.yaml, a facts file) to
// the line the CLI prints. format.Error is its record in a bundle.
type Diagnostic struct {
	Severity Severity
	// Pos is where it arose: its File is relative to the input FS root
	// (or a facts file as the caller named it, or a URL) and may be
	// empty.
	format.Pos
	Level   string // hierarchy level name, when it applies
	Node    string // certname, when it applies
	Key     string // lookup key, when it applies
	Message string
}

// String renders the diagnostic as
// `file:line:col: [warning: ]message (key "k", level "l", node n)`: the
// position as far as it is known (nothing when its file is not), and only
// the key, level and node that apply.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Pos.IsValid() {
		b.WriteString(d.Pos.String())
		b.WriteString(": ")
	}
	if d.Severity == Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Message)
	var ctx []string
	if d.Key != "" {
		ctx = append(ctx, fmt.Sprintf("key %q", d.Key))
	}
	if d.Level != "" {
		ctx = append(ctx, fmt.Sprintf("level %q", d.Level))
	}
	if d.Node != "" {
		ctx = append(ctx, "node "+d.Node)
	}
	if len(ctx) > 0 {
		b.WriteString(" (" + strings.Join(ctx, ", ") + ")")
	}
	return b.String()
}

// Error is String, so that a reader can return a diagnostic as an error
// (errors.As finds it, with its position).
func (d Diagnostic) Error() string { return d.String() }

// Compare orders diagnostics by position, then severity, node, key,
// level and message.
func Compare(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
		cmp.Compare(a.Severity, b.Severity),
		cmp.Compare(a.Node, b.Node),
		cmp.Compare(a.Key, b.Key),
		cmp.Compare(a.Level, b.Level),
		cmp.Compare(a.Message, b.Message),
	)
}

// Sort orders diagnostics by position and drops exact duplicates (the
// same broken file reached by many nodes is reported once per node only).
func Sort(ds []Diagnostic) []Diagnostic {
	slices.SortFunc(ds, Compare)
	return slices.Compact(ds)
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(ds []Diagnostic) bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == Error })
}
