package ptype

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format/ruby"
)

var (
	negInf = math.Inf(-1)
	posInf = math.Inf(1)
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
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == c || s[j+1] == '\\') {
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return errors.New("Syntax error at end of input")
			}
			p.toks = append(p.toks, token{tString, b.String(), i})
			i = j + 1
		case c == '/':
			j := i + 1
			for ; j < len(s) && s[j] != '/'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
			}
			if j >= len(s) {
				return errors.New("Syntax error at end of input")
			}
			p.toks = append(p.toks, token{tRegex, s[i+1 : j], i}) // as written: Puppet prints it so
			i = j + 1
		case c == '-' || c >= '0' && c <= '9':
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
				return p.syntax(token{tWord, text, i})
			}
			i = j
		case c == ':' && !strings.HasPrefix(s[i:], "::"), c == '@':
			// Tokens of Puppet's lexer that no type expression holds: the
			// parser fails at them ("user:String@db" at ':').
			p.toks = append(p.toks, token{tPunct, string(c), i})
			i++
		case isWordByte(c) || c == ':':
			// A name's segments are joined by "::" (a lone ':' ends it).
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
			i = j
		default:
			return p.syntax(token{tPunct, string(c), i})
		}
	}
	p.toks = append(p.toks, token{tEOF, "", len(s)})
	return nil
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
		return buildIntegerOrString(n, name, args)
	case "Float":
		return buildFloat(n, args)
	case "Enum":
		return buildEnum(args)
	case "Pattern":
		return buildPattern(n, args)
	case "Array":
		return buildArray(n, args)
	case "Hash":
		return buildHash(n, args)
	case "Tuple":
		return buildTuple(n, args)
	case "Struct":
		return buildStruct(n, args)
	case "Optional", "NotUndef", "Sensitive":
		return buildWrapper(name, args)
	case "Variant":
		return buildVariant(args)
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
func buildIntegerOrString(n *node, name string, args []*node) (*Type, error) {
	t := &Type{Kind: Integer, min: minInt, max: maxInt}
	if name == "String" {
		t = &Type{Kind: String, min: 0, max: maxInt}
	}
	if len(args) > 2 {
		return nil, paramCount(name, 0, 2, len(args))
	}
	for i, a := range args {
		var v int64
		switch a.kind {
		case tInt:
			v, _ = strconv.ParseInt(a.text, 0, 64)
		case tWord:
			if a.text != "default" {
				return nil, invalid(n.src)
			}
			v = [2]int64{t.min, maxInt}[i]
			if t.Kind == Integer && i == 0 {
				v = minInt
			}
		default:
			return nil, invalid(n.src)
		}
		if i == 0 {
			t.min = v
			if len(args) == 1 && name == "Integer" {
				t.max = maxInt
			}
		} else {
			t.max = v
		}
	}
	if name == "String" && t.min == minInt {
		t.min = 0
	}
	t.hasSize = len(args) > 0
	if t.min > t.max {
		return nil, fmt.Errorf("'from' must be less or equal to 'to'. Got (%d, %d", t.min, t.max)
	}
	return t, nil
}

// buildFloat builds Float[min, max].
func buildFloat(n *node, args []*node) (*Type, error) {
	t := &Type{Kind: Float, fmin: negInf, fmax: posInf, hasRange: len(args) > 0}
	if len(args) > 2 {
		return nil, paramCount("Float", 0, 2, len(args))
	}
	for i, a := range args {
		v := negInf
		if i == 1 {
			v = posInf
		}
		switch a.kind {
		case tInt, tFloat:
			v, _ = strconv.ParseFloat(a.text, 64)
			if a.kind == tInt {
				iv, _ := strconv.ParseInt(a.text, 0, 64)
				v = float64(iv)
			}
		case tWord:
			if a.text != "default" {
				return nil, invalid(n.src)
			}
		default:
			return nil, invalid(n.src)
		}
		if i == 0 {
			t.fmin = v
		} else {
			t.fmax = v
		}
	}
	if t.fmin > t.fmax {
		return nil, fmt.Errorf("'from' must be less or equal to 'to'. Got (%s, %s", ruby.Float(t.fmin), ruby.Float(t.fmax))
	}
	return t, nil
}

// buildEnum builds Enum[names...].
func buildEnum(args []*node) (*Type, error) {
	t := &Type{Kind: Enum}
	for _, a := range args {
		if a.kind != tString && a.kind != tWord {
			return nil, fmt.Errorf("hieracc does not support this parameter of Enum: %s", a.src)
		}
		t.names = append(t.names, a.text)
	}
	return t, nil
}

// buildPattern builds Pattern[regexps...].
func buildPattern(n *node, args []*node) (*Type, error) {
	t := &Type{Kind: Pattern}
	for _, a := range args {
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

// buildArray builds Array[elem, min, max].
func buildArray(n *node, args []*node) (*Type, error) {
	if len(args) > 3 {
		return nil, paramCount("Array", 0, 3, len(args))
	}
	t := &Type{Kind: Array, elems: []*Type{{Kind: Any}}, min: 0, max: maxInt}
	rest := args
	switch {
	case len(args) > 0 && args[0].kind == tName:
		e, err := build(args[0])
		if err != nil {
			return nil, err
		}
		t.elems[0] = e
		rest = args[1:]
	case len(args) == 2:
		t.elems[0] = &Type{Kind: Default} // Puppet reads Array[1, 2] so
	case len(args) == 1:
		return nil, invalid(n.src)
	}
	if err := sizeArgs(t, rest, n.src); err != nil {
		return nil, err
	}
	return t, nil
}

// buildHash builds Hash[key, value, min, max].
func buildHash(n *node, args []*node) (*Type, error) {
	if len(args) == 1 || len(args) > 4 {
		return nil, paramCount("Hash", 2, 4, len(args))
	}
	t := &Type{Kind: Hash, elems: []*Type{{Kind: Any}, {Kind: Any}}, min: 0, max: maxInt}
	rest := args
	switch {
	case len(args) >= 2 && args[0].kind == tName:
		kv, err := buildTypes(args[:2])
		if err != nil {
			return nil, err
		}
		t.elems = kv
		rest = args[2:]
	case len(args) == 2:
		t.elems = []*Type{{Kind: Default}, {Kind: Default}} // Puppet reads Hash[1, 2] so
	}
	if err := sizeArgs(t, rest, n.src); err != nil {
		return nil, err
	}
	return t, nil
}

// buildTuple builds Tuple[elems..., min, max].
func buildTuple(n *node, args []*node) (*Type, error) {
	t := &Type{Kind: Tuple}
	i := 0
	for i < len(args) && args[i].kind == tName {
		i++
	}
	elems, err := buildTypes(args[:i])
	if err != nil {
		return nil, err
	}
	t.elems = elems
	t.min, t.max = int64(len(elems)), int64(len(elems))
	if i < len(args) {
		t.hasSize = true
		t.min, t.max = 0, maxInt
		if err := sizeArgs(t, args[i:], n.src); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// buildStruct builds Struct[{key => type, ...}].
func buildStruct(n *node, args []*node) (*Type, error) {
	if len(args) != 1 || args[0].kind != tPunct {
		if len(args) != 1 {
			return nil, paramCount("Struct", 1, 1, len(args))
		}
		return nil, invalid(n.src)
	}
	h := args[0]
	t := &Type{Kind: Struct}
	for i, k := range h.keys {
		var kind uint8
		if k.kind == tName && (k.text == "Optional" || k.text == "NotUndef") && len(k.args) == 1 {
			kind = 1
			if k.text == "NotUndef" {
				kind = 2
			}
			k = k.args[0]
		}
		if k.kind != tString && k.kind != tWord {
			return nil, invalid(n.src)
		}
		v, err := build(h.args[i])
		if err != nil {
			return nil, err
		}
		t.names = append(t.names, k.text)
		t.keyKinds = append(t.keyKinds, kind)
		t.elems = append(t.elems, v)
	}
	return t, nil
}

// buildWrapper builds Optional[t], NotUndef[t] and Sensitive[t].
func buildWrapper(name string, args []*node) (*Type, error) {
	k := map[string]Kind{"Optional": Optional, "NotUndef": NotUndef, "Sensitive": Sensitive}[name]
	if len(args) > 1 {
		return nil, paramCount(name, 1, 1, len(args))
	}
	elems, err := buildTypes(args)
	if err != nil {
		return nil, err
	}
	return &Type{Kind: k, elems: elems}, nil
}

// buildVariant builds Variant[types...].
func buildVariant(args []*node) (*Type, error) {
	elems, err := buildTypes(args)
	if err != nil {
		return nil, err
	}
	if len(elems) == 1 {
		return elems[0], nil // as Puppet's parser does
	}
	return &Type{Kind: Variant, elems: elems}, nil
}

// sizeArgs reads the size range that ends Array's, Hash's and Tuple's
// parameters.
func sizeArgs(t *Type, args []*node, src string) error {
	if len(args) > 2 {
		return invalid(src)
	}
	t.hasSize = t.hasSize || len(args) > 0
	for i, a := range args {
		v := [2]int64{0, maxInt}[i]
		switch {
		case a.kind == tInt:
			v, _ = strconv.ParseInt(a.text, 0, 64)
		case a.kind == tWord && a.text == "default":
		default:
			return invalid(src)
		}
		if i == 0 {
			t.min = v
		} else {
			t.max = v
		}
	}
	if t.min > t.max {
		return fmt.Errorf("'from' must be less or equal to 'to'. Got (%d, %d", t.min, t.max)
	}
	return nil
}
