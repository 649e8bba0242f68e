package compiler

import (
	"fmt"
	"testing"

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
			stack: make([]string, 0, 8), warned: map[string]bool{}, memo: map[string]memoEntry{}}
		before := ruby.Inspect(v)
		want, werr := n.interpolate(v, true)
		got, gerr := n.interpolatePlanned(v, planFor(v), true)
		if errText(werr) != errText(gerr) || !format.Identical(want, got) {
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
