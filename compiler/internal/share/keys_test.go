package share

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// fakeNode is a node whose keys read variables: key k's value is its
// name followed by the values of reads[k], in order. Its data is one
// file, which every node shares.
type fakeNode struct {
	run      Run
	vars     map[string]any
	keys     []string
	reads    map[string][]string
	slice    bool     // whether it describes a slice (else Slice fails)
	compiled []string // the keys compiled afresh
	list     []format.Key
	key      format.Key
}

var _ Node = (*fakeNode)(nil)

func (n *fakeNode) KeyList() *[]format.Key { return &n.list }
func (n *fakeNode) KeyNames(bool) []string { return n.keys }
func (n *fakeNode) Slice(s *SliceText) bool {
	if !n.slice || !s.Options(1) {
		return false
	}
	_, ok := s.File(Pos{Layer: 1}, 7, n.keys, false)
	return ok
}
func (n *fakeNode) NewTable([]string) any           { return nil }
func (n *fakeNode) Shape(b []byte, _ string) []byte { return append(b, 's') }
func (n *fakeNode) KeySig(_, mod string) ([]uint32, bool) {
	return n.run.w.KeySig(n.run.ShapeID(mod), format.Merge{}, nil, 1, func(int) Loc { return Loc{Layer: 1, File: 7} }), true
}
func (n *fakeNode) SlotSig(_ *Table, _ int, name, mod string) ([]uint32, bool) {
	return n.KeySig(name, mod)
}
func (n *fakeNode) Compile(name, _ string) (*format.Key, *format.Error) {
	n.compiled = append(n.compiled, name)
	v := name
	for _, r := range n.reads[name] {
		n.run.Record(Dep{Name: r, Value: n.vars[r]})
		v += fmt.Sprintf(" %v", n.vars[r])
	}
	n.key = format.Key{Name: name, Value: v}
	return &n.key, nil
}
func (n *fakeNode) CompileSlot(_ *Table, _ int, name, mod string, _ bool) (*format.Key, *format.Error) {
	return n.Compile(name, mod)
}
func (n *fakeNode) Templatable(*Table, int, string) bool { panic("no key of a fake node is per-node") }
func (n *fakeNode) CompileTemplate(*Table, int, string, string) (*format.Key, *format.Error, *Template) {
	panic("no key of a fake node is per-node")
}
func (n *fakeNode) FromTemplate(*Table, int, string, string, *Template) (*format.Key, *format.Error, bool) {
	panic("no key of a fake node is per-node")
}
func (n *fakeNode) Reread(_ string, d *Dep) (any, error) { return n.vars[d.Name], nil }
func (n *fakeNode) Replay(diagnostics.Diagnostic)        {}
func (n *fakeNode) Warnings() int                        { return 0 }
func (n *fakeNode) Stack() []string                      { return nil }
func (n *fakeNode) BeginKey()                            {}
func (n *fakeNode) SetChecks([]string)                   {}
func (n *fakeNode) DropChecks()                          {}
func (n *fakeNode) Tested() []string                     { return nil }
func (n *fakeNode) Report(*format.Error, string)         {}

// TestKeysReuseWhereReadsHold: a node takes another node's result of a
// key where every variable the result read has the same value, and
// compiles it where one differs; a result that read nothing holds for
// every node. The keys are those compiling gives, in order, with a slice
// table or without one.
func TestKeysReuseWhereReadsHold(t *testing.T) {
	roles := []string{"web", "web", "db", "web"}
	for _, tc := range []struct {
		name  string
		slice bool
		want  [][]string // the keys each node compiles
	}{
		{"slice", true, [][]string{{"a", "b", "c"}, nil, {"a"}, nil}},
		{"general", false, [][]string{{"a", "b", "c"}, nil, {"a"}, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &Worker{}
			w.StartRun()
			for i, role := range roles {
				n := &fakeNode{vars: map[string]any{"role": role, "dc": "ams"}, keys: []string{"a", "b", "c"},
					reads: map[string][]string{"a": {"role"}, "c": {"dc", "dc"}}, slice: tc.slice}
				n.run.Start(w, n)
				got := slices.Clone(n.run.Keys(nil))
				want := []format.Key{{Name: "a", Value: "a " + role}, {Name: "b", Value: "b"}, {Name: "c", Value: "c ams ams"}}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("node %d: keys (-want +got):\n%s", i, d)
				}
				if d := cmp.Diff(tc.want[i], n.compiled); d != "" {
					t.Errorf("node %d: keys compiled (-want +got):\n%s", i, d)
				}
			}
		})
	}
}
