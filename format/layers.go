package format

// Module is the module named name, or nil when the bundle has none (or
// name is ""). It allocates nothing: Modules are sorted by name.
func (b *Bundle) Module(name string) *Module {
	if name == "" {
		return nil
	}
	lo, hi := 0, len(b.Modules)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b.Modules[m].Name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(b.Modules) && b.Modules[lo].Name == name {
		return &b.Modules[lo]
	}
	return nil
}

// Layers are the hierarchies a key of module mod ("" for a key outside
// any module) is searched in, indexed by Layer: the global, the
// environment and the module's, nil when the bundle has no module mod.
func (b *Bundle) Layers(mod string) [3]*Hierarchy {
	layers := [3]*Hierarchy{&b.Global, &b.Env, nil}
	if m := b.Module(mod); m != nil {
		layers[LayerModule] = &m.Hierarchy
	}
	return layers
}
