package share

import (
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// Node is what sharing needs of the node being compiled: the compiler
// implements it (compiler/share.go). Sharing decides what is reused; the
// node compiles what is not, reads its own variables and lookups again to
// check a result, and describes its data files. A Table's Ext and a
// slot's position in it stand for what the node keeps per slot of a
// slice (the key's locations and options): sharing never reads it.
type Node interface {
	// KeyList is the node's list of compiled keys, which Run.Keys fills
	// in order: the node's nested lookups read the keys compiled so far.
	KeyList() *[]format.Key
	// KeyNames lists the keys of the node's data files, sorted: with
	// slice, those of the files Slice did not mask (for a new Table);
	// without, all of them: the node has no slice, and none of its files
	// is its own (even those Slice masked, when the worker keeps no more
	// tables).
	KeyNames(slice bool) []string
	// Slice describes the node's layers and data files to s, position by
	// position (see SliceText). It reports false when the node cannot
	// share a slice: its options or files depend on it in ways a table
	// cannot describe.
	Slice(s *SliceText) bool
	// NewTable returns what the node keeps for a new table of its
	// slice's keys (Table.Ext): their locations in the files Slice did
	// not mask.
	NewTable(keys []string) any
	// Shape appends to b the text of the shape of the layers a key of
	// module mod is searched in (how many levels and locations each has,
	// and the lookup_options it is resolved under; see Run.ShapeID).
	Shape(b []byte, mod string) []byte
	// KeySig returns the signature (Worker.KeySig) of a key no slice
	// holds; false when its options are the node's own or invalid, and
	// nothing is shared.
	KeySig(name, mod string) ([]uint32, bool)
	// SlotSig finds the options of the key of slot j of t, keeping them
	// for the nodes that compile it, and returns its signature; false when
	// its options are invalid.
	SlotSig(t *Table, j int, name, mod string) ([]uint32, bool)
	// Compile compiles a key afresh, finding its locations. The key it
	// returns (nil for a key no location holds), as those of CompileSlot
	// and the templates', is the node's until its next compile: Run
	// copies it.
	Compile(name, mod string) (*format.Key, *format.Error)
	// CompileSlot compiles the key of slot j of t afresh from the slot's
	// locations and options, with those of the node's per-node files too
	// when own is set (a per-node file holds the key as well).
	CompileSlot(t *Table, j int, name, mod string, own bool) (*format.Key, *format.Error)
	// Templatable reports whether the key of a per-node slot j of t (one
	// whose results read the node's name) could have a template: its
	// contributions could be read again for another node.
	Templatable(t *Table, j int, mod string) bool
	// CompileTemplate compiles the key of a per-node slot j of t afresh,
	// making a template of what it read when another node could take it
	// (see Run.TemplateVars; nil otherwise).
	CompileTemplate(t *Table, j int, name, mod string) (*format.Key, *format.Error, *Template)
	// FromTemplate compiles the key of a per-node slot j of t from its
	// template tm, whose variables hold on the node: false when a string
	// naming the node fails to interpolate (the key is then compiled as
	// usual, which reports it). When tm.First is set, only the key's
	// Value and Contributions are set: the rest is tm.First's.
	FromTemplate(t *Table, j int, name, mod string, tm *Template) (*format.Key, *format.Error, bool)
	// Reread reads d again on the node, inside a lookup of top ("" for
	// none): a variable's value, or a nested lookup's answer.
	Reread(top string, d *Dep) (any, error)
	// Replay reports a warning a reused result gave on its node.
	Replay(d diagnostics.Diagnostic)
	// Warnings counts the warnings the node raised so far.
	Warnings() int
	// Stack is the node's lookup stack.
	Stack() []string
	// BeginKey starts a top-level key: nothing tested against the lookup
	// stack yet.
	BeginKey()
	// SetChecks records the names the key being compiled tested against
	// the lookup stack, as reusing a result does; DropChecks forgets them
	// (the key is not kept); Tested returns those of the last key kept.
	SetChecks(tested []string)
	DropChecks()
	Tested() []string
	// Report reports a key's error.
	Report(err *format.Error, key string)
}

// Run is sharing as one node sees it: what it keeps of the node (the reads
// and warnings of the key being compiled, recorded by the semantic stages'
// hooks Record and Warned), and the methods that act for the node.
type Run struct {
	w *Worker
	n Node
	// serial numbers the worker's nodes: what is found out for a node
	// (varSet) says for which.
	serial uint64
	// delta are the sorted keys of the node's per-node files (see slice).
	delta  []string
	shapes map[string]uint32 // ShapeID by module
	deps   *[]Dep            // reads of the key being compiled, when recording
	nested int               // depth of nested lookups (their reads are not recorded)
	// warns collects the warnings of the key being compiled, so that a
	// node reusing the result reports them too; quiet > 0 while checking
	// whether a result can be reused (its warnings are replayed instead).
	warns *[]diagnostics.Diagnostic
	quiet int
}

// Start starts w's sharing for a new node n.
func (r *Run) Start(w *Worker, n Node) {
	w.nodes++
	*r = Run{w: w, n: n, serial: w.nodes}
}

// Serial numbers the node among its worker's: what is found out for one
// node and kept across nodes (a template's variables) says for which.
func (r *Run) Serial() uint64 { return r.serial }

// Record notes a read the current top-level key depends on (a hook of
// interpolation). Reads made inside a nested lookup are covered by the
// lookup's own.
func (r *Run) Record(d Dep) {
	if r.deps != nil && r.nested == 0 {
		if d.Lookup {
			if s := r.n.Stack(); len(s) > 1 {
				d.Stack = cloneOrNil(s)
			}
		}
		*r.deps = append(*r.deps, d)
	}
}

// Nested is called with +1 when a nested lookup (or one of
// lookup_options) starts, -1 when it ends: its reads are its own.
func (r *Run) Nested(d int) { r.nested += d }

// Warned keeps a warning the node raised (a hook of the node's warnings):
// a result reused elsewhere replays it.
func (r *Run) Warned(d diagnostics.Diagnostic) {
	if r.warns != nil {
		*r.warns = append(*r.warns, d)
	}
}

// Quiet reports whether warnings are silenced: a result is being checked,
// and its warnings are replayed if it is taken.
func (r *Run) Quiet() bool { return r.quiet > 0 }

// Silence silences warnings (+1) or ends that (-1).
func (r *Run) Silence(d int) { r.quiet += d }

// Capture starts recording the reads and warnings of a key's
// computation; Captured ends it and returns them, in the worker's
// buffers until the next capture.
func (r *Run) Capture() {
	w := r.w
	w.deps, w.warns = w.deps[:0], w.warns[:0]
	r.deps, r.warns = &w.deps, &w.warns
}

// Captured ends Capture.
func (r *Run) Captured() ([]Dep, []diagnostics.Diagnostic) {
	r.deps, r.warns = nil, nil
	return r.w.deps, r.w.warns
}

// recording reports whether a key's reads are being recorded, or a nested
// lookup or a check is under way: what is computed then is that key's.
func (r *Run) recording() bool {
	return r.deps != nil || r.warns != nil || r.nested > 0 || r.quiet > 0
}

// ShapeID numbers the shape of the layers a key of module mod is searched
// in (see Node.Shape): merges nest by that shape (Puppet's merge_single
// applies where a level has one location), so two nodes share a key only
// when their shapes are equal. The shape holds the lookup_options the key
// is resolved under too: the entry that sets a key's merge is part of its
// result (format.Key.MergeFrom), and two slices can set the same merge in
// different files. Computed once per node and module.
func (r *Run) ShapeID(mod string) uint32 {
	if id, ok := r.shapes[mod]; ok {
		return id
	}
	r.w.shape = r.n.Shape(r.w.shape[:0], mod)
	id := r.w.shapeID(r.w.shape)
	if r.shapes == nil {
		r.shapes = map[string]uint32{}
	}
	r.shapes[mod] = id
	return id
}
