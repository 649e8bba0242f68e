package format_test

import (
	"testing"

	"github.com/hieracc/hieracc/format"
)

func TestBundleLayers(t *testing.T) {
	b := &format.Bundle{Modules: []format.Module{{Name: "apache"}, {Name: "ntp"}, {Name: "zfs"}}}
	for _, tt := range []struct {
		mod  string
		want int // index in Modules; -1 for none
	}{
		{"", -1}, {"apache", 0}, {"ntp", 1}, {"zfs", 2}, {"a", -1}, {"nginx", -1}, {"zzz", -1},
	} {
		m, layers := b.Module(tt.mod), b.Layers(tt.mod)
		if layers[format.LayerGlobal] != &b.Global || layers[format.LayerEnvironment] != &b.Env {
			t.Errorf("Layers(%q): global and environment are not the bundle's", tt.mod)
		}
		switch {
		case tt.want < 0 && (m != nil || layers[format.LayerModule] != nil):
			t.Errorf("Module(%q) = %v, module layer %p: want none", tt.mod, m, layers[format.LayerModule])
		case tt.want >= 0 && (m != &b.Modules[tt.want] || layers[format.LayerModule] != &b.Modules[tt.want].Hierarchy):
			t.Errorf("Module(%q) = %v: want module %d", tt.mod, m, tt.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = b.Layers("ntp") }); n != 0 {
		t.Errorf("Layers allocates %v times", n)
	}
}
