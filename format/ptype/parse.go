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
	kind tokKind
	text string // punctuation, name, word, or the string's or regexp's content
	pos  int    // byte offset
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
		var err error
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '=' && strings.HasPrefix(s[i:], "=>"):
			p.toks = append(p.toks, token{tPunct, "=>", i})
			i += 2
		case strings.IndexByte("[]{},", c) >= 0:
			p.toks = append(p.toks, token{tPunct, string(c), i})
			i++
		case c == '\'' || c == '"':
			i, err = p.lexString(i)
		case c == '/':
			i, err = p.lexRegex(i)
		case c == '-' || c >= '0' && c <= '9':
			i, err = p.lexNumber(i)
		case c == ':' && !strings.HasPrefix(s[i:], "::"), c == '@':
			// Tokens of Puppet's lexer that no type expression holds: the
			// parser fails at them ("user:String@db" at ':').
			p.toks = append(p.toks, token{tPunct, string(c), i})
			i++
		case isWordByte(c) || c == ':':
			i = p.lexWord(i)
		default:
			return p.syntax(token{tPunct, string(c), i})
		}
		if err != nil {
			return err
		}
	}
	p.toks = append(p.toks, token{tEOF, "", len(s)})
	return nil
}

// lexString reads the quoted string at i (its quote), and returns where
// the next token starts.
func (p *parser) lexString(i int) (int, error) {
	s, c := p.src, p.src[i]
	var b strings.Builder
	j := i + 1
	for ; j < len(s) && s[j] != c; j++ {
		if s[j] == '\\' && j+1 < len(s) && (s[j+1] == c || s[j+1] == '\\') {
			j++
		}
		b.WriteByte(s[j])
	}
	if j >= len(s) {
		return 0, errors.New("Syntax error at end of input")
	}
	p.toks = append(p.toks, token{tString, b.String(), i})
	return j + 1, nil
}

// lexRegex reads the regular expression at i (its opening slash).
func (p *parser) lexRegex(i int) (int, error) {
	s := p.src
	j := i + 1
	for ; j < len(s) && s[j] != '/'; j++ {
		if s[j] == '\\' && j+1 < len(s) {
			j++
		}
	}
	if j >= len(s) {
		return 0, errors.New("Syntax error at end of input")
	}
	p.toks = append(p.toks, token{tRegex, s[i+1 : j], i}) // as written: Puppet prints it so
	return j + 1, nil
}

// lexNumber reads the integer or float at i.
func (p *parser) lexNumber(i int) (int, error) {
	s := p.src
	j := i + 1
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == '_' || s[j] == 'x') {
		j++
	}
	text := s[i:j]
	if _, err := strconv.ParseInt(text, 0, 64); err == nil {
		p.toks = append(p.toks, token{tInt, text, i})
	} else if _, err := strconv.ParseFloat(text, 64); err == nil {
		p.toks = append(p.toks, token{tFloat, text, i})
	} else {
		return 0, p.syntax(token{tWord, text, i})
	}
	return j, nil
}

// lexWord reads the name or word at i: its segments are joined by "::"
// (a lone ':' ends it).
func (p *parser) lexWord(i int) int {
	s := p.src
	j := i
	for j < len(s) && (isWordByte(s[j]) || strings.HasPrefix(s[j:], "::")) {
		if s[j] == ':' {
			j++
		}
		j++
	}
	text := s[i:j]
	k := tWord
	if text[0] >= 'A' && text[0] <= 'Z' || strings.HasPrefix(text, "::") && len(text) > 2 && text[2] >= 'A' && text[2] <= 'Z' {
		k = tName
	}
	p.toks = append(p.toks, token{k, text, i})
	return j
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

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
	if t := p.next(); t.kind != tPunct || t.text != text {
		return p.syntax(t)
	}
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
	start := t.pos
	switch t.kind {
	case tEOF:
		return nil, p.syntax(t)
	case tPunct:
		if t.text != "{" {
			return nil, p.syntax(t)
		}
		n := &node{kind: tPunct}
		for {
			if q := p.peek(); q.kind == tPunct && q.text == "}" {
				p.next()
				break
			}
			k, err := p.arg()
			if err != nil {
				return nil, err
			}
			if err := p.expect("=>"); err != nil {
				return nil, err
			}
			v, err := p.arg()
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k)
			n.args = append(n.args, v)
			if q := p.peek(); q.kind == tPunct && q.text == "," {
				p.next()
				continue
			}
			if err := p.expect("}"); err != nil {
				return nil, err
			}
			break
		}
		n.src = p.src[start : p.toks[p.i-1].pos+1]
		return n, nil
	case tName:
		n := &node{kind: tName, text: t.text}
		if q := p.peek(); q.kind == tPunct && q.text == "[" {
			p.next()
			if q := p.peek(); q.kind == tPunct && q.text == "]" {
				return nil, p.syntax(q)
			}
			for {
				a, err := p.arg()
				if err != nil {
					return nil, err
				}
				n.args = append(n.args, a)
				q := p.next()
				if q.kind == tPunct && q.text == "]" {
					break
				}
				if q.kind != tPunct || q.text != "," {
					return nil, p.syntax(q)
				}
				if q := p.peek(); q.kind == tPunct && q.text == "]" {
					p.next()
					break
				}
			}
			if n.args == nil {
				n.args = []*node{}
			}
		}
		n.src = p.src[start:p.end()]
		return n, nil
	}
	n := &node{kind: t.kind, text: t.text}
	n.src = p.src[start:p.end()]
	return n, nil
}

// end is the byte offset after the last token read.
func (p *parser) end() int {
	t := p.toks[p.i-1]
	switch t.kind {
	case tString, tRegex:
		// Find the closing quote after the token's start.
		q := p.src[t.pos]
		for j := t.pos + 1; j < len(p.src); j++ {
			if p.src[j] == '\\' {
				j++
				continue
			}
			if p.src[j] == q {
				return j + 1
			}
		}
		return len(p.src)
	}
	return t.pos + len(t.text)
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
	t := &Type{Kind: Integer}
	if len(b) > 0 {
		t.lo = b[0]
	}
	if len(b) > 1 {
		t.hi = b[1]
	}
	return t, nil
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
