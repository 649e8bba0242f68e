// Package bundlediff compares two outputs of `hieracc compile` (folders of
// node bundles) the way a reviewer reads a data change: per node and key,
// what was added, removed or changed, down to the path inside the value, and
// where the old and the new value came from.
//
// Compare verifies every bundle (length and digest, see format.Verify),
// does not decode those whose digests match (equal digests mean equal
// data), and decodes of the others what the nodes do not share: their fast
// parts and the details of the keys that differ, each slice's view and
// shared details file once (share.go); or, for a node or module error, the
// whole bundles through the runtime package, as agents do. A bundle that
// cannot be read or is damaged fails the comparison.
// Each distinct change is reported once with the nodes it touches, so a
// change to common data reads once however many nodes it reaches; those
// nodes are summarised by patterns of their names (Summarise).
// WriteText, WriteJSON and WriteMarkdown render a Report.
//
// What counts as a change is what `puppet lookup` would answer differently:
// a key's value (as merged under its lookup_options) or its error message.
// A value that only moved to another file or line is not a change.
package bundlediff

import (
	"errors"
	"path"
	"sync"

	"github.com/hieracc/hieracc/format"
)

// ErrNothingToCompare is returned (wrapped, with the reason) when a
// comparison would cover no node: an empty folder, or --node globs that
// match nothing. It is never "no differences".
var ErrNothingToCompare = errors.New("nothing to compare")

// Filter selects what is compared. Globs follow path.Match; a list that is
// empty selects everything.
type Filter struct {
	Nodes      []string // compare only the nodes matching one of these
	Keys       []string // report only the keys matching one of these
	IgnoreKeys []string // never report the keys matching one of these
	// ShowSecrets shows the values of secret keys (format.Key.Secret),
	// which are otherwise reported as one change of the whole key, with
	// their sources but without their values.
	ShowSecrets bool
	// IgnoreOrder leaves out the changes that only reorder an array's
	// elements or a hash's keys (as dyff's --ignore-order-changes).
	IgnoreOrder bool
}

// Validate reports the first malformed glob.
func (f Filter) Validate() error {
	for _, list := range [][]string{f.Nodes, f.Keys, f.IgnoreKeys} {
		for _, g := range list {
			if _, err := path.Match(g, ""); err != nil {
				return &GlobError{Glob: g, Err: err}
			}
		}
	}
	return nil
}

// GlobError is a malformed glob of a Filter.
type GlobError struct {
	Glob string
	Err  error
}

func (e *GlobError) Error() string { return "malformed glob " + quote(e.Glob) + ": " + e.Err.Error() }
func (e *GlobError) Unwrap() error { return e.Err }

// Report is the result of a comparison.
type Report struct {
	// Old and New name the two sides in the output: the folders compared,
	// unless the caller names them otherwise (revisions, for --git).
	Old, New string
	// OldRevision and NewRevision name the source each side was compiled
	// from (format.Header.SourceRevision, a git commit say); "" when
	// unknown, or when the bundles of a side disagree.
	OldRevision, NewRevision string
	Summary                  Summary
	// Entries hold each distinct change once, with the nodes it touches,
	// sorted by key, module and path, then by nodes touched (most first)
	// and first node. This is what the renderers show.
	Entries []Entry
	// Groups hold the nodes with differences, those with the same changes
	// together, sorted by their first node; the nodes only in OLD and only
	// in NEW are groups of their own.
	Groups []Group
	// Nodes are every node of the comparison, OLD's and NEW's, sorted:
	// what Pattern.Of counts.
	Nodes []string
}

// Summary counts the nodes and keys of a comparison.
type Summary struct {
	Nodes     int // nodes compared: those in both OLD and NEW
	Changed   int // of those, nodes with at least one change
	Unchanged int
	OnlyOld   int // nodes only in OLD
	OnlyNew   int // nodes only in NEW
	// KeysChanged counts distinct keys changed on at least one node
	// (node- and module-level errors are not keys).
	KeysChanged int
	// ErrorsAppeared, ErrorsGone and ErrorsChanged count the distinct
	// changes (entries) where an error appeared (a key, a module or the
	// node now fails, or a failing key was added), disappeared, or changed
	// its message. ErrorNodes counts the nodes with at least one error
	// that appeared or changed.
	ErrorsAppeared, ErrorsGone, ErrorsChanged int
	ErrorNodes                                int
}

// Differs reports whether the comparison found any difference.
func (r *Report) Differs() bool {
	return r.Summary.Changed > 0 || r.Summary.OnlyOld > 0 || r.Summary.OnlyNew > 0
}

// Exit codes, as diff(1)'s.
const (
	ExitSame    = 0 // no differences
	ExitDiffers = 1 // differences
	ExitTrouble = 2 // the comparison could not be made
)

// ExitCode maps a comparison's outcome to diff(1)'s exit code.
func ExitCode(r *Report, err error) int {
	switch {
	case err != nil || r == nil:
		return ExitTrouble
	case r.Differs():
		return ExitDiffers
	}
	return ExitSame
}

// Status says how a group's nodes differ.
type Status string

const (
	NodeChanged Status = "changed"  // in both, with changes
	NodeOnlyOld Status = "only_old" // only in OLD
	NodeOnlyNew Status = "only_new" // only in NEW
)

// Group is a set of nodes that differ in the same way.
type Group struct {
	Status  Status
	Nodes   []string // sorted
	Changes []Change // for NodeChanged: sorted by key, then path
}

// Entry is one distinct change and the nodes it touches. Two nodes share
// an entry when everything shown about the change is the same, sources
// included.
type Entry struct {
	Change
	Nodes []string // sorted
}

// Kind is the kind of a change.
type Kind string

const (
	Added   Kind = "added"   // a key, hash entry or array element only in NEW
	Removed Kind = "removed" // only in OLD
	Changed Kind = "changed" // a scalar's value changed, its type did not
	// TypeChanged: the value's type changed (443 to "443", a hash to an
	// array); the values are not compared further.
	TypeChanged Kind = "type"
	// Reordered: a hash holds the same keys in another order (Side.Keys
	// hold the orders; changes to the entries are reported on their own),
	// or an array the same elements in another order (Side.Value holds
	// the arrays, Parts the moves).
	Reordered Kind = "order"
	// ErrorChanged: an error appeared, disappeared, or its message changed.
	ErrorChanged Kind = "error"
)

// Change is one difference of one node.
type Change struct {
	// Key is the key changed; "" for a node-level error (every lookup on
	// the node fails) and a module-level one (every key of Module fails).
	Key    string
	Module string // for a module-level error only
	// Path is a JSON Pointer (RFC 6901) into the key's value; "" is the
	// whole value. Array indexes are NEW's, except for a removed element.
	Path string
	Kind Kind
	// Old and New are the two sides; nil on the side where the key or
	// path is absent (or, for an error change, where there is no error).
	Old, New *Side
	// Parts are the element-level changes of a change shown whole: a
	// changed array is one change at the array's path whose sides hold the
	// whole old and new arrays, and Parts the changes inside it, at their
	// own paths; so are two or more changes in one record (a hash below
	// the key's own). Nil for any other change.
	Parts []Change
}

// Side is one side of a change.
type Side struct {
	Value any           // the value at Path, when Err is nil and Keys is nil
	Keys  []any         // Reordered: the hash's keys, in order
	Err   *format.Error // the recorded failure
	// Secret: the key holds text decrypted from ENC[...], and Value and
	// Keys are left out (Filter.ShowSecrets shows them).
	Secret bool
	// Sealed: the key is sealed to the node (format version 4), and Secret
	// too: its value is not in the bundle, and its sources are unknown.
	Sealed bool
	// Sources are the contributions the value came from: the one that won
	// for a first-found key, every one holding Path for a merged key.
	Sources []Source
}

// Source is where a value came from, as the compiler recorded it.
type Source struct {
	Layer  format.Layer
	Module string // for the module layer
	Level  string // hierarchy level name
	// Pos is the key's position: its File is the data file, as compile
	// names it (env/data/common.yaml); Line and Column are 0 if unknown.
	format.Pos
	// Default is set when the value comes from the module's
	// default_hierarchy (no regular level has the key).
	Default bool
}

// revisions gathers the source revision of each side's bundles
// (format.Header.SourceRevision): one that all of a side's bundles share,
// else "".
type revisions struct {
	mu       sync.Mutex
	seen     [2]bool
	rev      [2]string
	disagree [2]bool
}

// note records the revision of one bundle of OLD (old) or NEW.
func (r *revisions) note(old bool, rev string) {
	i := 1
	if old {
		i = 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !r.seen[i]:
		r.seen[i], r.rev[i] = true, rev
	case r.rev[i] != rev:
		r.disagree[i] = true
	}
}

func (r *revisions) get() (old, new string) {
	for i := range 2 {
		if r.disagree[i] {
			r.rev[i] = ""
		}
	}
	return r.rev[0], r.rev[1]
}
