package dataload

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
	"github.com/hieracc/hieracc/format/ruby"
)

// This file ports Psych's ToRuby visitor as Puppet runs it (safe_load with
// Symbol permitted and aliases on), followed by Puppet's
// HieraConfig.symkeys_to_string.

// Ruby values the format model has no room for. They only live inside a
// conversion and end up in Doc.Invalid messages or Value errors.
type (
	rsym string // a Ruby Symbol
	rbig string // an Integer beyond int64, in decimal
	renc string // a Ruby Encoding (from !ruby/encoding)
	// rhash is a Ruby Hash whose keys the format model cannot hold.
	rhash struct {
		keys, vals []any
	}
)

// They print as Ruby prints them (ruby.Object) and are typed as Puppet's
// TypeCalculator#infer types them (ptype.Inferable, ptype.Entries).

func (s rsym) PuppetType() *ptype.Type {
	switch s {
	case "default":
		return ptype.Of(ptype.Default)
	case "undef":
		return ptype.Of(ptype.Undef)
	}
	return ptype.RuntimeClass("Symbol")
}
func (n rbig) PuppetType() *ptype.Type {
	b, _ := new(big.Int).SetString(string(n), 10)
	return ptype.IntegerValue(b)
}
func (renc) PuppetType() *ptype.Type           { return ptype.RuntimeClass("Encoding") }
func (h *rhash) Entries() (keys, values []any) { return h.keys, h.vals }

func (s rsym) AppendInspect(b []byte) []byte { return append(append(b, ':'), s...) }
func (s rsym) AppendToS(b []byte) []byte     { return append(b, s...) }
func (rsym) TypeName() string                { return "Runtime" }
func (n rbig) AppendInspect(b []byte) []byte { return append(b, n...) }
func (n rbig) AppendToS(b []byte) []byte     { return append(b, n...) }
func (rbig) TypeName() string                { return "Integer" }
func (e renc) AppendInspect(b []byte) []byte {
	return append(append(append(b, "#<Encoding:"...), e...), '>')
}
func (e renc) AppendToS(b []byte) []byte   { return append(b, e...) }
func (renc) TypeName() string              { return "Runtime" }
func (h *rhash) AppendToS(b []byte) []byte { return h.AppendInspect(b) }
func (*rhash) TypeName() string            { return "Hash" }
func (h *rhash) AppendInspect(b []byte) []byte {
	b = append(b, '{')
	for i, k := range h.keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = ruby.AppendInspect(b, k)
		b = append(b, "=>"...)
		b = ruby.AppendInspect(b, h.vals[i])
	}
	return append(b, '}')
}

// Value flags.
const (
	fNotLookup uint8 = 1 << iota // Puppet's LookupValue type refuses it
	fNoFormat                    // the format model cannot hold it
	fRecursive                   // holds itself (an alias inside its own anchor)
	fSymbol                      // holds :default or :undef, still as rsym
	fInferLoop                   // has a recursive hash key: inferring its type never ends
)

// meta describes a converted value.
type meta struct {
	flags uint8
	pos   Pos // where the first flagged part is
	size  int // values in it, every alias counted in full
	depth int // nesting of collections: 0 for a scalar
}

func (m *meta) absorb(c meta) {
	m.size += c.size
	if c.depth+1 > m.depth {
		m.depth = c.depth + 1
	}
	if c.flags&badFlags != 0 && m.flags&badFlags == 0 {
		m.pos = c.pos
	}
	m.flags |= c.flags
}

// badFlags are the flags whose position is worth reporting.
const badFlags = fNotLookup | fNoFormat | fRecursive

// cv is a converted value.
type cv struct {
	v any
	meta
	// For hashes: the entries before symkeys_to_string (what a << merge
	// copies; Ruby merges before Puppet renames symbol keys) and after.
	psych, final *entries
	// For the sequence that is the value of a << key: its elements.
	elems []cv
}

type memo struct {
	cv   cv
	busy bool // being converted: an alias to it makes a recursive value
	// building is the hash being built while busy: Ruby registers the
	// Hash before filling it, so a << merge of it inside itself copies
	// what it holds so far.
	building *entries
}

type conv struct {
	memo  map[*yaml.Node]*memo
	count int
	// dups are the warnings for keys written twice in one mapping.
	dups []diagnostics.Diagnostic
	// mergeSeq is a sequence being converted as the value of a << key,
	// whose elements' entries the merge needs.
	mergeSeq *yaml.Node
	// name is the file as diagnostics name it.
	name string
}

func newConv(name string) *conv { return &conv{memo: map[*yaml.Node]*memo{}, name: name} }

// duplicate records a key written a second time at p in a mapping that
// holds it from first: Psych keeps the last value, silently.
func (c *conv) duplicate(k any, first, p Pos) {
	c.dups = append(c.dups, duplicateKey(c.name, k, first, p))
}

// duplicateKey is the warning for key k, written at first and again at p
// in one mapping or object.
func duplicateKey(name string, k any, first, p Pos) diagnostics.Diagnostic {
	return warning(name, p, fmt.Sprintf(
		"duplicate key %s (first at line %d, column %d): Puppet keeps this value and drops the first, without a word",
		ruby.Inspect(k), first.Line, first.Column))
}

// account charges n values against MaxValues.
func (c *conv) account(n int, p Pos) *loadError {
	c.count += n
	if c.count > MaxValues {
		return limitError("more than %d values once aliases are expanded", MaxValues).at(p)
	}
	return nil
}

// convert visits n like ToRuby#accept. depth is n's parent's nesting.
func (c *conv) convert(n *yaml.Node, depth int) (cv, *loadError) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return cv{}, nil
		}
		return c.convert(n.Content[0], depth)
	case yaml.AliasNode:
		t := n.Alias
		if t == nil {
			return cv{}, argumentError("Unknown alias: " + n.Value).at(nodePos(n))
		}
		m := c.memo[t]
		if m == nil {
			// A tree built elsewhere, or a subtree converted on its own.
			return c.convert(t, depth)
		}
		if m.busy {
			// Psych hands out the object under construction. Merged, it is
			// harmless; kept, it makes a recursive structure that Puppet's
			// symkeys_to_string recurses into until the stack overflows.
			return cv{meta: meta{flags: fRecursive, pos: nodePos(n), size: 1}, psych: m.building}, nil
		}
		if depth+m.cv.depth > MaxDepth {
			return cv{}, stackError("nesting deeper than %d levels once aliases are expanded", MaxDepth).at(nodePos(n))
		}
		return m.cv, c.account(m.cv.size, nodePos(n))
	}
	var m *memo
	if n.Anchor != "" {
		m = &memo{busy: true}
		c.memo[n] = m
	}
	var r cv
	var err *loadError
	switch n.Kind {
	case yaml.ScalarNode:
		r, err = c.scalar(n)
	case yaml.SequenceNode:
		r, err = c.sequence(n, depth)
	case yaml.MappingNode:
		r, err = c.mapping(n, depth)
	default:
		err = limitError("unknown YAML node kind %d", n.Kind).at(nodePos(n))
	}
	if err != nil {
		return cv{}, err.at(nodePos(n))
	}
	if m != nil {
		m.cv, m.busy = r, false
	}
	return r, nil
}

var (
	reStrTag      = regexp.MustCompile(`^!(?:str|ruby/string)(?::(.*))?$`)
	reSymTag      = regexp.MustCompile(`^!ruby/sym(bol)?:?(.*)?$`)
	reSeqClassTag = regexp.MustCompile(`^!(?:seq|ruby/array):(.*)$`)
	reStructTag   = regexp.MustCompile(`^!ruby/struct:?(.*)?$`)
	reObjectTag   = regexp.MustCompile(`^!ruby/object:?(.*)?$`)
	reArrayTag    = regexp.MustCompile(`^!ruby/array:(.*)$`)
	reExcTag      = regexp.MustCompile(`^!ruby/exception:?(.*)?$`)
	reIvarsTag    = regexp.MustCompile(`^!ruby/hash-with-ivars(?::(.*))?$`)
	reMapTag      = regexp.MustCompile(`^!map:(.*)$|^!ruby/hash:(.*)$`)
	reMarshalTag  = regexp.MustCompile(`^!ruby/marshalable:(.*)$`)
)

// resolveClass is Psych's restricted class loader: Symbol is the only class
// Puppet permits, and it cannot be allocated, which is what every caller
// here would do with it.
func resolveClass(name string) *loadError {
	if name == "Symbol" {
		return argumentError("allocator undefined for Symbol")
	}
	return disallowed(name)
}

func unsupportedTag(tag, what string) *loadError {
	return limitError("unsupported YAML tag %s on a %s", tag, what)
}

// scalar is ToRuby#deserialize.
func (c *conv) scalar(n *yaml.Node) (cv, *loadError) {
	r := cv{meta: meta{size: 1}}
	if err := c.account(1, nodePos(n)); err != nil {
		return r, err
	}
	v, err := c.scalarValue(n)
	if err != nil {
		return r, err
	}
	switch s := v.(type) {
	case rsym:
		if s == "default" || s == "undef" {
			// Valid LookupValues (Default, Undef) that puppet lookup prints
			// as these strings. They stay symbols until the value is final,
			// as Puppet's type inference tells them from strings.
			r.flags = fSymbol
		} else {
			r.flags, r.pos = fNotLookup|fNoFormat, nodePos(n)
		}
	case rbig:
		r.flags, r.pos = fNoFormat, nodePos(n)
	case renc:
		r.flags, r.pos = fNotLookup|fNoFormat, nodePos(n)
	}
	r.v = v
	return r, nil
}

func (c *conv) scalarValue(n *yaml.Node) (any, *loadError) {
	tag := explicitTag(n)
	if tag == "" {
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return n.Value, nil // Psych's "quoted": never resolved
		}
		return tokenize(n.Value)
	}
	v := n.Value
	switch tag {
	case "!binary", yamlTagPrefix + "binary":
		return unpackBase64(v), nil
	case yamlTagPrefix + "str":
		return v, nil
	case "!ruby/object:BigDecimal":
		return nil, disallowed("BigDecimal")
	case "!ruby/object:DateTime":
		return nil, disallowed("DateTime")
	case "!ruby/encoding":
		return renc(v), nil
	case "!ruby/object:Complex":
		return nil, disallowed("Complex")
	case "!ruby/object:Rational":
		return nil, disallowed("Rational")
	case "!ruby/class", "!ruby/module":
		if v == "" {
			return nil, nil
		}
		return nil, resolveClass(v)
	case yamlTagPrefix + "float", "!float":
		t, err := tokenize(v)
		if err != nil {
			return nil, err
		}
		return toFloat(t)
	case "!ruby/regexp":
		return nil, disallowed("Regexp")
	case "!ruby/range":
		return nil, disallowed("Range")
	}
	if m := reStrTag.FindStringSubmatch(tag); m != nil {
		if m[1] != "" {
			return nil, resolveClass(m[1])
		}
		return v, nil
	}
	if reSymTag.MatchString(tag) {
		return rsym(v), nil
	}
	return tokenize(v)
}

// toFloat is Kernel#Float applied to a tokenized scalar.
func toFloat(v any) (any, *loadError) {
	switch v := v.(type) {
	case int64:
		return float64(v), nil
	case float64:
		return v, nil
	case rbig:
		f, _ := new(big.Float).SetString(string(v))
		x, _ := f.Float64()
		return x, nil
	case string:
		return kernelFloat(v)
	case nil:
		return nil, &loadError{kind: errOther, msg: "can't convert nil into Float"}
	case bool:
		return nil, &loadError{kind: errOther, msg: fmt.Sprintf("can't convert %v into Float", v)}
	case rsym:
		return nil, &loadError{kind: errOther, msg: "can't convert Symbol into Float"}
	}
	return nil, limitError("cannot convert %T to Float", v)
}

// unpackBase64 is String#unpack('m'): lenient RFC 2045 decoding that skips
// characters outside the alphabet and stops at padding.
func unpackBase64(s string) string {
	var out []byte
	var acc uint32
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			break
		}
		d := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", c)
		if d < 0 {
			continue
		}
		acc = acc<<6 | uint32(d)
		n++
		if n == 4 {
			out = append(out, byte(acc>>16), byte(acc>>8), byte(acc))
			acc, n = 0, 0
		}
	}
	switch n {
	case 2:
		out = append(out, byte(acc>>4))
	case 3:
		out = append(out, byte(acc>>10), byte(acc>>2))
	}
	return string(out)
}

// sequence is ToRuby#visit_Psych_Nodes_Sequence.
func (c *conv) sequence(n *yaml.Node, depth int) (cv, *loadError) {
	switch tag := explicitTag(n); {
	case tag == "!omap" || tag == yamlTagPrefix+"omap":
		return c.omap(n, depth)
	case reSeqClassTag.MatchString(tag):
		name := reSeqClassTag.FindStringSubmatch(tag)[1]
		if name == "" {
			return cv{}, argumentError("undefined method `allocate' for nil:NilClass")
		}
		return cv{}, resolveClass(name)
	}
	if depth+1 > MaxDepth {
		return cv{}, stackError("nesting deeper than %d levels once aliases are expanded", MaxDepth)
	}
	if err := c.account(1, nodePos(n)); err != nil {
		return cv{}, err
	}
	r := cv{meta: meta{size: 1, depth: 1}}
	keep := c.mergeSeq == n
	c.mergeSeq = nil
	list := make([]any, 0, len(n.Content))
	for _, e := range n.Content {
		ev, err := c.convert(e, depth+1)
		if err != nil {
			return cv{}, err
		}
		r.absorb(ev.meta)
		list = append(list, ev.v)
		if keep {
			r.elems = append(r.elems, cv{v: ev.v, psych: ev.psych})
		}
	}
	r.v = list
	return r, nil
}

// omap is a sequence tagged !!omap, which Psych builds as a Psych::Omap (a
// Hash) without asking the class loader: each element gives one entry,
// from its first child to its last (so {a: 1, b: 2} gives a => 2).
func (c *conv) omap(n *yaml.Node, depth int) (cv, *loadError) {
	if depth+1 > MaxDepth {
		return cv{}, stackError("nesting deeper than %d levels once aliases are expanded", MaxDepth)
	}
	if err := c.account(1, nodePos(n)); err != nil {
		return cv{}, err
	}
	h := newEntries(len(n.Content))
	if m := c.memo[n]; m != nil && m.busy {
		m.building = h
	}
	for _, a := range n.Content {
		if a.Kind != yaml.MappingNode && a.Kind != yaml.SequenceNode {
			return cv{}, argumentError("undefined method `first' for nil:NilClass").at(nodePos(a))
		}
		if len(a.Content) == 0 {
			return cv{}, argumentError("undefined method `visit_NilClass' for Psych::Visitors::ToRuby").at(nodePos(a))
		}
		kn, vn := a.Content[0], a.Content[len(a.Content)-1]
		k, err := c.convert(kn, depth+1)
		if err != nil {
			return cv{}, err
		}
		v, err := c.convert(vn, depth+1)
		if err != nil {
			return cv{}, err
		}
		v.size += k.size
		h.set(k.v, v.v, v.meta, nodePos(kn))
	}
	return h.finish(), nil
}

// mapping is ToRuby#visit_Psych_Nodes_Mapping.
func (c *conv) mapping(n *yaml.Node, depth int) (cv, *loadError) {
	tag := explicitTag(n)
	switch {
	case tag == "":
	case reStructTag.MatchString(tag):
		if name := reStructTag.FindStringSubmatch(tag)[1]; name != "" {
			return cv{}, resolveClass(name)
		}
		return cv{}, disallowed("Struct")
	case reObjectTag.MatchString(tag):
		switch name := reObjectTag.FindStringSubmatch(tag)[1]; name {
		case "Hash": // revived as a plain hash
		case "":
			return cv{}, disallowed("Object")
		case "Complex", "Rational":
			return cv{}, disallowed(name)
		default:
			return cv{}, resolveClass(name)
		}
	case reStrTag.MatchString(tag) || tag == yamlTagPrefix+"str":
		if m := reStrTag.FindStringSubmatch(tag); m != nil && m[1] != "" {
			return cv{}, resolveClass(m[1])
		}
		return cv{}, unsupportedTag(tag, "mapping")
	case reArrayTag.MatchString(tag):
		if name := reArrayTag.FindStringSubmatch(tag)[1]; name != "" {
			return cv{}, resolveClass(name)
		}
		return cv{}, argumentError("undefined method `allocate' for nil:NilClass")
	case tag == "!ruby/range":
		return cv{}, disallowed("Range")
	case reExcTag.MatchString(tag):
		if name := reExcTag.FindStringSubmatch(tag)[1]; name != "" {
			return cv{}, resolveClass(name)
		}
		return cv{}, disallowed("Exception")
	case tag == "!set" || tag == yamlTagPrefix+"set":
		return cv{}, disallowed("Psych::Set")
	case reIvarsTag.MatchString(tag):
		if name := reIvarsTag.FindStringSubmatch(tag)[1]; name != "" {
			return cv{}, resolveClass(name)
		}
		return cv{}, unsupportedTag(tag, "mapping")
	case reMapTag.MatchString(tag):
		m := reMapTag.FindStringSubmatch(tag)
		if name := m[1] + m[2]; name != "" {
			return cv{}, resolveClass(name)
		}
		return cv{}, argumentError("undefined method `allocate' for nil:NilClass")
	case tag == "!omap" || tag == yamlTagPrefix+"omap":
		return cv{}, disallowed("Psych::Omap")
	case reMarshalTag.MatchString(tag):
		return cv{}, resolveClass(reMarshalTag.FindStringSubmatch(tag)[1])
	}
	if depth+1 > MaxDepth {
		return cv{}, stackError("nesting deeper than %d levels once aliases are expanded", MaxDepth)
	}
	if err := c.account(1, nodePos(n)); err != nil {
		return cv{}, err
	}
	h := newEntries(len(n.Content) / 2)
	if m := c.memo[n]; m != nil && m.busy {
		m.building = h
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		k, err := c.convert(kn, depth+1)
		if err != nil {
			return cv{}, err
		}
		s, ok := k.v.(string)
		isMerge := ok && s == "<<" && !(kn.Kind == yaml.ScalarNode && explicitTag(kn) == yamlTagPrefix+"str")
		if isMerge && vn.Kind == yaml.SequenceNode {
			c.mergeSeq = vn
		}
		v, err := c.convert(vn, depth+1)
		c.mergeSeq = nil
		if err != nil {
			return cv{}, err
		}
		kp := nodePos(kn)
		if isMerge && c.merge(h, vn, v, kp) {
			continue
		}
		// A key's own flags only matter when it is not a valid hash key,
		// which finish works out; but a recursive key sends Puppet's type
		// inference for the error message into infinite recursion.
		if k.flags&fRecursive != 0 {
			v.flags |= fInferLoop | fNotLookup
		}
		v.size += k.size // the key counts towards the entry's size
		if first, dup := h.set(k.v, v.v, v.meta, kp); dup {
			c.duplicate(k.v, first, kp)
		}
	}
	return h.finish(), nil
}

// merge applies a << key the way revive_hash does, and reports whether it
// did: a value that is not a hash (or a sequence of hashes) is stored under
// the "<<" key instead, as Ruby's merge! raises TypeError.
func (c *conv) merge(h *entries, vn *yaml.Node, v cv, kp Pos) bool {
	switch vn.Kind {
	case yaml.AliasNode, yaml.MappingNode:
		if v.psych == nil {
			return false
		}
		h.mergeFrom(v.psych, kp)
		return true
	case yaml.SequenceNode:
		for _, e := range v.elems {
			if e.psych == nil {
				return false
			}
		}
		// Ruby: h = {}; val.reverse_each { |x| h.merge!(x) }; hash.merge!(h)
		tmp := newEntries(0)
		for i := len(v.elems) - 1; i >= 0; i-- {
			tmp.mergeFrom(v.elems[i].psych, kp)
		}
		h.mergeFrom(tmp, kp)
		return true
	}
	return false
}

// entries is a Ruby Hash under construction: insertion-ordered, a
// repeated key keeps its first position and takes the last value.
type entries struct {
	keys  []any
	vals  []any
	metas []meta
	pos   []Pos // key positions
	index map[any]int
	sym   bool // some key is a Symbol
	// merged[i]: entry i came from a << merge, which a key written in the
	// mapping overrides without being a duplicate; nil until a merge.
	merged []bool
}

func newEntries(n int) *entries {
	kv := make([]any, 2*n) // keys and values, in one allocation
	return &entries{keys: kv[:0:n], vals: kv[n : n : 2*n], metas: make([]meta, 0, n), pos: make([]Pos, 0, n)}
}

// indexAt is the size from which lookups use a map instead of scanning.
const indexAt = 8

func (h *entries) find(ik any) int {
	if h.index != nil {
		if i, ok := h.index[ik]; ok {
			return i
		}
		return -1
	}
	for i, k := range h.keys {
		if indexKey(k) == ik {
			return i
		}
	}
	return -1
}

// set stores k: v, written at kp. When the hash held k already, written
// in the mapping itself (not brought by a << merge), dup is true and first
// is where it was.
func (h *entries) set(k, v any, m meta, kp Pos) (first Pos, dup bool) {
	ik := indexKey(k)
	if i := h.find(ik); i >= 0 {
		// The key keeps its place in the hash; its value, and so the
		// position a user is sent to, are the later one's.
		first, dup = h.pos[i], h.merged == nil || !h.merged[i]
		h.vals[i], h.metas[i], h.pos[i] = v, m, kp
		if h.merged != nil {
			h.merged[i] = false
		}
		return first, dup
	}
	if _, ok := k.(rsym); ok {
		h.sym = true
	}
	h.keys = append(h.keys, k)
	h.vals = append(h.vals, v)
	h.metas = append(h.metas, m)
	h.pos = append(h.pos, kp)
	if h.merged != nil {
		h.merged = append(h.merged, false)
	}
	switch {
	case h.index != nil:
		h.index[ik] = len(h.keys) - 1
	case len(h.keys) > indexAt:
		h.index = make(map[any]int, 2*len(h.keys))
		for i, k := range h.keys {
			h.index[indexKey(k)] = i
		}
	}
	return Pos{}, false
}

// mergeFrom is Hash#merge!: src's entries in src's order, existing keys
// keeping their position. Merged keys take the position of the << key.
func (h *entries) mergeFrom(src *entries, kp Pos) {
	if h.merged == nil {
		h.merged = make([]bool, len(h.keys), cap(h.keys))
	}
	for i, k := range src.keys {
		h.set(k, src.vals[i], src.metas[i], kp)
		h.merged[h.find(indexKey(k))] = true
	}
}

// finish turns the Psych-level entries into the value Puppet ends up with:
// symkeys_to_string renames symbol keys (a later duplicate wins, at the
// first one's position), then the keys decide between *format.Hash and
// rhash.
func (h *entries) finish() cv {
	final := h
	if h.sym {
		final = newEntries(len(h.keys))
		for i, k := range h.keys {
			if s, ok := k.(rsym); ok {
				k = string(s)
			}
			final.set(k, h.vals[i], h.metas[i], h.pos[i])
		}
	}
	r := cv{meta: meta{size: 1, depth: 1}, psych: h, final: final}
	// symkeys_to_string walks every entry before later ones replace it, so
	// a recursive value anywhere in the Ruby hash sends it into infinite
	// recursion, even if a renamed symbol key drops it afterwards.
	for _, m := range h.metas {
		if m.flags&fRecursive != 0 {
			r.flags |= fRecursive
			r.pos = m.pos
		}
	}
	formatKeys := true
	for i, k := range final.keys {
		r.absorb(final.metas[i])
		if !isFormatKey(k) {
			formatKeys = false
		}
		if !isLookupKey(k) && r.flags&fNotLookup == 0 {
			if r.flags&badFlags == 0 {
				r.pos = final.pos[i]
			}
			r.flags |= fNotLookup
		}
	}
	if !formatKeys {
		if r.flags&badFlags == 0 {
			r.pos = final.pos[0]
		}
		r.flags |= fNoFormat
		r.v = &rhash{keys: final.keys, vals: final.vals}
		return r
	}
	// The keys are distinct (entries' index found each) and format keys:
	// the hash takes the entries' memory, never changed again.
	r.v = format.HashOf(final.keys, final.vals, final.index)
	return r
}

// isFormatKey reports whether a format.Hash can hold k.
func isFormatKey(k any) bool {
	switch k := k.(type) {
	case nil, bool, int64, string:
		return true
	case float64:
		return !math.IsNaN(k)
	}
	return false
}

// isLookupKey reports whether Puppet's LookupValue type accepts k as a hash
// key (RichDataKey: String or Numeric, NaN excepted).
func isLookupKey(k any) bool {
	switch k := k.(type) {
	case string, int64, rbig:
		return true
	case float64:
		return !math.IsNaN(k)
	}
	return false
}

// nanKey stands for NaN in indexes: Psych returns the one Float::NAN
// object for every NaN, so all NaN keys are the same key.
type nanKey struct{}

// ckey is the canonical form of an array or hash key (Ruby's eql?).
type ckey string

func indexKey(k any) any {
	switch k := k.(type) {
	case float64:
		if math.IsNaN(k) {
			return nanKey{}
		}
		if k == 0 {
			return float64(0) // 0.0 and -0.0 are one key in Ruby
		}
	case []any, *format.Hash, *rhash:
		return ckey(canon(k))
	}
	return k
}

// canon writes v so that values Ruby's eql? finds equal (hashes in any
// order) write the same.
func canon(v any) string {
	switch v := v.(type) {
	case nil:
		return "n"
	case bool:
		return "b" + strconv.FormatBool(v)
	case int64:
		return "i" + strconv.FormatInt(v, 10)
	case rbig:
		return "i" + string(v)
	case float64:
		if math.IsNaN(v) {
			return "fnan"
		}
		if v == 0 {
			v = 0
		}
		return "f" + strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		return "s" + strconv.Quote(v)
	case rsym:
		return "y" + strconv.Quote(string(v))
	case renc:
		return "e" + strconv.Quote(string(v))
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = canon(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *format.Hash:
		return canonPairs(v.Keys(), func(i int) any { return v.Value(i) })
	case *rhash:
		return canonPairs(v.keys, func(i int) any { return v.vals[i] })
	}
	return fmt.Sprintf("?%T", v)
}

func canonPairs(keys []any, val func(int) any) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = canon(k) + ":" + canon(val(i))
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// describeUnrepresentable names the first part of v that the format model
// cannot hold, for Value's error.
func describeUnrepresentable(v any) string {
	switch v := v.(type) {
	case rsym:
		if v == "default" || v == "undef" {
			return "" // read as strings
		}
		return "the Ruby symbol :" + string(v)
	case rbig:
		return "the integer " + string(v) + ", outside the 64-bit range"
	case renc:
		return "a Ruby Encoding (" + string(v) + ")"
	case []any:
		for _, e := range v {
			if d := describeUnrepresentable(e); d != "" {
				return d
			}
		}
	case *format.Hash:
		for _, e := range v.All() {
			if d := describeUnrepresentable(e); d != "" {
				return d
			}
		}
	case *rhash:
		for i, k := range v.keys {
			if !isFormatKey(k) {
				return "the hash key " + ruby.Inspect(k) + " (hash keys must be strings, numbers, booleans or null)"
			}
			if d := describeUnrepresentable(v.vals[i]); d != "" {
				return d
			}
		}
	}
	return ""
}

// symbolsToStrings returns v with the symbols :default and :undef replaced
// by the strings puppet lookup prints for them, copying the containers on
// the way (the originals may be shared through aliases).
func symbolsToStrings(v any) any {
	switch v := v.(type) {
	case rsym:
		return string(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = symbolsToStrings(e)
		}
		return out
	case *format.Hash:
		out := format.NewHash(v.Len())
		for k, e := range v.All() {
			out.Set(k, symbolsToStrings(e))
		}
		return out
	}
	return v
}
