package dataload

import (
	"bytes"
	"fmt"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// JSON loads a data file like Puppet's json_data function, which parses
// with Ruby's JSON.parse (json 2.6, as shipped with Ruby 3.1): key order is
// kept, a repeated key keeps its first position and takes the last value,
// 1.0 is a float and 2 an integer, /* */ and // comments count as
// whitespace, and messages are Ruby's, e.g. "Unable to parse (name): 859:
// unexpected token at '...'". A top level that is not an object is an
// error, as Puppet checks the returned value is a Hash.
//
// On an error the Doc is nil. Integers beyond 64 bits, which Puppet
// accepts but the format model cannot hold, make their top-level key
// Invalid.
func JSON(name string, src []byte) (*Doc, []diagnostics.Diagnostic) {
	fail := func(off int, msg string) (*Doc, []diagnostics.Diagnostic) {
		return nil, []diagnostics.Diagnostic{problem(name, offsetPos(src, off), msg)}
	}
	if len(src) > MaxFileSize {
		return fail(0, fmt.Sprintf("Unable to parse (%s): hieracc: file larger than %d bytes", name, MaxFileSize))
	}
	p := &jsonParser{src: src}
	v, err := p.document()
	if err != nil {
		return fail(err.off, fmt.Sprintf("Unable to parse (%s): %s", name, err.msg))
	}
	obj, ok := v.(*jsonObject)
	if !ok {
		return fail(p.start, fmt.Sprintf("Value returned from data_hash function 'json_data', when using location '%s', has wrong type, expects a Hash value, got %s", name, ruby.TypeName(v)))
	}
	doc := &Doc{Hash: format.NewHash(len(obj.keys))}
	lines := newLineIndex(src)
	for i, k := range obj.keys {
		v := obj.vals[i]
		if hasBig(v) {
			if doc.Invalid == nil {
				doc.Invalid = map[any]diagnostics.Diagnostic{}
			}
			doc.Invalid[k] = problem(name, lines.pos(obj.offs[i]), invalidMessage("json_data", name, k, v, meta{flags: fNoFormat}))
			v = nil
		}
		doc.Hash.Set(k, v)
		doc.KeyPos = append(doc.KeyPos, lines.pos(obj.offs[i]))
	}
	var probs []diagnostics.Diagnostic
	for _, d := range p.dups {
		probs = append(probs, duplicateKey(name, d.key, lines.pos(d.first), lines.pos(d.again)))
	}
	return doc, probs
}

// jsonMaxNesting is JSON.parse's default max_nesting.
const jsonMaxNesting = 100

type jsonParser struct {
	src     []byte
	nesting int
	start   int // offset of the top-level value
	values  int
	// dups are the keys written twice in one object: the offsets of the
	// first and of the second.
	dups []jsonDup
}

type jsonDup struct {
	key          string
	first, again int
}

type jsonError struct {
	off int
	msg string
}

// jsonObject is a parsed object: Ruby Hash semantics, and the offsets of
// its keys.
type jsonObject struct {
	h    *format.Hash
	keys []any
	vals []any
	offs []int
}

// raise is Ruby's raise_parse_error: the message quotes the input from off
// to its end (or to a NUL byte, the message being built with %s).
func (p *jsonParser) raise(line, off int, what string) *jsonError {
	if off < 0 {
		// "Infinity" at the very start: Ruby quotes from the byte before
		// the input, which is a NUL.
		return &jsonError{off: 0, msg: fmt.Sprintf("%d: %s at ''", line, what)}
	}
	frag := p.src[off:]
	if i := bytes.IndexByte(frag, 0); i >= 0 {
		frag = frag[:i]
	}
	return &jsonError{off: off, msg: fmt.Sprintf("%d: %s at '%s'", line, what, frag)}
}

// The line numbers of json 2.6.1's parser.c, which its messages include.
const (
	lineDocument  = 859
	lineNaN       = 225
	lineInfinity  = 232
	lineMinusInf  = 249
	lineArray     = 451
	lineSurrogate = 521
)

// document is JSON_parse: ignore* value ignore*, then the end.
func (p *jsonParser) document() (any, *jsonError) {
	i, ok := p.ignore(0)
	if !ok || i >= len(p.src) || !isBeginValue(p.src[i]) {
		return nil, p.raise(lineDocument, i, "unexpected token")
	}
	p.start = i
	v, end, err := p.value(i)
	if err != nil {
		return nil, err
	}
	if end < 0 {
		return nil, p.raise(lineDocument, i, "unexpected token")
	}
	j, ok := p.ignore(end)
	if !ok || j != len(p.src) {
		return nil, p.raise(lineDocument, j, "unexpected token")
	}
	return v, nil
}

// unwrapJSON turns a nested object into its hash.
func unwrapJSON(v any) any {
	if o, ok := v.(*jsonObject); ok {
		return o.h
	}
	return v
}

func isBeginValue(c byte) bool {
	switch c {
	case 'n', 'f', 't', '"', '-', '[', '{', 'N', 'I':
		return true
	}
	return c >= '0' && c <= '9'
}

// ignore skips whitespace and comments from i. It returns where it
// stopped; ok is false when a comment is broken, i then being where Ruby's
// scanner gave up (the end of input for an unterminated comment).
func (p *jsonParser) ignore(i int) (int, bool) {
	s := p.src
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
			i++
		case '/':
			if i+1 >= len(s) {
				return len(s), false
			}
			switch s[i+1] {
			case '*':
				end := bytes.Index(s[i+2:], []byte("*/"))
				if end < 0 {
					return len(s), false
				}
				i += 2 + end + 2
			case '/':
				end := bytes.IndexByte(s[i+2:], '\n')
				if end < 0 {
					return len(s), false
				}
				i += 2 + end + 1
			default:
				return i + 1, false
			}
		default:
			return i, true
		}
	}
	return i, true
}

// value is JSON_parse_value at i (a begin_value character). end < 0 means
// the value is not valid there: the caller reports its own error at i, as
// Ruby's parser does.
func (p *jsonParser) value(i int) (any, int, *jsonError) {
	s := p.src
	lit := func(word string, v any) (any, int, *jsonError) {
		if bytes.HasPrefix(s[i:], []byte(word)) {
			return v, i + len(word), nil
		}
		return nil, -1, nil
	}
	p.values++
	if p.values > MaxValues {
		return nil, -1, &jsonError{off: i, msg: fmt.Sprintf("hieracc: more than %d values", MaxValues)}
	}
	switch c := s[i]; {
	case c == 'n':
		return lit("null", nil)
	case c == 'f':
		return lit("false", false)
	case c == 't':
		return lit("true", true)
	case c == 'N':
		if bytes.HasPrefix(s[i:], []byte("NaN")) {
			return nil, -1, p.raise(lineNaN, i, "unexpected token")
		}
		return nil, -1, nil
	case c == 'I':
		if bytes.HasPrefix(s[i:], []byte("Infinity")) {
			return nil, -1, p.raise(lineInfinity, i-1, "unexpected token")
		}
		return nil, -1, nil
	case c == '-' || c >= '0' && c <= '9':
		if bytes.HasPrefix(s[i:], []byte("-Infinity")) {
			return nil, -1, p.raise(lineMinusInf, i, "unexpected token")
		}
		v, end := p.number(i)
		return v, end, nil
	case c == '"':
		str, end, err := p.str(i)
		return str, end, err
	case c == '[':
		return p.array(i)
	case c == '{':
		return p.object(i)
	}
	return nil, -1, nil
}

// number parses JSON_parse_float, else JSON_parse_integer, at i.
func (p *jsonParser) number(i int) (any, int) {
	s := p.src
	digit := func(j int) bool { return j < len(s) && s[j] >= '0' && s[j] <= '9' }
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case digit(j) && s[j] != '0':
		for digit(j) {
			j++
		}
	default:
		return nil, -1
	}
	intEnd := j
	// Float: int ('.' digits+)? ([eE] [+-]? digits+)?, at least one of the
	// two, and not followed by [0-9Ee.-].
	f := j
	isFloat := false
	if f < len(s) && s[f] == '.' {
		if digit(f + 1) {
			f += 2
			for digit(f) {
				f++
			}
			isFloat = true
		} else {
			f = -1
		}
	}
	if f >= 0 && f < len(s) && (s[f] == 'e' || s[f] == 'E') {
		g := f + 1
		if g < len(s) && (s[g] == '+' || s[g] == '-') {
			g++
		}
		if digit(g) {
			for digit(g) {
				g++
			}
			f, isFloat = g, true
		} else {
			f = -1
		}
	}
	if f >= 0 && isFloat && !(f < len(s) && bytes.IndexByte([]byte("0123456789Ee.-"), s[f]) >= 0) {
		v, err := strconv.ParseFloat(string(s[i:f]), 64)
		if err != nil && !isRange(err) {
			return nil, -1
		}
		return v, f
	}
	// Integer: '-'? ('0' | [1-9][0-9]*) not followed by a digit.
	if digit(intEnd) {
		return nil, -1
	}
	n, ok := new(big.Int).SetString(string(s[i:intEnd]), 10)
	if !ok {
		return nil, -1
	}
	return bigToValue(n), intEnd
}

// str is JSON_parse_string at i (a '"'). end < 0 when the string is not
// valid (a raw control character, a bad \u escape, no closing quote).
func (p *jsonParser) str(i int) (string, int, *jsonError) {
	s := p.src
	j := i + 1
	for {
		if j >= len(s) {
			return "", -1, nil
		}
		c := s[j]
		switch {
		case c == '"':
			v, err := p.unescape(i+1, j)
			if err != nil {
				return "", -1, err
			}
			return v, j + 1, nil
		case c < 0x20:
			return "", -1, nil
		case c == '\\':
			if j+1 >= len(s) || s[j+1] < 0x20 {
				return "", -1, nil
			}
			if s[j+1] == 'u' {
				for k := j + 2; k < j+6; k++ {
					if k >= len(s) || !isHexDigit(s[k]) {
						return "", -1, nil
					}
				}
				j += 6
				continue
			}
			j += 2
		default:
			j++
		}
	}
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unescape is json_string_unescape over src[from:to], quirks included: an
// unknown escape keeps the character, a high surrogate not followed by
// \u becomes "?" and swallows the next character, and surrogates are
// combined without checking the second one.
func (p *jsonParser) unescape(from, to int) (string, *jsonError) {
	s := p.src
	if bytes.IndexByte(s[from:to], '\\') < 0 {
		return string(s[from:to]), nil
	}
	var b []byte
	q, pe := from, from // q: start of the pending literal run
	for pe < to {
		if s[pe] != '\\' {
			pe++
			continue
		}
		b = append(b, s[q:pe]...)
		pe++
		var esc []byte
		switch s[pe] {
		case 'n':
			esc = []byte{'\n'}
		case 'r':
			esc = []byte{'\r'}
		case 't':
			esc = []byte{'\t'}
		case '"':
			esc = []byte{'"'}
		case '\\':
			esc = []byte{'\\'}
		case 'b':
			esc = []byte{'\b'}
		case 'f':
			esc = []byte{'\f'}
		case 'u':
			pe++
			ch := hexValue(s[pe : pe+4])
			pe += 3
			if ch&0xFC00 == 0xD800 {
				pe++
				if pe > to-6 {
					return "", p.raise(lineSurrogate, q, "incomplete surrogate pair")
				}
				if s[pe] == '\\' && s[pe+1] == 'u' {
					sur := hexValue(s[pe+2 : pe+6])
					ch = ((ch & 0x3F) << 10) | ((((ch >> 6) & 0xF) + 1) << 16) | (sur & 0x3FF)
					pe += 5
				} else {
					esc = []byte{'?'}
					break
				}
			}
			esc = utf32ToUTF8(ch)
		default:
			q = pe // the backslash goes, the character stays
			continue
		}
		b = append(b, esc...)
		pe++
		q = pe
	}
	b = append(b, s[q:pe]...)
	return string(b), nil
}

func hexValue(h []byte) uint32 {
	var v uint32
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		v = v<<4 | uint32(c)
	}
	return v
}

// utf32ToUTF8 is convert_UTF32_to_UTF8: plain UTF-8 bit layout, surrogates
// included (Ruby does not reject them here).
func utf32ToUTF8(ch uint32) []byte {
	switch {
	case ch <= 0x7F:
		return []byte{byte(ch)}
	case ch <= 0x7FF:
		return []byte{byte(ch>>6 | 0xC0), byte(ch&0x3F | 0x80)}
	case ch <= 0xFFFF:
		return []byte{byte(ch>>12 | 0xE0), byte(ch>>6&0x3F | 0x80), byte(ch&0x3F | 0x80)}
	case ch <= 0x1FFFFF:
		return []byte{byte(ch>>18 | 0xF0), byte(ch>>12&0x3F | 0x80), byte(ch>>6&0x3F | 0x80), byte(ch&0x3F | 0x80)}
	}
	return []byte{'?'}
}

// array is JSON_parse_array at i (a '['). Every error in an array is
// raised there, at the offending character.
func (p *jsonParser) array(i int) (any, int, *jsonError) {
	p.nesting++
	defer func() { p.nesting-- }()
	if p.nesting > jsonMaxNesting {
		return nil, -1, &jsonError{off: i, msg: fmt.Sprintf("nesting of %d is too deep", p.nesting)}
	}
	fail := func(at int) (any, int, *jsonError) { return nil, -1, p.raise(lineArray, at, "unexpected token") }
	list := []any{}
	j, ok := p.ignore(i + 1)
	if !ok {
		return fail(j)
	}
	if j < len(p.src) && p.src[j] == ']' {
		return list, j + 1, nil
	}
	for {
		if j >= len(p.src) || !isBeginValue(p.src[j]) {
			return fail(j)
		}
		v, end, err := p.value(j)
		if err != nil {
			return nil, -1, err
		}
		if end < 0 {
			return fail(j)
		}
		list = append(list, unwrapJSON(v))
		if j, ok = p.ignore(end); !ok {
			return fail(j)
		}
		if j < len(p.src) && p.src[j] == ']' {
			return list, j + 1, nil
		}
		if j >= len(p.src) || p.src[j] != ',' {
			return fail(j)
		}
		if j, ok = p.ignore(j + 1); !ok {
			return fail(j)
		}
	}
}

// object is JSON_parse_object at i (a '{'). Its syntax errors are not
// raised there: the object just fails, and the enclosing array or the
// document reports it at the object's first character.
func (p *jsonParser) object(i int) (any, int, *jsonError) {
	p.nesting++
	defer func() { p.nesting-- }()
	if p.nesting > jsonMaxNesting {
		return nil, -1, &jsonError{off: i, msg: fmt.Sprintf("nesting of %d is too deep", p.nesting)}
	}
	o := &jsonObject{}
	var index map[string]int // once the object is too big for a scan
	j, ok := p.ignore(i + 1)
	if !ok {
		return nil, -1, nil
	}
	if j < len(p.src) && p.src[j] == '}' {
		o.h = format.NewHash(0)
		return o, j + 1, nil
	}
	for {
		if j >= len(p.src) || p.src[j] != '"' {
			return nil, -1, nil
		}
		keyOff := j
		k, end, err := p.str(j)
		if err != nil || end < 0 {
			return nil, -1, err
		}
		if j, ok = p.ignore(end); !ok || j >= len(p.src) || p.src[j] != ':' {
			return nil, -1, nil
		}
		if j, ok = p.ignore(j + 1); !ok || j >= len(p.src) || !isBeginValue(p.src[j]) {
			return nil, -1, nil
		}
		v, end, err := p.value(j)
		if err != nil || end < 0 {
			return nil, -1, err
		}
		v = unwrapJSON(v)
		if at := o.find(k, index); at >= 0 {
			o.vals[at] = v
			p.dups = append(p.dups, jsonDup{k, o.offs[at], keyOff})
		} else {
			o.keys = append(o.keys, k)
			o.vals = append(o.vals, v)
			o.offs = append(o.offs, keyOff)
			switch {
			case index != nil:
				index[k] = len(o.keys) - 1
			case len(o.keys) > indexAt:
				index = make(map[string]int, 2*len(o.keys))
				for i, k := range o.keys {
					index[k.(string)] = i
				}
			}
		}
		if j, ok = p.ignore(end); !ok || j >= len(p.src) {
			return nil, -1, nil
		}
		switch p.src[j] {
		case '}':
			o.h = format.NewHash(len(o.keys))
			for n, k := range o.keys {
				o.h.Set(k, o.vals[n])
			}
			return o, j + 1, nil
		case ',':
			if j, ok = p.ignore(j + 1); !ok {
				return nil, -1, nil
			}
		default:
			return nil, -1, nil
		}
	}
}

// find returns the index of key k, or -1.
func (o *jsonObject) find(k string, index map[string]int) int {
	if index != nil {
		if i, ok := index[k]; ok {
			return i
		}
		return -1
	}
	for i, e := range o.keys {
		if e == k {
			return i
		}
	}
	return -1
}

// hasBig reports whether v holds an integer beyond int64, which JSON
// values then carry as rbig.
func hasBig(v any) bool {
	switch v := v.(type) {
	case rbig:
		return true
	case []any:
		for _, e := range v {
			if hasBig(e) {
				return true
			}
		}
	case *format.Hash:
		for _, e := range v.All() {
			if hasBig(e) {
				return true
			}
		}
	}
	return false
}

// lineIndex turns byte offsets into positions. Offsets asked for in
// increasing order cost linear time in all, even on one long line.
type lineIndex struct {
	src    []byte
	starts []int
	// the last position computed
	lastOff int
	last    Pos
}

func newLineIndex(src []byte) *lineIndex {
	l := &lineIndex{src: src, starts: []int{0}}
	for i, c := range src {
		if c == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

func (l *lineIndex) pos(off int) Pos {
	lo, hi := 0, len(l.starts)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if l.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	if off > len(l.src) {
		off = len(l.src)
	}
	from, col := l.starts[lo], 1
	if l.last.Line == lo+1 && l.lastOff <= off {
		from, col = l.lastOff, l.last.Column
	}
	l.lastOff, l.last = off, Pos{lo + 1, col + utf8.RuneCount(l.src[from:off])}
	return l.last
}

func offsetPos(src []byte, off int) Pos { return newLineIndex(src).pos(off) }
