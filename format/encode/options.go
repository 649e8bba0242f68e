package encode

import (
	"fmt"

	"github.com/hieracc/hieracc/format"
)

// options adds the errors of b's options scopes to the error table, and
// appends their references to ids, in the order appendOptionScopes writes
// them.
func (t *errTable) options(ids []int32, scopes []format.OptionScope) []int32 {
	for i := range scopes {
		s := &scopes[i]
		ids = append(ids, t.add(s.Err))
		for _, es := range [2][]format.OptionEntry{s.Literal, s.Pattern} {
			for j := range es {
				ids = append(ids, t.add(es[j].Err))
			}
		}
	}
	return ids
}

// checkOptionScopes refuses scopes that readers would reject.
func checkOptionScopes(scopes []format.OptionScope) error {
	for i := range scopes {
		s := &scopes[i]
		if i > 0 {
			p := &scopes[i-1]
			if s.Module < p.Module || s.Module == p.Module && (p.Default || !s.Default) {
				return fmt.Errorf("format: Options not sorted and unique: %q after %q", s.Module, p.Module)
			}
		}
		for j := 1; j < len(s.Literal); j++ {
			if s.Literal[j-1].Name >= s.Literal[j].Name {
				return fmt.Errorf("format: Options of %q: literal entries not sorted and unique: %q before %q", s.Module, s.Literal[j-1].Name, s.Literal[j].Name)
			}
		}
		for _, p := range s.Pattern {
			if _, err := format.OptionsPattern(p.Name); err != nil {
				return fmt.Errorf("format: Options of %q: pattern %q: %v", s.Module, p.Name, err)
			}
		}
	}
	return nil
}

// appendOptionScopes writes the body's options section; ids are the
// error references errTable.options gave.
func appendOptionScopes(w []byte, scopes []format.OptionScope, ids []int32) []byte {
	w = appendArrayLen(w, len(scopes))
	for i := range scopes {
		s := &scopes[i]
		w = appendArrayLen(w, 5)
		w = appendString(w, s.Module)
		w = appendBool(w, s.Default)
		w, ids = appendRef(w, ids[0]), ids[1:]
		for _, es := range [2][]format.OptionEntry{s.Literal, s.Pattern} {
			w = appendArrayLen(w, len(es))
			for j := range es {
				w = appendArrayLen(w, 2)
				w = appendString(w, es[j].Name)
				w, ids = appendRef(w, ids[0]), ids[1:]
			}
		}
	}
	return w
}
