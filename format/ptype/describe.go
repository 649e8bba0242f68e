package ptype

import (
	"slices"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// This file ports Puppet's TypeMismatchDescriber: why a value is not an
// instance of a type, path by path ("index 1", "entry 'a'", "variant 0"),
// with the expected types normalized and merged across a Variant's
// members as Puppet does. The actual side is the value's inferred type
// (InferSet).

// MismatchError is a value that does not match a type. Error() is
// Puppet's message: "SUBJECT has wrong type, expects ..., got ...".
type MismatchError struct {
	Subject string // "Found value", "Default value", ...
	Type    *Type
	msg     string
}

func (e *MismatchError) Error() string { return e.msg }

// Check returns nil when v is an instance of t, else a *MismatchError
// whose message is what Puppet's TypeAsserter raises for subject (lookup()
// says "Found value", "Default value", "Value returned from default
// block"...).
func (t *Type) Check(subject string, v any) error {
	if t.Match(v) {
		return nil
	}
	ms := describe(t, v, []pathElem{{text: subject + " has wrong type,"}})
	lines := make([]string, len(ms))
	for i, m := range ms {
		lines[i] = m.format()
	}
	msg := strings.Join(lines, "\n ")
	if len(lines) == 1 {
		msg = strings.TrimSpace(msg)
	}
	return &MismatchError{Subject: subject, Type: t, msg: msg}
}

type pathElem struct {
	text    string
	variant bool
}

type mkind uint8

const (
	mType mkind = iota
	mPattern
	mSize
	mMissingKey
	mExtraKey
	mUnresolved
)

type mismatch struct {
	kind     mkind
	path     []pathElem
	expected *Type // mType, mPattern: normalized
	value    any   // the actual value
	hashType bool  // the actual is the value's Hash[K, V] type, without size
	size     [2]int64
	asize    [2]int64
	key      string // mMissingKey, mExtraKey; mUnresolved: the type
}

func with(path []pathElem, e pathElem) []pathElem {
	out := make([]pathElem, len(path), len(path)+1)
	copy(out, path)
	return append(out, e)
}

func index(i int) pathElem       { return pathElem{text: "index " + strconv.Itoa(i)} }
func entry(k any) pathElem       { return pathElem{text: "entry '" + ruby.ToS(k) + "'"} }
func entryKey(k any) pathElem    { return pathElem{text: "key of entry '" + ruby.ToS(k) + "'"} }
func variantElem(i int) pathElem { return pathElem{text: "variant " + strconv.Itoa(i), variant: true} }

func (m *mismatch) canonical() string {
	var b strings.Builder
	for _, e := range m.path {
		if !e.variant {
			b.WriteString(e.text)
			b.WriteByte(0)
		}
	}
	return b.String()
}

func (m *mismatch) format() string {
	var b strings.Builder
	for _, e := range m.path {
		b.WriteString(" " + e.text)
	}
	return b.String() + " " + m.message()
}

func typeMismatch(path []pathElem, expected *Type, v any) mismatch {
	return mismatch{kind: mType, path: path, expected: expected.Normalize(), value: v}
}

func describe(t *Type, v any, path []pathElem) []mismatch {
	if ref := unresolved(t); ref != "" {
		return []mismatch{{kind: mUnresolved, path: path, key: ref}}
	}
	return internalDescribe(t.Normalize(), t, v, path)
}

// unresolved is the first reference to a type that does not exist in t.
func unresolved(t *Type) string {
	if t.Kind == Reference {
		return t.name
	}
	for _, e := range t.elems {
		if r := unresolved(e); r != "" {
			return r
		}
	}
	return ""
}

func isAlias(t *Type) bool {
	return t.Kind == Data || t.Kind == ScalarData || t.Kind == RichData
}

// aliases are what Puppet's type aliases but RichData stand for.
var aliases = map[Kind]*Type{
	ScalarData: MustParse("Variant[Integer, Float, String, Boolean]"),
	Data:       MustParse("Variant[ScalarData, Undef, Hash[String, Data], Array[Data]]"),
}

// resolved is what Puppet's type alias t stands for.
func resolved(t *Type) *Type {
	if r := aliases[t.Kind]; r != nil {
		return r
	}
	return &Type{Kind: Any}
}

func internalDescribe(e, orig *Type, v any, path []pathElem) []mismatch {
	switch e.Kind {
	case Variant:
		return describeVariant(e, orig, v, path)
	case Struct:
		return describeStruct(e, orig, v, path)
	case Hash:
		return describeHash(e, orig, v, path)
	case Array, Tuple:
		return describeArray(e, orig, v, path)
	case Optional:
		if v == nil || e.Elem() == nil {
			return nil
		}
		o := e
		if isAlias(orig) {
			o = orig
		}
		return internalDescribe(e.Elem(), o, v, path)
	case Pattern, Enum:
		return []mismatch{{kind: mPattern, path: path, expected: orig.Normalize(), value: v}}
	case Data, ScalarData, RichData:
		return internalDescribe(resolved(e).Normalize(), e, v, path)
	}
	if e.Match(v) {
		return nil
	}
	return []mismatch{typeMismatch(path, orig, v)}
}

func describeVariant(e, orig *Type, v any, path []pathElem) []mismatch {
	types := e.elems
	if orig.Kind == Optional {
		types = append([]*Type{{Kind: Undef}}, types...)
	}
	var lists [][]mismatch
	for i, vt := range types {
		d := describe(vt, v, with(path, variantElem(i)))
		if len(d) == 0 {
			return nil
		}
		lists = append(lists, d)
	}
	ds := mergeDescriptions(len(path), lists)
	if isAlias(orig) && len(ds) == 1 {
		return []mismatch{typeMismatch(path, orig, v)}
	}
	return ds
}

func mergeDescriptions(pos int, lists [][]mismatch) []mismatch {
	if len(lists) == 0 { // Variant without types: Puppet says nothing
		return nil
	}
	var all []mismatch
	for _, l := range lists {
		all = append(all, l...)
	}
	for _, class := range []func(m *mismatch) bool{
		func(m *mismatch) bool { return m.kind == mSize },
		func(m *mismatch) bool { return m.kind == mType || m.kind == mPattern },
	} {
		var ms []mismatch
		for i := range all {
			if class(&all[i]) {
				ms = append(ms, all[i])
			}
		}
		if len(ms) != len(lists) {
			continue
		}
		generic, ok := ms[0], true
		for _, m := range ms[1:] {
			if generic.canonical() != m.canonical() {
				ok = false
				break
			}
			generic = generic.merge(m)
		}
		if ok {
			all = []mismatch{generic}
			break
		}
	}
	all = uniq(all)
	if len(all) == 1 && pos < len(all[0].path) {
		m := all[0]
		m.path = append(append([]pathElem{}, m.path[:pos]...), m.path[pos+1:]...)
		all[0] = m
	}
	return all
}

func (m mismatch) merge(o mismatch) mismatch {
	if m.kind == mSize {
		m.size = [2]int64{min(m.size[0], o.size[0]), max(m.size[1], o.size[1])}
		return m
	}
	var ts []*Type
	for _, t := range []*Type{m.expected, o.expected} {
		if t.Kind == Variant {
			ts = append(ts, t.elems...)
		} else {
			ts = append(ts, t)
		}
	}
	m.expected = (&Type{Kind: Variant, elems: ts}).Normalize()
	return m
}

func (m *mismatch) same(o *mismatch) bool {
	if m.kind != o.kind || m.canonical() != o.canonical() || m.key != o.key || m.size != o.size || m.asize != o.asize {
		return false
	}
	if m.expected != nil || o.expected != nil {
		if m.expected == nil || o.expected == nil || m.expected.String() != o.expected.String() {
			return false
		}
	}
	return format.Identical(m.value, o.value) && m.hashType == o.hashType
}

func uniq(ms []mismatch) []mismatch {
	var out []mismatch
	for i := range ms {
		dup := false
		for j := range out {
			if out[j].same(&ms[i]) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, ms[i])
		}
	}
	return out
}

func sizeMismatch(path []pathElem, lo, hi int64, n int) mismatch {
	return mismatch{kind: mSize, path: path, size: [2]int64{lo, hi}, asize: [2]int64{int64(n), int64(n)}}
}

// describeArray describes an Array's or a Tuple's mismatch.
func describeArray(e, orig *Type, v any, path []pathElem) []mismatch {
	a, ok := v.([]any)
	if !ok {
		return []mismatch{typeMismatch(path, orig, v)}
	}
	if lo, hi := e.sizeRange(); !e.hasSize(int64(len(a))) {
		return []mismatch{sizeMismatch(path, lo, hi, len(a))}
	}
	var ds []mismatch
	for i, x := range a {
		if e.Kind == Array && !e.elems[0].Match(x) {
			ds = append(ds, describe(e.elems[0], x, with(path, index(i)))...)
		} else if e.Kind == Tuple && len(e.elems) > 0 {
			adx := min(i, len(e.elems)-1) // Puppet's path names the type's index
			ds = append(ds, describe(e.elems[adx], x, with(path, index(adx)))...)
		}
	}
	return ds
}

// hashMismatch is the mismatch of a hash that is not a Struct: its actual
// type is its Hash[K, V].
func hashMismatch(path []pathElem, orig *Type, v any) []mismatch {
	m := typeMismatch(path, orig, v)
	m.hashType = true
	return []mismatch{m}
}

func describeHash(e, orig *Type, v any, path []pathElem) []mismatch {
	h, ok := v.(*format.Hash)
	if !ok {
		return []mismatch{typeMismatch(path, orig, v)}
	}
	if lo, hi := e.sizeRange(); !e.hasSize(int64(h.Len())) {
		return []mismatch{sizeMismatch(path, lo, hi, h.Len())}
	}
	if !IsStruct(h) {
		return hashMismatch(path, orig, v)
	}
	var ds []mismatch
	kt, vt := e.elems[0], e.elems[1]
	for k, x := range h.All() {
		if !kt.Match(k) {
			ds = append(ds, describe(kt, k, with(path, entryKey(k)))...)
		}
		if !vt.Match(x) {
			ds = append(ds, describe(vt, x, with(path, entry(k)))...)
		}
	}
	return ds
}

func describeStruct(e, orig *Type, v any, path []pathElem) []mismatch {
	h, ok := v.(*format.Hash)
	if !ok {
		return []mismatch{typeMismatch(path, orig, v)}
	}
	if !IsStruct(h) {
		required := int64(0)
		for _, o := range e.optional {
			if !o {
				required++
			}
		}
		if n := int64(h.Len()); n < required || n > int64(len(e.names)) {
			return []mismatch{sizeMismatch(path, required, int64(len(e.names)), h.Len())}
		}
		return hashMismatch(path, orig, v)
	}
	var ds []mismatch
	for i, name := range e.names {
		if x, present := h.Get(name); !present && !e.optional[i] {
			ds = append(ds, mismatch{kind: mMissingKey, path: path, key: name})
		} else if present && !e.elems[i].Match(x) {
			ds = append(ds, describe(e.elems[i], x, with(path, entry(name)))...)
		}
	}
	for _, k := range h.Keys() {
		if s, _ := k.(string); !slices.Contains(e.names, s) {
			ds = append(ds, mismatch{kind: mExtraKey, path: path, key: s})
		}
	}
	return ds
}

// ---- messages ----

func (m *mismatch) message() string {
	switch m.kind {
	case mMissingKey:
		return "expects a value for key '" + m.key + "'"
	case mExtraKey:
		return "unrecognized key '" + m.key + "'"
	case mUnresolved:
		return "references an unresolved type '" + m.key + "'"
	case mSize:
		return "expects size to be " + rangeString(m.size) + ", got " + rangeString(m.asize)
	case mPattern:
		e, pfx := m.expected, ""
		if e.Kind == Optional && e.Elem() != nil {
			e, pfx = e.Elem(), "an undef value or "
		}
		got := actualName(m.value, m.hashType)
		if s, ok := m.value.(string); ok {
			got = "'" + s + "'"
		}
		return "expects " + pfx + "a match for " + e.String() + ", got " + got
	}
	e, optional := m.expected, false
	if e.Kind == Optional && e.Elem() != nil {
		e, optional = e.Elem(), true
	}
	list := []*Type{e}
	if e.Kind == Variant {
		list = e.elems
	}
	var names []string
	var got string
	if a := actualKind(m.value, m.hashType); reportDetailed(list, a) {
		got = m.detailedActual(list, a)
		for _, t := range list {
			names = append(names, t.String())
		}
	} else {
		for _, t := range list {
			if n := shortName(t); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		got = actualName(m.value, m.hashType)
	}
	if optional {
		names = append([]string{"Undef"}, names...)
	}
	switch len(names) {
	case 1:
		return "expects " + article(names[0]) + " " + names[0] + " value, got " + got
	case 2:
		return "expects a value of type " + names[0] + " or " + names[1] + ", got " + got
	}
	return "expects a value of type " + strings.Join(names[:len(names)-1], ", ") + ", or " + names[len(names)-1] + ", got " + got
}

func rangeString(r [2]int64) string {
	lo, hi := max(r[0], 0), r[1]
	switch {
	case lo == hi:
		return strconv.FormatInt(lo, 10)
	case lo == 0 && hi == maxInt:
		return "unlimited"
	case lo == 0:
		return "at most " + strconv.FormatInt(hi, 10)
	case hi == maxInt:
		return "at least " + strconv.FormatInt(lo, 10)
	}
	return "between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10)
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiouyAEIOUY", rune(s[0])) {
		return "an"
	}
	return "a"
}

// shortName is TypeMismatch#short_name.
func shortName(t *Type) string {
	switch t.Kind {
	case Optional, NotUndef, Sensitive:
		if in := t.Elem(); in != nil && in.Kind != Any {
			return t.Kind.String() + "[" + in.Kind.String() + "]"
		}
	}
	return t.Kind.String()
}

// actualKind is the class of the value's inferred type, as a Kind,
// without inferring a collection's members.
func actualKind(v any, hashType bool) Kind {
	switch x := v.(type) {
	case []any:
		if len(x) > 0 {
			return Tuple
		}
	case *format.Hash:
		if !hashType && IsStruct(x) {
			return Struct
		}
		return Hash
	}
	return InferSet(v).Kind
}

func actualName(v any, hashType bool) string {
	if hashType {
		return "Hash"
	}
	return ruby.TypeName(v)
}

func actualString(v any, hashType bool) string {
	if hashType {
		return HashTypeOf(v.(*format.Hash))
	}
	return TypeOf(v)
}

// alwaysFullyDetailed: the expected and actual types are of one class, or
// an alias is involved, or the expected type specializes the actual's.
func alwaysFullyDetailed(list []*Type, a Kind) bool {
	for _, e := range list {
		if e.Kind == a || isAlias(e) || e.Kind == Struct && a == Hash || e.Kind == Tuple && a == Array {
			return true
		}
	}
	return false
}

func reportDetailed(list []*Type, a Kind) bool {
	if alwaysFullyDetailed(list, a) {
		return true
	}
	for _, e := range list {
		if assignableToDefault(e, a) {
			return true
		}
	}
	return false
}

// assignableToDefault is e.class::DEFAULT.assignable?(a).
func assignableToDefault(e *Type, a Kind) bool {
	switch e.Kind {
	case Any, Optional:
		return true
	case NotUndef:
		return a != Undef
	case Numeric:
		return a == Integer || a == Float
	case Enum, Pattern:
		return a == String
	case Scalar:
		return a == Integer || a == Float || a == String || a == Boolean
	case Array:
		return a == Array || a == Tuple
	case Hash:
		return a == Hash || a == Struct
	case Tuple:
		return a == Array || a == Tuple
	}
	return e.Kind == a
}

func (m *mismatch) detailedActual(list []*Type, a Kind) string {
	resolvedList := make([]*Type, len(list))
	for i, t := range list {
		resolvedList[i] = t
		if isAlias(t) {
			resolvedList[i] = resolved(t).Normalize()
		}
	}
	if alwaysFullyDetailed(resolvedList, a) {
		return actualString(m.value, m.hashType)
	}
	return actualName(m.value, m.hashType)
}
