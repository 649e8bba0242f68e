package runtime_test

import (
	"errors"
	"net/netip"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime"
)

type limits struct {
	CPU float64
	Mem uint16 `json:"mem"`
}

type app struct {
	Name    string
	Port    int
	Tags    []string
	Limits  *limits
	Addr    netip.Addr `json:"listen"`
	Ignored string     `json:"-"`
	Extra   any
	Labels  map[string]string
}

func decodeBundle(t *testing.T) *runtime.Bundle {
	return open(t, &format.Bundle{Node: "n", Keys: []format.Key{
		{Name: "app", Value: H("name", "web", "port", int64(8080), "tags", A("a", "b"), "limits", H("cpu", int64(2), "mem", int64(512)),
			"listen", "10.0.0.1", "Ignored", "x", "extra", H("z", int64(1), "a", nil), "labels", H("tier", "front"), "unknown", int64(1))},
		{Name: "bad", Value: H("port", "80", "limits", H("mem", int64(70000)), "tags", A("a", int64(1)))},
		{Name: "f", Value: 1.5},
		{Name: "fkeys", Value: H(1.0, "x")},
		{Name: "list", Value: A("x", "y")},
		{Name: "nil", Value: nil},
		{Name: "s", Value: "str"},
	}})
}

func TestDecode(t *testing.T) {
	b := decodeBundle(t)
	var got app
	got.Ignored = "kept"
	if err := b.Decode("app", &got); err != nil {
		t.Fatal(err)
	}
	want := app{Name: "web", Port: 8080, Tags: []string{"a", "b"}, Limits: &limits{CPU: 2, Mem: 512},
		Addr: netip.MustParseAddr("10.0.0.1"), Ignored: "kept", Extra: H("z", int64(1), "a", nil), Labels: map[string]string{"tier": "front"}}
	if d := cmp.Diff(want, got, Cmp, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); d != "" {
		t.Errorf("Decode (-want +got):\n%s", d)
	}

	errs := []struct {
		key  string
		into any
		want string
	}{
		{"bad", &struct{ Port int }{}, `runtime: key "bad" at /port: cannot decode String into int`},
		{"bad", &struct{ Limits limits }{}, `runtime: key "bad" at /limits/mem: cannot decode Integer into uint16: out of range`},
		{"bad", &struct{ Tags []string }{}, `runtime: key "bad" at /tags/1: cannot decode Integer into string`},
		{"app", &[]string{}, `runtime: key "app": cannot decode Struct into []string`},
		{"f", new(int), `runtime: key "f": cannot decode Float into int`},
		{"fkeys", &map[float64]int{}, `runtime: key "fkeys" at /1.0: cannot decode String into int`}, // a Float key named as Ruby's to_s and format.Hash.MarshalJSON name it
	}
	for _, e := range errs {
		err := b.Decode(e.key, e.into)
		var de *runtime.DecodeError
		if !errors.As(err, &de) || err.Error() != e.want {
			t.Errorf("Decode(%q, %T) = %v, want %s", e.key, e.into, err, e.want)
		}
	}
	if err := b.Decode("missing", &got); !errors.Is(err, runtime.ErrNotFound) {
		t.Errorf("Decode(missing) = %v, want ErrNotFound", err)
	}
	if err := b.Decode("s", got); err == nil {
		t.Error("Decode into a non-pointer: no error")
	}
	p := &limits{}
	if err := b.Decode("nil", &p); err != nil || p != nil {
		t.Errorf("Decode(undef) into a pointer = %v, %v; want nil", p, err)
	}
}

func TestGetters(t *testing.T) {
	b := decodeBundle(t)
	check := func(name string, got any, err error, want any, wantErr string) {
		t.Helper()
		if wantErr != "" {
			if err == nil || err.Error() != wantErr {
				t.Errorf("%s: error %v, want %s", name, err, wantErr)
			}
			return
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, %v; want %v", name, got, err, want)
		}
	}
	s, err := b.LookupString("s")
	check("LookupString", s, err, "str", "")
	s, err = b.LookupString("f")
	check("LookupString(Float)", s, err, nil, `runtime: key "f": cannot decode Float into string`)
	s, err = b.LookupString("nil")
	check("LookupString(Undef)", s, err, nil, `runtime: key "nil": cannot decode Undef into string`)
	f, err := b.LookupFloat("f")
	check("LookupFloat", f, err, 1.5, "")
	i, err := b.LookupInt("s")
	check("LookupInt(String)", i, err, nil, `runtime: key "s": cannot decode String into int64`)
	ss, err := b.LookupStrings("list")
	check("LookupStrings", ss, err, []string{"x", "y"}, "")
	_, err = b.LookupBool("missing")
	check("LookupBool(missing)", nil, err, nil, "Function lookup() did not find a value for the name 'missing'")
	h, err := b.LookupHash("app")
	if err != nil || h.Len() != 9 {
		t.Errorf("LookupHash = %v, %v", h, err)
	}
	_, err = b.LookupHash("list")
	check("LookupHash(Array)", nil, err, nil, `runtime: key "list": cannot decode Tuple into *format.Hash`)
}
