package ptype

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format/ruby"
)

// Parse reads a Puppet type expression. Its errors are Puppet's type
// parser's where Puppet refuses the expression ("Syntax error at end of
// input", "The expression <string> is not a valid type specification.").
func Parse(s string) (*Type, error) {
	p := &parser{src: s}
	if err := p.lex(); err != nil {
		return nil, err
	}
	n, err := p.arg()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.syntax(t)
	}
	if n.kind != tName {
		return nil, invalid(n.src)
	}
	return build(n)
}

// MustParse is Parse for types known to be valid; it panics on an error.
func MustParse(s string) *Type {
	t, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tName
	tWord
	tInt
	tFloat
	tString
	tRegex
	tPunct // [ ] { } , =>
)

type token struct {
	kind     tokKind
	text     string // punctuation, name, word, or the string's or regexp's content
	pos, end int    // byte offsets
}

type parser struct {
	src  string
	toks []token
	i    int
}

func (p *parser) lex() error {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		t, err := token{kind: tPunct, text: string(c), pos: i, end: i + 1}, error(nil)
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case strings.HasPrefix(s[i:], "=>"):
			t.text, t.end = "=>", i+2
		case strings.IndexByte("[]{},@", c) >= 0 || c == ':' && !strings.HasPrefix(s[i:], "::"):
			// ':' and '@' are tokens of Puppet's lexer that no type
			// expression holds: the parser fails at them ("user:String@db"
			// at ':').
		case c == '\'' || c == '"' || c == '/':
			t, err = p.lexQuoted(i)
		case c == '-' || c >= '0' && c <= '9':
			t, err = p.lexNumber(i)
		case isWordByte(c) || c == ':':
			t = p.lexWord(i)
		default:
			return p.syntax(t)
		}
		if err != nil {
			return err
		}
		p.toks = append(p.toks, t)
		i = t.end
	}
	p.toks = append(p.toks, token{kind: tEOF, pos: len(s), end: len(s)})
	return nil
}

// lexQuoted reads the string or the regexp at i (its quote or slash). A
// string's backslash escapes its quote or a backslash; a regexp's content
// is kept as written (Puppet prints it so).
func (p *parser) lexQuoted(i int) (token, error) {
	s, q := p.src, p.src[i]
	var b strings.Builder
	j := i + 1
	for ; j < len(s) && s[j] != q; j++ {
		if s[j] == '\\' && j+1 < len(s) && (q == '/' || s[j+1] == q || s[j+1] == '\\') {
			j++
		}
		b.WriteByte(s[j])
	}
	if j >= len(s) {
		return token{}, errors.New("Syntax error at end of input")
	}
	if q == '/' {
		return token{tRegex, s[i+1 : j], i, j + 1}, nil
	}
	return token{tString, b.String(), i, j + 1}, nil
}

// lexNumber reads the integer or float at i.
func (p *parser) lexNumber(i int) (token, error) {
	s := p.src
	j := i + 1
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || strings.IndexByte("._eEx", s[j]) >= 0) {
		j++
	}
	t := token{tInt, s[i:j], i, j}
	if _, err := strconv.ParseInt(t.text, 0, 64); err == nil {
		return t, nil
	}
	if _, err := strconv.ParseFloat(t.text, 64); err == nil {
		t.kind = tFloat
		return t, nil
	}
	return t, p.syntax(token{kind: tWord, text: t.text, pos: i})
}

// lexWord reads the name or word at i: its segments are joined by "::"
// (a lone ':' ends it).
func (p *parser) lexWord(i int) token {
	s := p.src
	j := i
	for j < len(s) && (isWordByte(s[j]) || strings.HasPrefix(s[j:], "::")) {
		if s[j] == ':' {
			j++
		}
		j++
	}
	t := token{tWord, s[i:j], i, j}
	if name := strings.TrimPrefix(t.text, "::"); name != "" && name[0] >= 'A' && name[0] <= 'Z' {
		t.kind = tName
	}
	return t
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

// at reports whether the next token is the punctuation text.
func (p *parser) at(text string) bool { t := p.peek(); return t.kind == tPunct && t.text == text }

func (p *parser) syntax(t token) error {
	if t.kind == tEOF {
		return errors.New("Syntax error at end of input")
	}
	text := t.text
	if t.kind == tString || t.kind == tRegex {
		text = p.src[t.pos : t.pos+1]
	}
	return fmt.Errorf("Syntax error at '%s' (line: 1, column: %d)", text, t.pos+1)
}

func (p *parser) expect(text string) error {
	if !p.at(text) {
		return p.syntax(p.peek())
	}
	p.next()
	return nil
}

// node is a parsed argument before it is built into a type.
type node struct {
	kind tokKind // tName (with args when bracketed), tWord, tInt, tFloat, tString, tRegex, or tPunct for a hash
	text string
	args []*node
	keys []*node // hash keys, parallel to args
	src  string  // the source text, for messages
}

func (p *parser) arg() (*node, error) {
	t := p.next()
	n := &node{kind: t.kind, text: t.text}
	var err error
	switch {
	case t.kind == tEOF || t.kind == tPunct && t.text != "{":
		return nil, p.syntax(t)
	case t.kind == tPunct:
		err = p.hash(n)
	case t.kind == tName && p.at("["):
		err = p.params(n)
	}
	if err != nil {
		return nil, err
	}
	n.src = p.src[t.pos:p.toks[p.i-1].end]
	return n, nil
}

// hash reads a hash's entries after its '{'.
func (p *parser) hash(n *node) error {
	for !p.at("}") {
		k, err := p.arg()
		if err != nil {
			return err
		}
		if err := p.expect("=>"); err != nil {
			return err
		}
		v, err := p.arg()
		if err != nil {
			return err
		}
		n.keys, n.args = append(n.keys, k), append(n.args, v)
		if !p.at(",") {
			break
		}
		p.next()
	}
	return p.expect("}")
}

// params reads a type's bracketed parameters.
func (p *parser) params(n *node) error {
	p.next()
	if p.at("]") {
		return p.syntax(p.peek())
	}
	n.args = []*node{}
	for {
		a, err := p.arg()
		if err != nil {
			return err
		}
		n.args = append(n.args, a)
		q := p.next()
		if q.kind != tPunct || q.text != "]" && q.text != "," {
			return p.syntax(q)
		}
		if q.text == "," && p.at("]") {
			q = p.next() // a trailing comma
		}
		if q.text == "]" {
			return nil
		}
	}
}

func invalid(src string) error {
	return fmt.Errorf("The expression <%s> is not a valid type specification.", src)
}

func paramCount(name string, lo, hi, got int) error {
	want := strconv.Itoa(lo)
	if hi != lo {
		if hi < 0 {
			want += " or more"
		} else {
			want += " to " + strconv.Itoa(hi)
		}
	}
	return fmt.Errorf("Invalid number of type parameters specified: %s requires %s, %d provided", name, want, got)
}

// simpleKinds are the types that take no parameters.
var simpleKinds = map[string]Kind{"Any": Any, "Undef": Undef, "Default": Default, "Boolean": Boolean, "Numeric": Numeric,
	"Scalar": Scalar, "ScalarData": ScalarData, "Data": Data, "RichData": RichData}

// build turns a parsed type expression into a Type.
func build(n *node) (*Type, error) {
	if n.kind != tName {
		return nil, invalid(n.src)
	}
	name := strings.TrimPrefix(n.text, "::")
	args := n.args
	if k, ok := simpleKinds[name]; ok {
		if args != nil {
			return nil, fmt.Errorf("hieracc does not support parameters of %s: %s", name, n.src)
		}
		return &Type{Kind: k}, nil
	}
	switch name {
	case "Integer", "String":
		return buildIntegerOrString(n, name)
	case "Float":
		return buildFloat(n)
	case "Enum":
		return buildEnum(args)
	case "Pattern":
		return buildPattern(n)
	case "Array", "Hash":
		return buildCollection(n, name)
	case "Tuple":
		return buildTuple(n)
	case "Struct":
		return buildStruct(n)
	case "Optional", "NotUndef", "Sensitive":
		if len(args) > 1 {
			return nil, paramCount(name, 1, 1, len(args))
		}
		elems, err := buildTypes(args)
		return &Type{Kind: map[string]Kind{"Optional": Optional, "NotUndef": NotUndef, "Sensitive": Sensitive}[name], elems: elems}, err
	case "Variant":
		elems, err := buildTypes(args)
		return maybeVariant(elems), err // as Puppet's parser does
	case "Collection", "Regexp", "Type", "Callable", "Iterable", "Iterator", "Runtime", "Object", "Init",
		"SemVer", "SemVerRange", "Timespan", "Timestamp", "Binary", "URI", "Error", "TypeSet", "CatalogEntry",
		"Resource", "Class", "NotYetImplemented", "Unit":
		return nil, fmt.Errorf("hieracc does not support the type %s", name)
	}
	for _, a := range args { // a reference still needs well-formed arguments
		if a.kind == tName {
			if _, err := build(a); err != nil {
				return nil, err
			}
		}
	}
	return &Type{Kind: Reference, name: n.src}, nil
}

// buildTypes builds each of ns.
func buildTypes(ns []*node) ([]*Type, error) {
	out := make([]*Type, len(ns))
	for i, a := range ns {
		t, err := build(a)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// buildIntegerOrString builds Integer[min, max] or String[min, max].
func buildIntegerOrString(n *node, name string) (*Type, error) {
	if len(n.args) > 2 {
		return nil, paramCount(name, 0, 2, len(n.args))
	}
	b, err := bounds(n.args, n.src)
	if err != nil || name == "String" {
		return &Type{Kind: String, size: sizeOf(b)}, err
	}
	b = append(b, nil, nil) // open unless given
	return &Type{Kind: Integer, lo: b[0], hi: b[1]}, nil
}

// buildFloat builds Float[min, max].
func buildFloat(n *node) (*Type, error) {
	if len(n.args) > 2 {
		return nil, paramCount("Float", 0, 2, len(n.args))
	}
	t := Of(Float)
	for i, a := range n.args {
		v := [2]float64{t.flo, t.fhi}[i]
		switch a.kind {
		case tInt:
			iv, _ := strconv.ParseInt(a.text, 0, 64)
			v = float64(iv)
		case tFloat:
			v, _ = strconv.ParseFloat(a.text, 64)
		case tWord:
			if a.text != "default" {
				return nil, invalid(n.src)
			}
		default:
			return nil, invalid(n.src)
		}
		if i == 0 {
			t.flo = v
		} else {
			t.fhi = v
		}
	}
	if t.flo > t.fhi {
		return nil, fmt.Errorf("'from' must be less or equal to 'to'. Got (%s, %s", ruby.Float(t.flo), ruby.Float(t.fhi))
	}
	return t, nil
}

// buildEnum builds Enum[names...]: PEnumType keeps its values sorted and
// distinct.
func buildEnum(args []*node) (*Type, error) {
	var names []string
	for _, a := range args {
		if a.kind != tString && a.kind != tWord {
			return nil, fmt.Errorf("hieracc does not support this parameter of Enum: %s", a.src)
		}
		names = append(names, a.text)
	}
	return newEnum(names), nil
}

// buildPattern builds Pattern[regexps...].
func buildPattern(n *node) (*Type, error) {
	t := &Type{Kind: Pattern}
	for _, a := range n.args {
		if a.kind != tString && a.kind != tRegex {
			return nil, invalid(n.src)
		}
		src := a.text
		if a.kind == tString {
			src = strings.ReplaceAll(src, "/", `\/`)
		}
		re, err := regexp.Compile(src)
		if err != nil {
			return nil, fmt.Errorf("hieracc cannot read the regexp /%s/ (Go's RE2 syntax): %v", src, err)
		}
		t.patterns = append(t.patterns, re)
		t.sources = append(t.sources, src)
	}
	return t, nil
}

// buildCollection builds Array[elem, min, max] and Hash[key, value, min,
// max].
func buildCollection(n *node, name string) (*Type, error) {
	args := n.args
	t := Of(Array)
	if name == "Hash" {
		t = Of(Hash)
		if len(args) == 1 || len(args) > 4 {
			return nil, paramCount("Hash", 2, 4, len(args))
		}
	} else if len(args) > 3 {
		return nil, paramCount("Array", 0, 3, len(args))
	}
	switch ne := len(t.elems); {
	case len(args) >= ne && args[0].kind == tName:
		elems, err := buildTypes(args[:ne])
		if err != nil {
			return nil, err
		}
		t.elems, args = elems, args[ne:]
	case len(args) == 2:
		for i := range t.elems {
			t.elems[i] = &Type{Kind: Default} // Puppet reads Array[1, 2] and Hash[1, 2] so
		}
	case len(args) == 1:
		return nil, invalid(n.src)
	}
	return sized(t, args, n.src)
}

// buildTuple builds Tuple[elems..., min, max].
func buildTuple(n *node) (*Type, error) {
	i := 0
	for i < len(n.args) && n.args[i].kind == tName {
		i++
	}
	elems, err := buildTypes(n.args[:i])
	if err != nil {
		return nil, err
	}
	return sized(&Type{Kind: Tuple, elems: elems}, n.args[i:], n.src)
}

// sized sets t's size from the bounds that end Array's, Hash's and
// Tuple's parameters.
func sized(t *Type, args []*node, src string) (*Type, error) {
	if len(args) > 2 {
		return nil, invalid(src)
	}
	b, err := bounds(args, src)
	if len(args) > 0 {
		t.size = sizeOf(b)
	}
	return t, err
}

// bounds reads integer parameters: nil for default. A range's from must
// not exceed its to.
func bounds(args []*node, src string) ([]*big.Int, error) {
	b := make([]*big.Int, len(args))
	for i, a := range args {
		switch {
		case a.kind == tInt:
			b[i], _ = new(big.Int).SetString(a.text, 0)
		case a.kind != tWord || a.text != "default":
			return nil, invalid(src)
		}
	}
	if len(b) == 2 && b[0] != nil && b[1] != nil && b[0].Cmp(b[1]) > 0 {
		return nil, fmt.Errorf("'from' must be less or equal to 'to'. Got (%d, %d", b[0], b[1])
	}
	return b, nil
}

// sizeOf is the size range of bounds b.
func sizeOf(b []*big.Int) *[2]int64 {
	if len(b) == 0 {
		return nil
	}
	s := [2]int64{0, maxInt}
	for i, x := range b {
		if x != nil {
			s[i] = x.Int64()
		}
	}
	return &s
}

// buildStruct builds Struct[{key => type, ...}]. A key may be absent when
// it is written Optional[k], or is plain and its type accepts undef.
func buildStruct(n *node) (*Type, error) {
	if n.args == nil {
		return &Type{Kind: Struct}, nil
	}
	if len(n.args) != 1 {
		return nil, paramCount("Struct", 1, 1, len(n.args))
	}
	h := n.args[0]
	if h.kind != tPunct {
		return nil, invalid(n.src)
	}
	t := &Type{Kind: Struct}
	for i, k := range h.keys {
		wrapper := ""
		if k.kind == tName && (k.text == "Optional" || k.text == "NotUndef") && len(k.args) == 1 {
			wrapper, k = k.text, k.args[0]
		}
		if k.kind != tString && k.kind != tWord {
			return nil, invalid(n.src)
		}
		v, err := build(h.args[i])
		if err != nil {
			return nil, err
		}
		t.names = append(t.names, k.text)
		t.optional = append(t.optional, wrapper == "Optional" || wrapper == "" && v.Match(nil))
		t.elems = append(t.elems, v)
	}
	return t, nil
}
