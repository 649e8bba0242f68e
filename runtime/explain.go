package runtime

import (
	"fmt"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// Explanation says where a key's value comes from, for --explain.
type Explanation struct {
	Root  string       // the root key the sources hold
	Merge format.Merge // the merge lookup_options configure
	// Sources are the locations holding the key, highest priority first.
	Sources []Source
	// DefaultMerge and Defaults are the same for the module's
	// default_hierarchy, consulted only when Sources is empty.
	DefaultMerge format.Merge
	Defaults     []Source
	// Secret: the key's data holds text decrypted from ENC[...] (see
	// format.Key.Secret), or its lookups return a Sensitive; show where it
	// came from, not its text.
	Secret bool
}

// Source is one location's value for a key, with its provenance.
type Source struct {
	Layer  format.Layer
	Module string // for format.LayerModule: the module
	Level  string // hierarchy level name
	Path   string // data file, relative to the layer's root
	Line   int    // position of the key in the file; 0 if unknown
	Column int
	Value  any
	Err    *format.Error // interpolating the value failed
}

// Explain returns the sources of key's root key. A key the bundle has no
// data for gives ErrNotFound; recorded errors are not returned (they are
// what an explanation is for), except a malformed key.
func (b *Bundle) Explain(key string) (*Explanation, error) {
	k, err := hiera.ParseKey(key)
	if err != nil {
		return nil, err
	}
	i := b.x.Find(k.Root)
	if i < 0 {
		return nil, &NotFoundError{Names: []string{key}}
	}
	d, err := b.Details()
	if err != nil {
		return nil, err
	}
	dk := &d.Keys[i]
	e := &Explanation{Root: k.Root, Merge: dk.Merge, DefaultMerge: dk.DefaultMerge, Secret: dk.Secret || dk.Sensitive()}
	mod := module(d, k.Module)
	layers := [3]*format.Hierarchy{&d.Global, &d.Env, nil}
	if mod != nil {
		layers[2] = &mod.Hierarchy
	}
	if e.Sources, err = sources(dk.Contributions, layers, k.Module); err != nil {
		return nil, fmt.Errorf("runtime: key %q: %w", k.Root, err)
	}
	if len(dk.Defaults) > 0 {
		var def *format.Hierarchy
		if mod != nil {
			def = mod.Default
		}
		if e.Defaults, err = sources(dk.Defaults, [3]*format.Hierarchy{nil, nil, def}, k.Module); err != nil {
			return nil, fmt.Errorf("runtime: key %q: defaults: %w", k.Root, err)
		}
	}
	return e, nil
}

// sources resolves contributions' level and location indexes. They are not
// checked when a bundle is decoded, so a bad one is an error here.
func sources(cs []format.Contribution, layers [3]*format.Hierarchy, module string) ([]Source, error) {
	out := make([]Source, len(cs))
	for i, c := range cs {
		h := layers[c.Layer]
		if h == nil || c.Level >= len(h.Levels) || c.Location >= len(h.Levels[c.Level].Locations) {
			return nil, fmt.Errorf("contribution %d: no location %d of level %d in the %s layer", i, c.Location, c.Level, c.Layer)
		}
		lvl := &h.Levels[c.Level]
		out[i] = Source{
			Layer:  c.Layer,
			Level:  lvl.Name,
			Path:   lvl.Locations[c.Location].Path,
			Line:   c.Line,
			Column: c.Column,
			Value:  c.Value,
			Err:    c.Err,
		}
		if c.Layer == format.LayerModule {
			out[i].Module = module
		}
	}
	return out, nil
}
