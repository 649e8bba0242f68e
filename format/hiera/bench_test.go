package hiera

import (
	"testing"

	"github.com/hieracc/hieracc/format"
)

func benchLayers() ([3]*format.Hierarchy, Leaf) {
	layers := [3]*format.Hierarchy{hier(1), hier(1, 1, 2, 1, 1), hier(1, 1)}
	common := h("ntp", h("servers", a("a", "b"), "opts", h("iburst", true)), "pkgs", a("vim", "curl"))
	node := h("ntp", h("servers", a("c"), "opts", h("prefer", "c")), "pkgs", a("--vim", "htop"))
	leaf := func(layer format.Layer, level, loc int) (any, bool, error) {
		switch {
		case layer == format.LayerEnvironment && level == 0:
			return node, true, nil
		case layer == format.LayerEnvironment && level == 4:
			return common, true, nil
		}
		return nil, false, nil
	}
	return layers, leaf
}

func BenchmarkResolveFirst(b *testing.B) {
	layers, leaf := benchLayers()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Resolve(mFirst, layers, leaf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolveDeepKnockout(b *testing.B) {
	layers, leaf := benchLayers()
	m := format.Merge{Strategy: "deep", KnockoutPrefix: "--"}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Resolve(m, layers, leaf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolveUnique(b *testing.B) {
	layers := [3]*format.Hierarchy{hier(1), hier(1, 1, 2, 1, 1), hier(1, 1)}
	leaf := func(layer format.Layer, level, loc int) (any, bool, error) {
		if layer == format.LayerEnvironment && level%2 == 0 {
			return a("a", "b", "c"), true, nil
		}
		return nil, false, nil
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Resolve(mUnique, layers, leaf); err != nil {
			b.Fatal(err)
		}
	}
}
