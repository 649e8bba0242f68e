package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/render"
)

// sensitiveBundle has a key converted to Sensitive, holding a hash.
func sensitiveBundle(t *testing.T) *runtime.Bundle {
	t.Helper()
	h := format.NewHash(2)
	h.Set("user", "admin")
	h.Set("password", "hunter2")
	b := &format.Bundle{Node: "n", Environment: "production", Revision: "r",
		Env: format.Hierarchy{Present: true, Levels: []format.Level{{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}}}},
		Keys: []format.Key{
			{Name: "db", Value: h, ConvertTo: []format.Value{"Sensitive"},
				Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Value: h}}},
			{Name: "plain", Value: "x"},
		}}
	data, err := encode.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := runtime.OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

func TestSensitive(t *testing.T) {
	b := sensitiveBundle(t)
	for _, key := range []string{"db", "db.password"} {
		for _, merge := range []*format.Merge{nil, {Strategy: "deep"}} {
			v, err := b.LookupWith(key, runtime.Options{Merge: merge})
			if err != nil {
				t.Fatal(err)
			}
			s, ok := v.(*runtime.Sensitive)
			if !ok {
				t.Fatalf("%s (merge %v) = %T, want *runtime.Sensitive", key, merge, v)
			}
			for _, out := range []string{s.String(), fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s %q %x", s, s, s, s, s, s), fmt.Sprint([]any{s})} {
				if strings.Contains(out, "hunter2") || !strings.Contains(out, runtime.Redacted) {
					t.Errorf("printed %q", out)
				}
			}
			if j, _ := json.Marshal(s); string(j) != `"Sensitive [value redacted]"` {
				t.Errorf("JSON %s", j)
			}
			if key == "db.password" && s.Unwrap() != "hunter2" {
				t.Errorf("Unwrap = %v", s.Unwrap())
			}
		}
	}
	if v, _ := b.Lookup("plain"); v != "x" {
		t.Errorf("plain = %v", v)
	}
	if _, err := b.Lookup("nope"); !errors.Is(err, runtime.ErrNotFound) {
		t.Errorf("nope: %v", err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = b.Lookup("db") }); n != 0 {
		t.Errorf("Lookup of a Sensitive key allocates %v times", n)
	}
	for f, want := range map[render.Format]string{render.JSON: "\"Sensitive [value redacted]\"\n", render.Text: "Sensitive [value redacted]\n"} {
		v, _ := b.Lookup("db")
		if out, err := render.As(v, f); err != nil || string(out) != want {
			t.Errorf("render.As(%v) = %q, %v; want %q", f, out, err, want)
		}
	}
}
