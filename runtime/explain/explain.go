// Package explain says where a key's value comes from, as puppet lookup
// --explain does: the values each data file holds for it, and every
// layer, level and data file searched. hieracc lookup --explain and
// hieracc serve's pages print it; an agent that only looks keys up does
// without it.
package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
	"github.com/hieracc/hieracc/runtime"
)

// Explanation says where a key's value comes from, for --explain: the
// values each location holds, and every layer, level and data file
// searched for the key, as puppet lookup --explain shows them.
type Explanation struct {
	Root  string       // the root key the sources hold
	Merge format.Merge // the merge lookup_options configure
	// MergeFrom is the lookup_options entry that configures Merge and
	// where it is written; nil when none applies (or in a bundle of format
	// version 1 or 2).
	MergeFrom *format.OptionsEntry
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
	// Searched are the layers searched for the key, in Puppet's order:
	// global, environment, then the key's module (when the key is in a
	// module's namespace), then that module's default_hierarchy (when it
	// has one).
	Searched []LayerSearch
}

// LayerSearch is one layer's hierarchy as searched for a key.
type LayerSearch struct {
	Layer  format.Layer
	Module string // for format.LayerModule: the key's module
	// Default: this is the module's default_hierarchy; its Source indexes
	// are into Explanation.Defaults.
	Default bool
	// Missing: the key names a module the bundle does not have (Puppet's
	// "Module not found").
	Missing bool
	// Present is false when the layer has no hiera.yaml: it holds no data.
	Present bool
	// Err fails every lookup of the module's keys (a broken hiera.yaml).
	Err    *format.Error
	Levels []LevelSearch
}

// LevelSearch is one hierarchy level as searched for a key.
type LevelSearch struct {
	Name      string
	Locations []LocationSearch // may be empty (mapped_paths over [])
}

// LocationSearch is one data file a level names for the node: its path
// after interpolation, what the hierarchy wrote for it (see
// format.Location.Original; "" in bundles of format versions 1 and 2), whether
// it exists, and the index of its value for the key in Sources (or
// Defaults), -1 when it has none.
type LocationSearch struct {
	Path     string
	Original string
	Exists   bool
	Source   int
}

// Source is one location's value for a key, with its provenance.
type Source struct {
	Layer  format.Layer
	Module string // for format.LayerModule: the module
	Level  string // hierarchy level name
	// Pos is the key's position: its File is the data file, relative
	// to the layer's root; Line and Column are 0 if unknown.
	format.Pos
	Value any
	Err   *format.Error // interpolating the value failed
}

// Key returns the sources of key's root key in b and the layers searched.
// A key the bundle has no data for gives a *runtime.NotFoundError
// (errors.Is runtime.ErrNotFound), with an Explanation that still lists
// the layers searched; recorded errors are not returned (they are what an
// explanation is for), except a malformed key and a key sealed to the
// node in a bundle opened without its private key (*runtime.SealedError).
func Key(b *runtime.Bundle, key string) (*Explanation, error) {
	k, err := hiera.ParseKey(key)
	if err != nil {
		return nil, err
	}
	d, err := b.Details()
	if err != nil {
		return nil, err
	}
	e := &Explanation{Root: k.Root}
	var dk *format.Key
	if i, ok := slices.BinarySearchFunc(d.Keys, k.Root, func(k format.Key, name string) int { return strings.Compare(k.Name, name) }); ok {
		dk = &d.Keys[i]
		if dk.Sealed { // and not opened: nothing to show
			return nil, &runtime.SealedError{Key: key, Node: b.Header().Node}
		}
		e.Merge, e.MergeFrom, e.DefaultMerge = dk.Merge, dk.MergeFrom, dk.DefaultMerge
		e.Secret = dk.Secret || dk.Sensitive()
	}
	mod := d.Module(k.Module)
	if dk != nil {
		if e.Sources, err = sources(dk.Contributions, d.Layers(k.Module), k.Module); err != nil {
			return nil, fmt.Errorf("explain: key %q: %w", k.Root, err)
		}
	}
	var def *format.Hierarchy
	if mod != nil {
		def = mod.Default
	}
	if dk != nil && len(dk.Defaults) > 0 {
		if e.Defaults, err = sources(dk.Defaults, [3]*format.Hierarchy{nil, nil, def}, k.Module); err != nil {
			return nil, fmt.Errorf("explain: key %q: defaults: %w", k.Root, err)
		}
	}
	var cs, defs []format.Contribution
	if dk != nil {
		cs, defs = dk.Contributions, dk.Defaults
	}
	e.Searched = append(e.Searched,
		searched(format.LayerGlobal, &d.Global, cs),
		searched(format.LayerEnvironment, &d.Env, cs))
	switch {
	case k.Module == "":
	case mod == nil:
		e.Searched = append(e.Searched, LayerSearch{Layer: format.LayerModule, Module: k.Module, Missing: true})
	default:
		s := searched(format.LayerModule, &mod.Hierarchy, cs)
		s.Module, s.Err = mod.Name, mod.Err
		e.Searched = append(e.Searched, s)
		if def != nil {
			s := searched(format.LayerModule, def, defs)
			s.Module, s.Default = mod.Name, true
			e.Searched = append(e.Searched, s)
		}
	}
	if dk == nil {
		return e, &runtime.NotFoundError{Names: []string{key}}
	}
	return e, nil
}

// searched is layer's hierarchy h, each location linked to its
// contribution in cs (by index), if any.
func searched(layer format.Layer, h *format.Hierarchy, cs []format.Contribution) LayerSearch {
	s := LayerSearch{Layer: layer, Present: h.Present, Levels: make([]LevelSearch, len(h.Levels))}
	for i, lvl := range h.Levels {
		ls := LevelSearch{Name: lvl.Name, Locations: make([]LocationSearch, len(lvl.Locations))}
		for j, loc := range lvl.Locations {
			ls.Locations[j] = LocationSearch{Path: loc.Path, Original: loc.Original, Exists: loc.Exists, Source: -1}
			for c := range cs {
				if cs[c].Layer == layer && cs[c].Level == i && cs[c].Location == j {
					ls.Locations[j].Source = c
					break
				}
			}
		}
		s.Levels[i] = ls
	}
	return s
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
			Layer: c.Layer,
			Level: lvl.Name,
			Pos:   format.Pos{File: lvl.Locations[c.Location].Path, Line: c.Line, Column: c.Column},
			Value: c.Value,
			Err:   c.Err,
		}
		if c.Layer == format.LayerModule {
			out[i].Module = module
		}
	}
	return out, nil
}
