package bundlediff

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	goldenfile "github.com/hieracc/hieracc/cmd/hieracc/internal/golden"
	"github.com/hieracc/hieracc/format/encode"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
)

// update rewrites golden files in place: go test ./cmd/hieracc/internal/bundlediff -update
var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Levels of the test bundles' environment hierarchy.
const (
	lvNode   = 0
	lvRole   = 1
	lvCommon = 2
)

// node returns a bundle with a three-level environment hierarchy (the
// node's own file, its role's, common) and the keys given, in order.
func node(name string, keys ...format.Key) *format.Bundle {
	return &format.Bundle{
		Node:        name,
		Environment: "production",
		Revision:    "test",
		Env: format.Hierarchy{Present: true, Levels: []format.Level{
			{Name: "Per-node data", Locations: []format.Location{{Path: "env/data/nodes/" + name + ".yaml", Exists: true}}},
			{Name: "Role", Locations: []format.Location{{Path: "env/data/roles/web.yaml", Exists: true}}},
			{Name: "Common", Locations: []format.Location{{Path: "env/data/common.yaml", Exists: true}}},
		}},
		Keys: keys,
	}
}

// key is a first-found key whose value comes from the contributions given
// (the first wins); with none, from common.yaml line 1.
func key(name string, v any, cs ...format.Contribution) format.Key {
	if len(cs) == 0 {
		cs = []format.Contribution{at(lvCommon, 1, v)}
	}
	return format.Key{Name: name, Value: v, Contributions: cs}
}

// deep is a deep-merged key.
func deep(name string, v any, cs ...format.Contribution) format.Key {
	k := key(name, v, cs...)
	k.Merge = format.Merge{Strategy: "deep"}
	return k
}

// failed is a key whose lookup fails with msg.
func failed(name, msg string) format.Key {
	e := &format.Error{Message: msg, Pos: format.Pos{File: "env/data/common.yaml", Line: 3, Column: 1}, Level: "Common"}
	return format.Key{Name: name, Err: e, Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: lvCommon, Line: 3, Column: 1, Err: e}}}
}

// at is a contribution of the environment layer.
func at(level, line int, v any) format.Contribution {
	return format.Contribution{Layer: format.LayerEnvironment, Level: level, Line: line, Column: 1, Value: v}
}

// hash builds an ordered hash from key, value pairs.
func hash(kv ...any) *format.Hash {
	h := format.NewHash(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func arr(v ...any) []any { return v }

// writeDir writes bundles into a new folder and returns it.
func writeDir(t testing.TB, bundles ...*format.Bundle) string {
	t.Helper()
	dir := t.TempDir()
	for _, b := range bundles {
		writeBundle(t, dir, b)
	}
	return dir
}

func writeBundle(t testing.TB, dir string, b *format.Bundle) {
	t.Helper()
	data, err := encode.Encode(b)
	if err != nil {
		t.Fatalf("encoding %s: %v", b.Node, err)
	}
	if err := os.WriteFile(filepath.Join(dir, b.Node+".bundle"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// src is the Source of a contribution made by at.
func src(level, line int, nodeName string) Source {
	s := Source{Layer: format.LayerEnvironment, Pos: format.Pos{Line: line, Column: 1}}
	switch level {
	case lvNode:
		s.Level, s.File = "Per-node data", "env/data/nodes/"+nodeName+".yaml"
	case lvRole:
		s.Level, s.File = "Role", "env/data/roles/web.yaml"
	case lvCommon:
		s.Level, s.File = "Common", "env/data/common.yaml"
	}
	return s
}

// cmpOpts compare values as the format does: hashes with their key order.
var cmpOpts = cmp.Options{
	cmp.Comparer(func(a, b *format.Hash) bool { return format.Identical(a, b) }),
}

// golden compares got with a golden file; -update rewrites it.
func golden(t *testing.T, file, got string) {
	t.Helper()
	goldenfile.Check(t, file, got, *update)
}
