package format

import (
	"regexp"
	"sync"
	"sync/atomic"
)

// OptionScope holds the lookup_options entries of one set of options (the
// global and environment layers', a module's, or a module's
// default_hierarchy's) whose merge Puppet rejects, for keys the bundle
// does not hold (format version 4). Puppet builds a key's merge strategy
// from its lookup_options before it searches, so such an entry fails the
// lookup of a key that no level holds, where a bundle has nothing else to
// say. A key the bundle holds records its own failure (Key.Err).
//
// The entries that apply to a key follow Puppet's rule, as Match does: a
// literal entry named as the key's root wins, else the first pattern that
// matches it. So Literal and Pattern also hold valid entries (Err nil)
// where they hide an invalid one: a literal entry of a name that a failing
// pattern matches first, and the patterns before the last failing one.
type OptionScope struct {
	// Module is "" for the global and environment layers' options, which
	// apply to keys outside any module with a hierarchy; else the module's
	// name: its options (combined with the environment's) apply to its
	// keys. A bundle holds a module's scope whenever the environment's
	// scope is present and the module has a hierarchy, even with no entry.
	Module string
	// Default marks the options of the module's default_hierarchy, which
	// apply only to lookups it answers; a bundle holds such a scope only
	// for a module whose default_hierarchy has levels.
	Default bool
	// Err, when set, fails every lookup that reads the scope: its
	// lookup_options cannot be read (a default_hierarchy only; the others'
	// failures are the node's and the module's errors).
	Err     *Error
	Literal []OptionEntry // sorted by Name, unique
	Pattern []OptionEntry // in the order they are tried
}

// OptionEntry is one lookup_options entry: a key name, or a regexp
// starting with ^, and the failure of its merge (nil: it is valid).
type OptionEntry struct {
	Name string
	Err  *Error
	re   *regexp.Regexp // a pattern's, compiled when decoded
}

// Match returns the failure of the entry that applies to the root key
// name, nil when the entry is valid or none applies.
func (s *OptionScope) Match(root string) *Error {
	if s.Err != nil {
		return s.Err
	}
	lo, hi := 0, len(s.Literal)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.Literal[m].Name < root {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.Literal) && s.Literal[lo].Name == root {
		return s.Literal[lo].Err
	}
	for i := range s.Pattern {
		p := &s.Pattern[i]
		re := p.re
		if re == nil {
			re, _ = OptionsPattern(p.Name)
		}
		if re != nil && re.MatchString(root) {
			return p.Err
		}
	}
	return nil
}

// OptionsPattern compiles a lookup_options entry that starts with ^ into
// the regexp keys are matched against (unanchored at the end unless it
// says $), once per process for the first maxPatterns patterns. It is the
// one implementation of that match, for the compiler and the runtime
// alike.
func OptionsPattern(src string) (*regexp.Regexp, error) {
	if v, ok := patterns.Load(src); ok {
		if re, ok := v.(*regexp.Regexp); ok {
			return re, nil
		}
		return nil, v.(error)
	}
	var v any
	re, err := regexp.Compile(src)
	if v = re; err != nil {
		v = err
	}
	if patternCount.Add(1) <= maxPatterns {
		patterns.Store(src, v)
	}
	return re, err
}

// patterns caches OptionsPattern's results: string → *regexp.Regexp or
// error. A control repo has a few dozen patterns; a server that reads the
// bundles of compile after compile for months stops caching at
// maxPatterns rather than grow.
var (
	patterns     sync.Map
	patternCount atomic.Int32
)

const maxPatterns = 4096

// FindOptionScope returns the scope of scopes (sorted as Bundle.Options
// are) for module and dflt, nil when there is none.
func FindOptionScope(scopes []OptionScope, module string, dflt bool) *OptionScope {
	for i := range scopes {
		if s := &scopes[i]; s.Module == module && s.Default == dflt {
			return s
		}
	}
	return nil
}

// readOptionScopes reads the body's options section (version 4): the
// scopes sorted by module then default, unique, each pattern compiled (a
// pattern that does not compile is a corrupt bundle).
func (x *Index) readOptionScopes(r *reader) error {
	n, err := r.arrayLen()
	if err != nil {
		return err
	}
	x.Options = make([]OptionScope, n)
	for i := range x.Options {
		s := &x.Options[i]
		if err := r.arrayOf(5, "options scope"); err != nil {
			return err
		}
		if s.Module, err = r.str(); err != nil {
			return err
		}
		if s.Default, err = r.boolean(); err != nil {
			return err
		}
		if i > 0 {
			p := &x.Options[i-1]
			if s.Module < p.Module || s.Module == p.Module && (p.Default || !s.Default) {
				return r.errorf("options scopes not sorted: %q after %q", s.Module, p.Module)
			}
		}
		e, err := r.optRef(len(x.errs), "error")
		if err != nil {
			return err
		}
		s.Err = x.err(e)
		if s.Literal, err = x.readOptionEntries(r, false); err != nil {
			return err
		}
		if s.Pattern, err = x.readOptionEntries(r, true); err != nil {
			return err
		}
	}
	return nil
}

func (x *Index) readOptionEntries(r *reader, patterns bool) ([]OptionEntry, error) {
	n, err := r.arrayLen()
	if err != nil {
		return nil, err
	}
	out := make([]OptionEntry, n)
	for i := range out {
		o := &out[i]
		if err := r.arrayOf(2, "options entry"); err != nil {
			return nil, err
		}
		if o.Name, err = r.str(); err != nil {
			return nil, err
		}
		e, err := r.optRef(len(x.errs), "error")
		if err != nil {
			return nil, err
		}
		o.Err = x.err(e)
		if !patterns {
			if i > 0 && o.Name <= out[i-1].Name {
				return nil, r.errorf("options entries not sorted: %q after %q", o.Name, out[i-1].Name)
			}
			continue
		}
		if o.re, err = regexp.Compile(o.Name); err != nil {
			return nil, r.errorf("options pattern %q: %v", o.Name, err)
		}
	}
	return out, nil
}
