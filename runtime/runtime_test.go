package runtime_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/format/ptype"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
)

func open(t testing.TB, b *format.Bundle) *runtime.Bundle {
	t.Helper()
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

// testBundle is Sample plus keys that exercise dotted lookups.
func testBundle() *format.Bundle {
	b := Sample()
	b.Keys = append(b.Keys,
		format.Key{Name: "a", Value: H("b", "from a")},
		format.Key{Name: "a.b", Value: "literal a.b"},
		format.Key{Name: "lookup_options", Value: H("x", H("merge", "deep"))},
		format.Key{Name: "ntp::cfg", Value: H("regular", int64(1)),
			Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 3, Value: H("regular", int64(1))}},
			Defaults:      []format.Contribution{{Layer: format.LayerModule, Value: H("fallback", int64(2))}}},
	)
	sortKeys(b.Keys)
	return b
}

func sortKeys(ks []format.Key) {
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j].Name < ks[j-1].Name; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
}

// result is what a lookup gave, for table tests.
type result struct {
	Value any
	Err   string // error message, "" for none
	Is    error  // sentinel the error must match
}

func got(v any, err error) result {
	if err != nil {
		return result{Err: err.Error(), Is: errors.Unwrap(err)}
	}
	return result{Value: v}
}

// notFound stands for Puppet's not-found message naming the key looked up,
// an error matching ErrNotFound.
var notFound = result{Err: "(not found)", Is: runtime.ErrNotFound}

// notFoundFor is what notFound stands for when key is looked up.
func notFoundFor(key string, want result) result {
	if want.Is == runtime.ErrNotFound {
		return result{Err: "Function lookup() did not find a value for the name '" + key + "'"}
	}
	return want
}

func TestLookup(t *testing.T) {
	b := open(t, testBundle())
	commonErr := "Unknown merge strategy: 'bogus'"
	tests := []struct {
		key  string
		want result
	}{
		{"ntp::servers", result{Value: A("0.pool.ntp.org", "1.pool.ntp.org")}},
		{"nothing", result{Value: nil}},
		{"floats", result{Value: Sample().Keys[2].Value}},
		{"missing", notFound},
		{"", notFound},
		{"ntp::missing", notFound},
		{"broken::anything", result{Err: "all lookup_options keys must start with module name 'broken'"}},
		{"bad::merge", result{Err: commonErr}},
		{"bad::merge.x", result{Err: commonErr}},
		{"lookup_options", notFound},
		{"lookup_options.x", notFound},
		{"users.alice.uid", result{Value: int64(1001)}},
		{"users.alice.groups.1", result{Value: "dev"}},
		{"users.alice.groups.7", notFound},
		{"users.carol", notFound},
		{"classes.0", result{Value: "base"}},
		{"'users'.bob.uid", result{Value: int64(1002)}},
		{"a.b", result{Value: "from a"}},
		{"'a.b'", result{Value: "literal a.b"}},
		{"ntp::servers.name", result{Err: "Data Provider type mismatch: Got Array when a hash-like object was expected to access value using 'name' from key 'ntp::servers.name'"}},
		{"ntp::cfg.regular", result{Value: int64(1)}},
		{"ntp::cfg.fallback", result{Value: int64(2)}}, // dig fails in regular data: default_hierarchy
		{"ntp::cfg.neither", notFound},
		{"a..b", result{Err: "Syntax error in key: 'a..b'"}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			v, err := b.Lookup(tt.key)
			if (tt.want.Is == runtime.ErrNotFound) != errors.Is(err, runtime.ErrNotFound) {
				t.Errorf("Lookup(%q): errors.Is(%v, ErrNotFound) = %v", tt.key, err, !(tt.want.Is == runtime.ErrNotFound))
			}
			r := got(v, err)
			r.Is = nil
			if d := cmp.Diff(notFoundFor(tt.key, tt.want), r, Cmp); d != "" {
				t.Errorf("Lookup(%q) (-want +got):\n%s", tt.key, d)
			}
			r2 := got(b.LookupWith(tt.key, runtime.Options{}))
			r2.Is = nil
			if d := cmp.Diff(r, r2, Cmp); d != "" {
				t.Errorf("LookupWith(%q, none) differs from Lookup (-Lookup +LookupWith):\n%s", tt.key, d)
			}
		})
	}
}

func TestLookupErrors(t *testing.T) {
	b := open(t, testBundle())
	_, err := b.Lookup("missing")
	if !errors.Is(err, runtime.ErrNotFound) {
		t.Errorf("missing: %v is not ErrNotFound", err)
	}
	_, err = b.Lookup("bad::merge")
	var fe *format.Error
	if !errors.As(err, &fe) || fe.File != "data/common.yaml" || fe.Line != 3 || fe.Column != 5 || fe.Level != "Common" {
		t.Errorf("bad::merge: %#v, want a *format.Error with its position", err)
	}

	nodeErr := &format.Error{Message: "Unable to parse (data/bad.yaml): did not find expected key", Pos: format.Pos{File: "data/bad.yaml", Line: 2, Column: 1}}
	nb := testBundle()
	nb.NodeError = nodeErr
	n := open(t, nb)
	for _, key := range []string{"ntp::servers", "missing", "users.alice", "broken::x"} {
		if _, err := n.Lookup(key); !errors.As(err, &fe) || *fe != *nodeErr {
			t.Errorf("node error: Lookup(%q) = %v, want the node error", key, err)
		}
		if _, err := n.LookupWith(key, runtime.Options{Merge: &format.Merge{Strategy: "deep"}, HasDefault: true}); !errors.As(err, &fe) || *fe != *nodeErr {
			t.Errorf("node error: LookupWith(%q) = %v, want the node error", key, err)
		}
	}
	if _, err := n.Lookup("lookup_options"); !errors.Is(err, runtime.ErrNotFound) {
		t.Errorf("node error: lookup_options = %v, want ErrNotFound (checked first)", err)
	}
}

func TestLookupWith(t *testing.T) {
	b := open(t, testBundle())
	merge := func(s format.Strategy) *format.Merge { return &format.Merge{Strategy: s} }
	tests := []struct {
		name string
		key  string
		opts runtime.Options
		want result
	}{
		{"unique", "classes", runtime.Options{Merge: merge("unique")}, result{Value: A("web", "base", "ntp")}},
		{"first overrides lookup_options", "classes", runtime.Options{Merge: merge("first")}, result{Value: A("web")}},
		{"merge ignores the recorded error", "bad::merge", runtime.Options{Merge: merge("first")}, result{Value: "x"}},
		{"env and module", "ntp::servers", runtime.Options{Merge: merge("unique")}, result{Value: A("0.pool.ntp.org", "1.pool.ntp.org", "pool.ntp.org")}},
		{"contribution error", "users", runtime.Options{Merge: merge("deep")}, result{Err: "Interpolation failed"}},
		{"default", "missing", runtime.Options{Default: "d", HasDefault: true}, result{Value: "d"}},
		{"nil default", "missing", runtime.Options{HasDefault: true}, result{Value: nil}},
		{"default with merge", "missing", runtime.Options{Merge: merge("deep"), Default: int64(3), HasDefault: true}, result{Value: int64(3)}},
		{"default for lookup_options", "lookup_options", runtime.Options{Default: "d", HasDefault: true}, result{Value: "d"}},
		{"default after dig", "users.nobody", runtime.Options{Default: "d", HasDefault: true}, result{Value: "d"}},
		{"no default for errors", "bad::merge", runtime.Options{Default: "d", HasDefault: true}, result{Err: "Unknown merge strategy: 'bogus'"}},
		{"module error with merge", "broken::x", runtime.Options{Merge: merge("hash"), HasDefault: true}, result{Err: "all lookup_options keys must start with module name 'broken'"}},
		{"merged then dug", "ntp::servers.2", runtime.Options{Merge: merge("unique")}, result{Value: "pool.ntp.org"}},
		{"default_hierarchy ignores the lookup-time merge", "ntp::service", runtime.Options{Merge: merge("unique")}, result{Value: "ntpd"}},
		{"default_hierarchy after a failed dig", "ntp::cfg.fallback", runtime.Options{Merge: merge("hash")}, result{Value: int64(2)}},
		{"bad merge", "classes", runtime.Options{Merge: merge("bogus")}, result{Err: "Unknown merge strategy: 'bogus'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := got(b.LookupWith(tt.key, tt.opts))
			r.Is = nil
			if d := cmp.Diff(tt.want, r, Cmp); d != "" {
				t.Errorf("LookupWith(%q, %+v) (-want +got):\n%s", tt.key, tt.opts, d)
			}
		})
	}
}

func TestAllocs(t *testing.T) {
	b := open(t, testBundle())
	nb := testBundle()
	nb.NodeError = &format.Error{Message: "boom"}
	n := open(t, nb)
	sb := testBundle()
	sb.Modules[0].Err = nil // no module or node errors: the fast path
	s := open(t, sb)
	ob, _ := optionsBundle()
	o := open(t, ob)
	tests := []struct {
		name string
		b    *runtime.Bundle
		key  string
	}{
		{"value", s, "ntp::servers"},
		{"recorded error", s, "bad::merge"},
		{"not found", s, "ntp::nothing"},
		{"lookup_options", s, "lookup_options"},
		{"module errors present", b, "ntp::servers"},
		{"module error", b, "broken::x"},
		{"node error", n, "ntp::servers"},
		{"options present", o, "ntp::servers"},
		{"options: a failing entry", o, "rx"},
		{"options: not found", o, "zz"},
	}
	for _, tt := range tests {
		if a := testing.AllocsPerRun(100, func() { tt.b.Lookup(tt.key) }); a != 0 {
			t.Errorf("%s: Lookup(%q) allocates %v times", tt.name, tt.key, a)
		}
	}
}

func TestKeysAndHeader(t *testing.T) {
	b := open(t, Sample())
	var want []string
	for _, k := range Sample().Keys {
		want = append(want, k.Name)
	}
	if d := cmp.Diff(want, b.Keys()); d != "" {
		t.Errorf("Keys (-want +got):\n%s", d)
	}
	h := b.Header()
	if h.Node != "web01.example.com" || h.Environment != "production" || h.Revision != "rev-1" || h.Version != format.Version {
		t.Errorf("Header = %+v", h)
	}
	d, err := b.Details()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Sample(), d, Cmp); diff != "" {
		t.Errorf("Details (-want +got):\n%s", diff)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	data, err := encode.Encode(Sample())
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)-10] ^= 0x10
	v9 := append([]byte(nil), data...)
	v9[15] = 9
	tests := []struct {
		name string
		data []byte
		is   error
		want string
	}{
		{"truncated", data[:len(data)/2], format.ErrCorrupt, "truncated"},
		{"bit flip", flipped, format.ErrCorrupt, "does not match its SHA-256 digest"},
		{"version 9", v9, format.ErrVersion, "version 9"},
		{"not a bundle", []byte("---\nntp::servers: []\n"), format.ErrNotBundle, "bad magic"},
		{"empty", nil, format.ErrNotBundle, "too short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := runtime.Open(path)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open = %v, want %v mentioning %q and the path", err, tt.is, tt.want)
			}
		})
	}
	if _, err := runtime.Open(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(absent) = %v", err)
	}
}

// TestConcurrent is meant for -race: readers race the lazy decoding of the
// details.
func TestConcurrent(t *testing.T) {
	b := open(t, testBundle())
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				switch i % 4 {
				case 0:
					b.Lookup("ntp::servers")
				case 1:
					b.LookupWith("classes", runtime.Options{Merge: &format.Merge{Strategy: "unique"}})
				case 2:
					explain.Key(b, "users")
				case 3:
					b.Lookup("ntp::cfg.fallback")
				}
			}
		}()
	}
	wg.Wait()
	v, err := b.LookupWith("classes", runtime.Options{Merge: &format.Merge{Strategy: "unique"}})
	if d := cmp.Diff(A("web", "base", "ntp"), v); err != nil || d != "" {
		t.Errorf("after concurrent use: %v %s", err, d)
	}
}

// TestLookupNames pins lookup()'s precedence among names, override,
// default_values_hash, the default lambda and the default value. Each rule
// and message was checked with Puppet 7.23 (`puppet apply -e`, with
// common.yaml holding s: str), for example:
//
//	notice(lookup(["missing","s"], {override => {"missing" => "o"}}))  # o
//	notice(lookup(["s","x"], {override => {"x" => "o"}}))              # str
//	notice(lookup("missing", {default_values_hash => {"missing" => "dv"}, default_value => "d"}) |$n| {"lambda"})  # dv
//	notice(lookup(["m1","m2"], {default_value => "d"}) |$n| { $n })    # [m1, m2]
//	notice(lookup(["m1","m2"], {default_values_hash => {"m2" => 2, "m1" => 1}}))  # 1
//	lookup("s", {override => {"s" => 1}, value_type => String})
//	  # Value found for key 's' in override hash has wrong type, expects a String value, got Integer
//	lookup("missing", {default_values_hash => {"missing" => 1}, value_type => String})
//	  # Value found for key 'missing' in default values hash has wrong type, ...
//	lookup("missing", Integer) |$n| {"x"}
//	  # Value returned from default block has wrong type, expects an Integer value, got String
//	lookup(["a","b"])  # Function lookup() did not find a value for any of the names ['a', 'b']
func TestLookupNames(t *testing.T) {
	b := open(t, testBundle())
	fn := func(names []string) (any, error) { return "from func " + strings.Join(names, ","), nil }
	str := ptype.MustParse("String")
	tests := []struct {
		name  string
		names []string
		opts  runtime.Options
		want  result
	}{
		{"first name found", []string{"missing", "classes", "ntp::servers"}, runtime.Options{}, result{Value: A("base", "ntp", "web")}},
		{"none found", []string{"missing", "nope"}, runtime.Options{}, result{Err: "Function lookup() did not find a value for any of the names ['missing', 'nope']"}},
		{"one name", []string{"nope"}, runtime.Options{}, result{Err: "Function lookup() did not find a value for the name 'nope'"}},
		{"override beats the bundle", []string{"classes"}, runtime.Options{Override: map[string]any{"classes": "o"}}, result{Value: "o"}},
		{"override of a later name loses to an earlier found name", []string{"classes", "x"}, runtime.Options{Override: map[string]any{"x": "o"}}, result{Value: A("base", "ntp", "web")}},
		{"override of a later name beats a missing earlier name", []string{"missing", "x"}, runtime.Options{Override: map[string]any{"x": "o"}}, result{Value: "o"}},
		{"override nil is a value", []string{"classes"}, runtime.Options{Override: map[string]any{"classes": nil}}, result{Value: nil}},
		{"override beats a recorded error", []string{"bad::merge"}, runtime.Options{Override: map[string]any{"bad::merge": int64(1)}}, result{Value: int64(1)}},
		{"error stops the names", []string{"bad::merge", "classes"}, runtime.Options{}, result{Err: "Unknown merge strategy: 'bogus'"}},
		{"default_values_hash only when nothing found", []string{"classes"}, runtime.Options{DefaultValues: map[string]any{"classes": "dv"}}, result{Value: A("base", "ntp", "web")}},
		{"default_values_hash in name order", []string{"missing", "nope"}, runtime.Options{DefaultValues: map[string]any{"nope": "2", "missing": "1"}}, result{Value: "1"}},
		{"default_values_hash beats the lambda and the default", []string{"missing"}, runtime.Options{DefaultValues: map[string]any{"missing": "dv"}, DefaultFunc: fn, Default: "d", HasDefault: true}, result{Value: "dv"}},
		{"lambda beats the default", []string{"missing", "nope"}, runtime.Options{DefaultFunc: fn, Default: "d", HasDefault: true}, result{Value: "from func missing,nope"}},
		{"lambda's error", []string{"missing"}, runtime.Options{DefaultFunc: func([]string) (any, error) { return nil, errors.New("boom") }}, result{Err: "boom"}},
		{"default", []string{"missing"}, runtime.Options{DefaultValues: map[string]any{"other": 1}, Default: "d", HasDefault: true}, result{Value: "d"}},
		{"value type", []string{"classes"}, runtime.Options{ValueType: ptype.MustParse("Array[String]")}, result{Value: A("base", "ntp", "web")}},
		{"value type: found", []string{"classes"}, runtime.Options{ValueType: ptype.MustParse("Array[String, 4]")}, result{Err: "Found value has wrong type, expects size to be at least 4, got 3"}},
		{"value type: override", []string{"x"}, runtime.Options{ValueType: str, Override: map[string]any{"x": int64(1)}}, result{Err: "Value found for key 'x' in override hash has wrong type, expects a String value, got Integer"}},
		{"value type: default_values_hash", []string{"x"}, runtime.Options{ValueType: str, DefaultValues: map[string]any{"x": nil}}, result{Err: "Value found for key 'x' in default values hash has wrong type, expects a String value, got Undef"}},
		{"value type: lambda", []string{"x"}, runtime.Options{ValueType: ptype.MustParse("Integer"), DefaultFunc: fn}, result{Err: "Value returned from default block has wrong type, expects an Integer value, got String"}},
		{"value type: default", []string{"x"}, runtime.Options{ValueType: ptype.MustParse("Integer[0, 10]"), Default: int64(42), HasDefault: true}, result{Err: "Default value has wrong type, expects an Integer[0, 10] value, got Integer[42, 42]"}},
		{"value type: not found", []string{"x"}, runtime.Options{ValueType: str}, result{Err: "Function lookup() did not find a value for the name 'x'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := got(b.LookupNames(tt.names, tt.opts))
			r.Is = nil
			if d := cmp.Diff(tt.want, r, Cmp); d != "" {
				t.Errorf("LookupNames(%q) (-want +got):\n%s", tt.names, d)
			}
		})
	}
	_, err := b.LookupNames([]string{"a1", "a2"}, runtime.Options{})
	var nf *runtime.NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, runtime.ErrNotFound) || len(nf.Names) != 2 {
		t.Errorf("not found: %#v, want a *NotFoundError naming both names", err)
	}
}

func TestMergeError(t *testing.T) {
	b := open(t, testBundle())
	_, err := b.LookupWith("classes", runtime.Options{Merge: &format.Merge{Strategy: "bogus"}})
	var me *runtime.MergeError
	if !errors.As(err, &me) || me.Key != "classes" || me.Merge.Strategy != "bogus" {
		t.Errorf("bad merge: %#v, want a *MergeError", err)
	}
	// A contribution's recorded error is not the merge's.
	_, err = b.LookupWith("users", runtime.Options{Merge: &format.Merge{Strategy: "deep"}})
	var fe *format.Error
	if errors.As(err, &me) || !errors.As(err, &fe) {
		t.Errorf("contribution error: %#v, want the recorded *format.Error", err)
	}
}
