package compiler

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/compiler/internal/share"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// TestInterpolatePlannedIsInterpolate: a data file's values are
// interpolated along the plan found when the file was loaded (planFor,
// interpolatePlanned), which must give exactly what walking the value
// (interpolate) gives: the same values, keys and key order, also for
// hashes large enough to be indexed and for interpolated keys that
// collide with others.
func TestInterpolatePlannedIsInterpolate(t *testing.T) {
	hash := func(kv ...any) *format.Hash {
		h := format.NewHash(len(kv) / 2)
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	big := func(at ...int) *format.Hash {
		h := format.NewHash(12)
		for i := range 12 {
			var v any = int64(i)
			for _, a := range at {
				if a == i {
					v = fmt.Sprintf("v%d-%%{facts.role}", i)
				}
			}
			h.Set(fmt.Sprintf("k%02d", i), v)
		}
		return h
	}
	values := []any{
		"plain",
		"%{facts.role}",
		"a%{}b%{ :: }c%{literal('%')}{x}%{scope('facts.role')}-%{ facts.role }",
		"unclosed %{facts.role",
		[]any{"%{::dc} then %{", hash("k", "%{facts.nosuch}")},
		[]any{"a", "%{facts.role}", int64(1), []any{"%{::dc}"}},
		hash("a", "x", "b", "%{facts.role}", "c", int64(3)),
		hash("a", hash("b", "%{::dc}", "c", []any{"%{facts.role}", "y"}), "d", true),
		big(0), big(3, 11), big(),
		hash("a", big(5), "b", "%{facts.role}"),
		// Interpolated keys: the copy is rebuilt; a key that becomes
		// another keeps the first one's place and takes the later value.
		hash("%{facts.role}", "1", "web", "2", "z", "%{::dc}"),
		hash("web", "first", "%{facts.role}", "second"),
		hash("x", hash("%{::dc}-%{facts.role}", int64(1))),
	}
	facts := hash("role", "web", "dc", "ams")
	changed := 0
	for _, v := range values {
		n := &nodeRun{w: newWorker(), scope: newScope("n1", "production", facts, nil),
			stack: lookupStack{names: make([]string, 0, 8)}, warned: map[string]bool{}, memo: map[string]memoEntry{}}
		n.interp.n = n
		before := ruby.Inspect(v)
		want, werr := n.interp.interpolate(v, true)
		got, gerr := n.interp.interpolatePlanned(v, planFor(v), true)
		if share.ErrText(werr) != share.ErrText(gerr) || !format.Identical(want, got) {
			t.Errorf("%s: planned %s (%v), walked %s (%v)", before, ruby.Inspect(got), gerr, ruby.Inspect(want), werr)
		}
		if ruby.Inspect(v) != before {
			t.Errorf("%s: interpolation changed the data file's value to %s", before, ruby.Inspect(v))
		}
		if ruby.Inspect(got) != before {
			changed++
		}
	}
	if changed < len(values)-3 { // "plain", big() and the unclosed string stay
		t.Errorf("%d values of %d interpolated to something else", changed, len(values))
	}
}

// TestJoinTexts checks the texts interpolation writes: the right string,
// its bytes in one allocation, and one more for boxing it as a value.
func TestJoinTexts(t *testing.T) {
	for _, tc := range []struct {
		s     string
		texts []string
		want  string
	}{
		{"%{a}", []string{"x"}, "x"},
		{"web-%{trusted.certname}.example.com", []string{"node01.example.org"}, "web-node01.example.org.example.com"},
		{"%{a}-%{b}/%{c}", []string{"1", "", "three"}, "1-/three"},
		{"-Dnode=%{trusted.certname}", []string{strings.Repeat("n", 300)}, "-Dnode=" + strings.Repeat("n", 300)},
		{"%{a}", []string{""}, ""},
	} {
		exprs := scanExprs(nil, tc.s, nil)
		size := len(tc.s)
		for i, e := range exprs {
			size += len(tc.texts[i]) - (e.end - e.start)
		}
		got := joinTexts(tc.s, exprs, tc.texts, size)
		if got != tc.want {
			t.Errorf("joinTexts(%q, %q) = %q, want %q", tc.s, tc.texts, got, tc.want)
		}
		if tc.want == "" {
			continue
		}
		var v any
		if a := testing.AllocsPerRun(100, func() { v = joinTexts(tc.s, exprs, tc.texts, size) }); a > 2 {
			t.Errorf("joinTexts(%q) as a value: %v allocations, want at most 2", tc.s, a)
		}
		_ = v
	}
}

// TestPlanNodeKids: a container's plan lists exactly the elements that
// read what is the node's alone (nodeKids), the only ones rebind rebuilds.
func TestPlanNodeKids(t *testing.T) {
	h := format.NewHash(4)
	h.Set("role", "%{facts.role}")
	h.Set("plain", "x")
	h.Set("name", "%{trusted.certname}")
	h.Set("deep", []any{1, []any{"%{facts.networking.hostname}"}})
	h.Set("%{trusted.certname}", "key only") // a key naming the node: its value does not
	for _, tc := range []struct {
		name string
		v    any
		want []int32
	}{
		{"array", []any{"a", "%{trusted.certname}", "%{facts.role}", []any{"b", "%{::hostname}"}, 7}, []int32{1, 3}},
		{"hash", h, []int32{2, 3}},
		{"none naming the node", []any{"%{facts.role}", "%{::datacenter}"}, nil},
	} {
		p := planFor(tc.v)
		if p == nil {
			t.Fatalf("%s: no plan", tc.name)
		}
		if !slices.Equal(p.nodeKids, tc.want) {
			t.Errorf("%s: nodeKids %v, want %v", tc.name, p.nodeKids, tc.want)
		}
	}
	if p := planFor(h); p.kids[3].nodeKids == nil || !slices.Equal(p.kids[3].nodeKids, []int32{1}) {
		t.Errorf("nested array: nodeKids %v, want [1]", p.kids[3].nodeKids)
	}
}
