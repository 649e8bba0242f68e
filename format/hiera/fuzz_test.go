package hiera

import (
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
	"github.com/hieracc/hieracc/format/ruby"
)

// valueFrom decodes bytes into a value tree, so that the fuzzer explores
// shapes: every input is valid.
func valueFrom(b []byte, depth int) (any, []byte) {
	if len(b) == 0 {
		return nil, b
	}
	c, b := b[0], b[1:]
	strs := []string{"a", "b", "--a", "--", "", "x\n--a", "1"}
	switch c % 10 {
	case 0:
		return nil, b
	case 1:
		return c&0x10 != 0, b
	case 2:
		return int64(c>>4) - 4, b
	case 3:
		return float64(c>>4) / 2, b
	case 4, 5:
		return strs[int(c>>4)%len(strs)], b
	case 6, 7:
		if depth == 0 {
			return "leaf", b
		}
		n := int(c>>4) % 5
		arr := make([]any, 0, n)
		for range n {
			var v any
			v, b = valueFrom(b, depth-1)
			arr = append(arr, v)
		}
		return arr, b
	}
	if depth == 0 {
		return int64(0), b
	}
	n := int(c>>4) % 4
	h := format.NewHash(n)
	for range n {
		var k, v any
		k, b = valueFrom(b, 0)
		switch k.(type) {
		case []any, *format.Hash:
			k = "k"
		}
		v, b = valueFrom(b, depth-1)
		h.Set(k, v)
	}
	return h, b
}

func FuzzMergeValues(f *testing.F) {
	f.Add([]byte{8, 0x14, 6, 0x35, 0x45}, []byte{0x38, 4, 0x14, 0x24}, uint8(3))
	f.Fuzz(func(t *testing.T, b1, b2 []byte, opts uint8) {
		e1, _ := valueFrom(b1, 4)
		e2, _ := valueFrom(b2, 4)
		m := format.Merge{Strategy: []format.Strategy{"", "first", "unique", "hash", "deep"}[int(opts)%5]}
		if m.Strategy == "deep" {
			m.KnockoutPrefix = []string{"", "--", "-+", "a|b"}[int(opts>>3)%4]
			m.SortMergedArrays = opts&0x20 != 0
			m.MergeHashArrays = opts&0x40 != 0
		}
		before := ruby.Inspect(e1) + ruby.Inspect(e2)
		_, _ = MergeValues(m, e1, e2)
		if ruby.Inspect(e1)+ruby.Inspect(e2) != before {
			t.Fatal("inputs modified")
		}
		_, _ = parseMerge(e1)
	})
}

func FuzzKey(f *testing.F) {
	for _, s := range []string{"a.b", "a.'x.y'.0", `"q".-1`, "a..b", "5.a", "a.:9"} {
		f.Add(s, []byte{8, 0x14, 6, 0x35})
	}
	f.Fuzz(func(t *testing.T, key string, b []byte) {
		k, err := ParseKey(key)
		if err != nil {
			return
		}
		v, _ := valueFrom(b, 4)
		_, _, _ = k.Dig(v)
	})
}

// FuzzConvert: any convert_to setting applied to any value fails or
// converts, never panics, and a conversion's result is an instance of its
// type (Puppet's new asserts it).
func FuzzConvert(f *testing.F) {
	for _, s := range []string{"Integer", "Float", "Numeric", "Boolean", "String", "Array", "Hash",
		"Optional[Integer[0, 10]]", "Tuple[String, Integer]", "Struct[{a => Integer}]", "Variant[Integer, String]"} {
		f.Add(s, "0x1F", int64(16), []byte{6, 0x24, 0x44, 0x32})
	}
	f.Add("Integer", "- 5", int64(0), []byte{8, 0x14, 0x22})
	f.Fuzz(func(t *testing.T, typ, s string, arg int64, shape []byte) {
		v, _ := valueFrom(shape, 3)
		if len(shape)%3 == 0 {
			v = s
		}
		setting := []any{typ}
		switch arg % 4 {
		case 1:
			setting = append(setting, arg)
		case 2:
			setting = append(setting, arg%8 == 2)
		case 3:
			setting = append(setting, s)
		}
		spec, err := parseConvertTo("k", setting)
		if err != nil || len(spec) == 0 || spec[0] == "Sensitive" {
			return
		}
		out, err := Convert("k", spec, v, false)
		if err != nil {
			return
		}
		if !mustParseType(t, typ).Match(out) {
			t.Fatalf("Convert(%v, %s) = %s, not an instance", setting, ruby.Inspect(v), ruby.Inspect(out))
		}
	})
}

func mustParseType(t *testing.T, s string) *ptype.Type {
	t.Helper()
	typ, err := ptype.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}
