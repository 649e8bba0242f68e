package bundlediff

// Stage: say where a value came from, from the contributions compile
// recorded in the bundle.

import (
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// sources lists the contributions behind key k's value v at path in bundle
// b. For a first-found key that is the winning contribution. For a merged
// key it is the contributions that hold path, or only the highest-priority
// one when it wins alone (a scalar, or an entry of a shallow "hash" merge);
// all of them for the whole value, or when none holds path. For a failed
// key it is the contributions whose interpolation failed, if any.
func sources(b *format.Bundle, k *format.Key, path []string, v any) []Source {
	cs, merge, def := k.Contributions, k.Merge, false
	if len(cs) == 0 && len(k.Defaults) > 0 {
		// Only the module's default_hierarchy has the key.
		cs, merge, def = k.Defaults, k.DefaultMerge, true
	}
	if len(cs) == 0 {
		return nil
	}
	var picked []format.Contribution
	switch {
	case k.Err != nil:
		for _, c := range cs {
			if c.Err != nil {
				picked = append(picked, c)
			}
		}
	case merge.Strategy.IsFirst():
		picked = cs[:1]
	case len(path) > 0:
		for _, c := range cs {
			if c.Err != nil {
				continue
			}
			at, ok, exact := reach(c.Value, path, v)
			if !ok {
				continue
			}
			if len(picked) == 0 && exact && (merge.Strategy == format.MergeHash || !isContainer(at)) {
				picked = append(picked, c)
				break
			}
			picked = append(picked, c)
		}
	}
	if len(picked) == 0 {
		picked = cs
	}

	mod := hiera.ModuleOf(k.Name)
	layers := b.Layers(mod)
	if m := b.Module(mod); m != nil && def {
		layers = [3]*format.Hierarchy{nil, nil, m.Default}
	}
	out := make([]Source, 0, len(picked))
	for _, c := range picked {
		if int(c.Layer) >= len(layers) || layers[c.Layer] == nil {
			continue // a malformed bundle: no provenance rather than a panic
		}
		h := layers[c.Layer]
		if c.Level < 0 || c.Level >= len(h.Levels) || c.Location < 0 || c.Location >= len(h.Levels[c.Level].Locations) {
			continue
		}
		lvl := &h.Levels[c.Level]
		s := Source{Layer: c.Layer, Level: lvl.Name, Pos: format.Pos{File: lvl.Locations[c.Location].Path, Line: c.Line, Column: c.Column}, Default: def}
		if c.Layer == format.LayerModule {
			s.Module = mod
		}
		out = append(out, s)
	}
	return out
}

// reach follows path into a contribution's value: ok when the value can
// be where a merged value's entry at path came from, with at the entry
// when exact (reached through hashes only). Array positions of a merged
// array say nothing about a contribution's: an array on the way is ok, an
// array at the end is ok when it holds v (a scalar stands for itself, as
// in a unique merge).
func reach(c any, path []string, v any) (at any, ok, exact bool) {
	for i, tok := range path {
		last := i == len(path)-1
		switch x := c.(type) {
		case *format.Hash:
			found := false
			for j := range x.Len() {
				if keyToken(x.Key(j)) == tok {
					c, found = x.Value(j), true
					break
				}
			}
			if !found {
				return nil, false, false
			}
		case []any:
			if !last {
				return nil, true, false
			}
			for _, e := range x {
				if format.Equal(e, v) {
					return e, true, false
				}
			}
			return nil, false, false
		default:
			return x, last && format.Equal(x, v), false
		}
	}
	return c, true, true
}

func isContainer(v any) bool {
	switch v.(type) {
	case []any, *format.Hash:
		return true
	}
	return false
}
