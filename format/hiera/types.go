package hiera

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// This file reproduces the messages of Puppet's TypeAsserter for the few
// types a merge asserts (TypeMismatchDescriber over TypeCalculator#infer_set).
// Only the expected types Puppet uses here are modelled:
//
//	unique: Variant[Scalar, Array[Data]]
//	hash:   Hash[String, Data]
//	merge options: Struct[{strategy => ..., knockout_prefix => ...}]
//
// while the actual side is the inferred type of any hieracc value, which is
// printed in full where Puppet prints it in full (a Hash with non-string
// keys: "got Hash[Integer[1, 1], String]").

// isData reports whether v is an instance of Puppet's Data type: a scalar,
// nil, an array of Data or a hash with string keys and Data values.
func isData(v any) bool {
	switch v := v.(type) {
	case nil, bool, int64, float64, string:
		return true
	case []any:
		for _, e := range v {
			if !isData(e) {
				return false
			}
		}
		return true
	case *format.Hash:
		for i := 0; i < v.Len(); i++ {
			if _, ok := v.Key(i).(string); !ok || !isData(v.Value(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// valueKind is the class of a value's inferred type (infer_set).
type valueKind uint8

const (
	kUndef valueKind = iota
	kBoolean
	kInteger
	kFloat
	kString
	kEmptyArray // Array[0, 0]
	kTuple
	kEmptyHash // Hash[0, 0]
	kStruct    // every key a non-empty string
	kHash      // any other hash
	kOther
)

func kindOf(v any) valueKind {
	switch v := v.(type) {
	case nil:
		return kUndef
	case bool:
		return kBoolean
	case int64:
		return kInteger
	case float64:
		return kFloat
	case string:
		return kString
	case []any:
		if len(v) == 0 {
			return kEmptyArray
		}
		return kTuple
	case *format.Hash:
		if v.Len() == 0 {
			return kEmptyHash
		}
		for _, k := range v.Keys() {
			if s, ok := k.(string); !ok || s == "" {
				return kHash
			}
		}
		return kStruct
	}
	return kOther
}

// mismatch is one line of a type mismatch report: the path below the
// subject ("variant 1", "index 0", "entry 'a'") and the text after it.
type mismatch struct {
	path []string
	text string
}

func tm(path []string, text string) mismatch {
	return mismatch{path: slices.Clip(path), text: text}
}

func with(path []string, elem string) []string {
	return append(slices.Clip(path), elem)
}

// assertionError renders mismatches the way describe_mismatch does: one
// line stripped, several lines each prefixed with a space and joined by
// "\n ".
func assertionError(subject string, ms []mismatch) error {
	lines := make([]string, len(ms))
	for i, m := range ms {
		var b strings.Builder
		b.WriteByte(' ')
		b.WriteString(subject)
		b.WriteString(" has wrong type,")
		for _, p := range m.path {
			b.WriteByte(' ')
			b.WriteString(p)
		}
		b.WriteByte(' ')
		b.WriteString(m.text)
		lines[i] = b.String()
	}
	if len(lines) == 1 {
		return errors.New(strings.TrimSpace(lines[0]))
	}
	return errors.New(strings.Join(lines, "\n "))
}

// describeData describes why v (not Data) is not Data. Data is the alias
// Optional[Variant[ScalarData, Hash[String, Data], Array[Data]]]; when all
// three variants fail at the same place Puppet reports the alias, otherwise
// each variant's failure.
func describeData(v any, path []string) []mismatch {
	switch kindOf(v) {
	case kStruct:
		h := v.(*format.Hash)
		ms := []mismatch{tm(with(path, "variant 0"), "expects a ScalarData value, got Struct")}
		for i := 0; i < h.Len(); i++ {
			if !isData(h.Value(i)) {
				ms = append(ms, describeData(h.Value(i), with(with(path, "variant 1"), entry(h.Key(i))))...)
			}
		}
		return append(ms, tm(with(path, "variant 2"), "expects an Array value, got Struct"))
	case kTuple:
		ms := []mismatch{
			tm(with(path, "variant 0"), "expects a ScalarData value, got Tuple"),
			tm(with(path, "variant 1"), "expects a Hash value, got Tuple"),
		}
		for i, e := range v.([]any) {
			if !isData(e) {
				ms = append(ms, describeData(e, with(with(path, "variant 2"), "index "+strconv.Itoa(i)))...)
			}
		}
		return ms
	}
	return []mismatch{tm(path, "expects a Data value, got "+ruby.TypeName(v))}
}

func entry(k any) string { return "entry '" + ruby.ToS(k) + "'" }

// uniqueTypeError is the TypeAssertionError of Variant[Scalar, Array[Data]].
func uniqueTypeError(subject string, v any) error {
	if kindOf(v) == kTuple {
		ms := []mismatch{tm([]string{"variant 0"}, "expects a Scalar value, got Tuple")}
		for i, e := range v.([]any) {
			if !isData(e) {
				ms = append(ms, describeData(e, []string{"variant 1", "index " + strconv.Itoa(i)})...)
			}
		}
		return assertionError(subject, ms)
	}
	return assertionError(subject, []mismatch{tm(nil, "expects a value of type Scalar or Array, got "+ruby.TypeName(v))})
}

// hashTypeError is the TypeAssertionError of Hash[String, Data].
func hashTypeError(subject string, v any) error {
	switch kindOf(v) {
	case kStruct:
		h := v.(*format.Hash)
		var ms []mismatch
		for i := 0; i < h.Len(); i++ {
			if !isData(h.Value(i)) {
				ms = append(ms, describeData(h.Value(i), []string{entry(h.Key(i))})...)
			}
		}
		return assertionError(subject, ms)
	case kHash:
		return assertionError(subject, []mismatch{tm(nil, "expects a Hash[String, Data] value, got "+hashTypeString(v.(*format.Hash)))})
	}
	return assertionError(subject, []mismatch{tm(nil, "expects a Hash value, got "+ruby.TypeName(v))})
}

// hashTypeString prints the normalized Hash[K, V] Puppet reports for a
// hash that is not a Struct (the size is dropped by the describer).
func hashTypeString(h *format.Hash) string {
	t := inferSet(h)
	if t.kind != tHash {
		return t.String()
	}
	t = &ptype{kind: tHash, elems: t.elems}
	n, _ := t.normalize()
	return n.String()
}

// ---- inferred Puppet types ----

type tkind uint8

const (
	tUndef tkind = iota
	tBoolean
	tInteger
	tFloat
	tString
	tEnum
	tEmptyArray
	tTuple
	tEmptyHash
	tHash // elems = [key, value]; size when hasSize
	tStruct
	tVariant
	tOptional // elems = [type]
)

// ptype is a Puppet type as TypeCalculator#infer_set builds it for a value.
type ptype struct {
	kind    tkind
	i1, i2  int64
	f1, f2  float64
	b       bool
	str     string   // tString value
	values  []string // tEnum, sorted
	names   []string // tStruct keys, parallel to elems
	elems   []*ptype
	size    int
	hasSize bool
}

func inferSet(v any) *ptype {
	switch v := v.(type) {
	case nil:
		return &ptype{kind: tUndef}
	case bool:
		return &ptype{kind: tBoolean, b: v}
	case int64:
		return &ptype{kind: tInteger, i1: v, i2: v}
	case float64:
		return &ptype{kind: tFloat, f1: v, f2: v}
	case string:
		return &ptype{kind: tString, str: v}
	case []any:
		if len(v) == 0 {
			return &ptype{kind: tEmptyArray}
		}
		t := &ptype{kind: tTuple, elems: make([]*ptype, len(v))}
		for i, e := range v {
			t.elems[i] = inferSet(e)
		}
		return t
	case *format.Hash:
		switch kindOf(v) {
		case kEmptyHash:
			return &ptype{kind: tEmptyHash}
		case kStruct:
			t := &ptype{kind: tStruct, names: make([]string, v.Len()), elems: make([]*ptype, v.Len())}
			for i := 0; i < v.Len(); i++ {
				t.names[i] = v.Key(i).(string)
				t.elems[i] = inferSet(v.Value(i))
			}
			return t
		}
		ks := make([]*ptype, v.Len())
		vs := make([]*ptype, v.Len())
		for i := 0; i < v.Len(); i++ {
			ks[i] = inferSet(v.Key(i))
			vs[i] = inferSet(v.Value(i))
		}
		return &ptype{kind: tHash, elems: []*ptype{maybeVariant(ks), maybeVariant(vs)}, size: v.Len(), hasSize: true}
	}
	return &ptype{kind: tUndef}
}

// maybeVariant is PVariantType.maybe_create: flatten, drop duplicates,
// unwrap a single type.
func maybeVariant(ts []*ptype) *ptype {
	var flat []*ptype
	for _, t := range ts {
		if t.kind == tVariant {
			flat = append(flat, t.elems...)
		} else {
			flat = append(flat, t)
		}
	}
	var uniq []*ptype
	for _, t := range flat {
		if !slices.ContainsFunc(uniq, t.equal) {
			uniq = append(uniq, t)
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return &ptype{kind: tVariant, elems: uniq}
}

func (t *ptype) equal(o *ptype) bool {
	if t.kind != o.kind {
		return false
	}
	switch t.kind {
	case tBoolean:
		return t.b == o.b
	case tInteger:
		return t.i1 == o.i1 && t.i2 == o.i2
	case tFloat:
		return t.f1 == o.f1 && t.f2 == o.f2
	case tString:
		return t.str == o.str
	case tEnum:
		return slices.Equal(t.values, o.values)
	case tVariant:
		// eql?: same size and no type of one missing from the other.
		if len(t.elems) != len(o.elems) {
			return false
		}
		for _, e := range t.elems {
			if !slices.ContainsFunc(o.elems, e.equal) {
				return false
			}
		}
		return true
	}
	if t.hasSize != o.hasSize || t.size != o.size || !slices.Equal(t.names, o.names) || len(t.elems) != len(o.elems) {
		return false
	}
	for i := range t.elems {
		if !t.elems[i].equal(o.elems[i]) {
			return false
		}
	}
	return true
}

// normalize ports PAnyType#normalize for inferred types. changed reports
// whether Puppet would return a new object, which decides whether a
// Variant keeps its original order (PVariantType#normalize returns self
// when nothing merged and no member changed).
func (t *ptype) normalize() (*ptype, bool) {
	switch t.kind {
	case tTuple, tStruct:
		elems, changed := normalizeAll(t.elems)
		if !changed {
			return t, false
		}
		c := *t
		c.elems = elems
		return &c, true
	case tHash:
		elems, _ := normalizeAll(t.elems)
		if !t.hasSize && elems[0] == t.elems[0] && elems[1] == t.elems[1] {
			return t, false
		}
		c := *t
		c.elems = elems
		return &c, true
	case tOptional:
		inner, changed := t.elems[0].normalize()
		if !changed {
			return t, false
		}
		return &ptype{kind: tOptional, elems: []*ptype{inner}}, true
	case tVariant:
		return t.normalizeVariant()
	}
	return t, false
}

func normalizeAll(ts []*ptype) ([]*ptype, bool) {
	out := make([]*ptype, len(ts))
	changed := false
	for i, e := range ts {
		n, c := e.normalize()
		out[i] = n
		changed = changed || c
	}
	return out, changed
}

func (t *ptype) normalizeVariant() (*ptype, bool) {
	if len(t.elems) == 0 {
		return t, false
	}
	types, modified := normalizeAll(t.elems)
	if !modified {
		types = t.elems
	}
	if len(types) == 1 {
		return types[0], true
	}
	if slices.ContainsFunc(types, func(e *ptype) bool { return e.kind == tUndef || e.kind == tOptional }) {
		var rest []*ptype
		for _, e := range types {
			switch e.kind {
			case tUndef:
			case tOptional:
				rest = append(rest, e.elems[0])
			default:
				rest = append(rest, e)
			}
		}
		// The inner type never accepts undef here, so POptionalType#normalize
		// keeps the Optional.
		o := &ptype{kind: tOptional, elems: []*ptype{maybeVariant(rest)}}
		n, _ := o.normalize()
		return n, true
	}
	var flat []*ptype
	for _, e := range types {
		if e.kind == tVariant {
			flat = append(flat, e.elems...)
		} else {
			flat = append(flat, e)
		}
	}
	before := len(flat)
	flat = mergeEnums(flat)
	flat = mergeNumbers(flat, tInteger)
	flat = mergeNumbers(flat, tFloat)
	if len(flat) == 1 {
		return flat[0], true
	}
	if modified || len(flat) != before {
		return maybeVariant(flat), true
	}
	return t, false
}

// mergeEnums merges strings with values and enums into one Enum, placed
// after the other types.
func mergeEnums(ts []*ptype) []*ptype {
	if len(ts) < 2 {
		return ts
	}
	var enums, others []*ptype
	for _, e := range ts {
		if e.kind == tString || (e.kind == tEnum && len(e.values) > 0) {
			enums = append(enums, e)
		} else {
			others = append(others, e)
		}
	}
	if len(enums) < 2 {
		return ts
	}
	var vals []string
	for _, e := range enums {
		if e.kind == tString {
			vals = append(vals, e.str)
		} else {
			vals = append(vals, e.values...)
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	return append(others, &ptype{kind: tEnum, values: vals})
}

// mergeNumbers is PVariantType#merge_numbers: ranges of one numeric type
// are merged (merge_ranges pops from the end) and placed first.
func mergeNumbers(ts []*ptype, kind tkind) []*ptype {
	if len(ts) < 2 {
		return ts
	}
	var ranges, others []*ptype
	for _, e := range ts {
		if e.kind == kind {
			ranges = append(ranges, e)
		} else {
			others = append(others, e)
		}
	}
	if len(ranges) < 2 {
		return ts
	}
	var result []*ptype
	for len(ranges) > 0 {
		memo := ranges[len(ranges)-1]
		ranges = ranges[:len(ranges)-1]
		var unmerged []*ptype
		for _, y := range ranges {
			if m := mergeRange(memo, y); m != nil {
				memo = m
			} else {
				unmerged = append(unmerged, y)
			}
		}
		result = append(result, memo)
		ranges = unmerged
	}
	return append(result, others...)
}

// mergeRange joins two ranges that intersect (or, for integers, are
// adjacent); nil when they are apart.
func mergeRange(a, b *ptype) *ptype {
	if a.kind == tInteger {
		adjacent := (a.i2 != math.MaxInt64 && a.i2+1 == b.i1) || (b.i2 != math.MaxInt64 && b.i2+1 == a.i1)
		if (a.i1 <= b.i2 && b.i1 <= a.i2) || adjacent {
			return &ptype{kind: tInteger, i1: min(a.i1, b.i1), i2: max(a.i2, b.i2)}
		}
		return nil
	}
	if a.f1 <= b.f2 && b.f1 <= a.f2 {
		return &ptype{kind: tFloat, f1: min(a.f1, b.f1), f2: max(a.f2, b.f2)}
	}
	return nil
}

// acceptsUndef is assignable?(Undef) for the types inference produces.
func (t *ptype) acceptsUndef() bool { return t.kind == tUndef || t.kind == tOptional }

// String formats t as Puppet's TypeFormatter does.
func (t *ptype) String() string {
	var b strings.Builder
	t.format(&b)
	return b.String()
}

func (t *ptype) format(b *strings.Builder) {
	list := func(name string, ts []*ptype) {
		b.WriteString(name)
		b.WriteByte('[')
		for i, e := range ts {
			if i > 0 {
				b.WriteString(", ")
			}
			e.format(b)
		}
	}
	switch t.kind {
	case tUndef:
		b.WriteString("Undef")
	case tBoolean:
		b.WriteString("Boolean[" + strconv.FormatBool(t.b) + "]")
	case tInteger:
		b.WriteString("Integer[" + strconv.FormatInt(t.i1, 10) + ", " + strconv.FormatInt(t.i2, 10) + "]")
	case tFloat:
		b.WriteString("Float[" + ruby.Float(t.f1) + ", " + ruby.Float(t.f2) + "]")
	case tString:
		b.WriteString("String")
	case tEnum:
		b.WriteString("Enum[")
		for i, s := range t.values {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ruby.PuppetQuote(s))
		}
		b.WriteByte(']')
	case tEmptyArray:
		b.WriteString("Array[0, 0]")
	case tEmptyHash:
		b.WriteString("Hash[0, 0]")
	case tTuple:
		list("Tuple", t.elems)
		b.WriteByte(']')
	case tVariant:
		list("Variant", t.elems)
		b.WriteByte(']')
	case tHash:
		list("Hash", t.elems)
		if t.hasSize {
			n := strconv.Itoa(t.size)
			b.WriteString(", " + n + ", " + n)
		}
		b.WriteByte(']')
	case tOptional:
		b.WriteString("Optional[")
		if in := t.elems[0]; in.kind == tString {
			b.WriteString(ruby.PuppetQuote(in.str))
		} else {
			in.format(b)
		}
		b.WriteByte(']')
	case tStruct:
		b.WriteString("Struct[{")
		for i, name := range t.names {
			if i > 0 {
				b.WriteString(", ")
			}
			// struct_element_pair: a key whose value may be undef prints as
			// NotUndef['key'].
			if t.elems[i].acceptsUndef() {
				b.WriteString("NotUndef[" + ruby.PuppetQuote(name) + "]")
			} else {
				b.WriteString(ruby.PuppetQuote(name))
			}
			b.WriteString(" => ")
			t.elems[i].format(b)
		}
		b.WriteString("}]")
	}
}
