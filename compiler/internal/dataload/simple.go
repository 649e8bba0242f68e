package dataload

import (
	"bytes"

	"gopkg.in/yaml.v3"
)

// Most data files are written in a small part of YAML: block mappings and
// sequences of one-line scalars, one-line flow collections of scalars,
// comments. parseSimple reads that part straight into the tree libyaml's
// events would build, about four times faster than the event machinery
// (BenchmarkYAMLBlock; at 10,000 nodes the per-node data files cost a
// compile ~0.6 s of CPU through libyaml, ~0.1 s through parseSimple).
// Anything else (anchors, tags, block scalars, escapes of more than one
// ASCII character, multi-line scalars, nested flow collections, empty
// values, tabs, non-ASCII bytes, ...) makes it give up before anything is
// kept, and libyaml reads the file as before: the fast path never decides
// what a file means, only builds what libyaml would. TestSimpleParser,
// TestSimpleParserFiles and FuzzSimpleParser hold its trees to libyaml's,
// positions and styles included.

// simpleMaxDepth is the deepest nesting parseSimple reads; deeper files
// are libyaml's (and MaxDepth's), as rare as they are.
const simpleMaxDepth = 64

// simpleMaxKey is the longest key parseSimple reads: libyaml takes a
// simple key of at most 1,024 characters, and longer ones are its to refuse.
const simpleMaxKey = 1000

// simple is the state of parseSimple: the source, and the content line it
// is on (the next one not blank nor only a comment).
type simple struct {
	b   *builder
	src []byte
	// The current content line: src[start:end] (end at its '\n' or at
	// the end of src), its number (1-based), and its indentation.
	start, end, line, indent int
	eof                      bool // no content line is left
	bad                      bool // a line holds a byte parseSimple does not read
	next                     int  // where the line after the current one starts
	nextLine                 int  // its number
	// texts holds every scalar's text, one after another, and scalars
	// where each node's is: one string is made of all of them once the
	// tree is built, rather than one a scalar.
	texts   []byte
	scalars []simpleScalar
}

// simpleScalar is where the text of a scalar node parseSimple made lies
// in simple.texts.
type simpleScalar struct {
	n          *yaml.Node
	start, end int // in texts
}

// parseSimple builds the tree of src if src is written in the part of
// YAML it reads; ok is false otherwise, and the builder holds nothing of
// the attempt (it is reset).
func (b *builder) parseSimple(src []byte) (root *yaml.Node, ok bool) {
	s := &simple{b: b, src: src, nextLine: 1, texts: b.texts[:0], scalars: b.scalars[:0]}
	defer func() {
		b.texts, b.scalars = s.texts[:0], s.scalars[:0]
		clear(s.scalars) // (beyond them, cleared by the last file)
		if !ok {
			b.reset()
		}
	}()
	if !s.advance() {
		return nil, false // no content: libyaml's
	}
	if s.indent == 0 && s.isDocStart() {
		// The document start, alone on its line (or with a comment).
		if !s.onlyComment(s.start + 3) {
			return nil, false
		}
		if !s.advance() {
			return nil, false
		}
	}
	if s.indent != 0 {
		return nil, false
	}
	root, ok = s.mapping(0, 1)
	if !ok || !s.eof {
		return nil, false
	}
	text := string(s.texts)
	for _, sc := range s.scalars {
		sc.n.Value = text[sc.start:sc.end]
	}
	return root, true
}

// advance moves to the next content line, skipping blank lines and lines
// holding only a comment. It is false at the end of src (eof is then set)
// and at a line with a byte parseSimple does not read, anything but
// printable ASCII, which it leaves to libyaml (bad is then set).
func (s *simple) advance() bool {
	for s.next < len(s.src) {
		start, line := s.next, s.nextLine
		end := start
		for end < len(s.src) && s.src[end] != '\n' {
			if c := s.src[end]; c < ' ' || c > '~' {
				s.bad = true
				return false
			}
			end++
		}
		s.next, s.nextLine = end+1, line+1
		i := start
		for i < end && s.src[i] == ' ' {
			i++
		}
		if i == end || s.src[i] == '#' {
			continue
		}
		s.start, s.end, s.line, s.indent = start, end, line, i-start
		return true
	}
	s.eof = true
	return false
}

// isDocStart reports whether the current line, at column 0, starts with
// the document start marker followed by a blank or its end.
func (s *simple) isDocStart() bool {
	p := s.start
	return bytes.HasPrefix(s.src[p:s.end], []byte("---")) && (p+3 == s.end || s.src[p+3] == ' ')
}

// isMarkerLike reports whether the current line starts with "---" or
// "...": at column 0, a document marker or a plain scalar libyaml may
// take for one; either way libyaml's.
func (s *simple) isMarkerLike() bool {
	l := s.src[s.start:s.end]
	return bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("..."))
}

// onlyComment reports whether the current line holds nothing from p on
// but spaces and a comment after at least one of them.
func (s *simple) onlyComment(p int) bool {
	i := s.skipSpaces(p)
	return i == s.end || i > p && s.src[i] == '#'
}

// isEntry reports whether the current line is a sequence entry ("- "),
// its dash at the line's indentation.
func (s *simple) isEntry() bool {
	p := s.start + s.indent
	return s.src[p] == '-' && (p+1 == s.end || s.src[p+1] == ' ')
}

// mapping reads a block mapping whose keys are at column indent, from
// the current line, which holds its first key.
func (s *simple) mapping(indent, depth int) (*yaml.Node, bool) {
	if depth > simpleMaxDepth {
		return nil, false
	}
	b := s.b
	n := b.newNode()
	n.Kind, n.Line, n.Column = yaml.MappingNode, s.line, indent+1
	from := len(b.kids)
	for {
		// The current line is at indent: a key, its value on the line or
		// in the lines below.
		if s.isEntry() || indent == 0 && s.isMarkerLike() {
			return nil, false
		}
		p := s.start + indent
		key, colon := s.key(p)
		if key == nil {
			return nil, false
		}
		b.kids = append(b.kids, key)
		v := s.skipSpaces(colon + 1)
		if v == s.end || s.src[v] == '#' {
			// The value is a block below: more indented, or a sequence
			// at the key's own column. (An empty value is libyaml's.)
			if !s.advance() {
				return nil, false // at the end, or a byte left to libyaml
			}
			var c *yaml.Node
			var ok bool
			switch {
			case s.indent > indent && s.isEntry():
				c, ok = s.sequence(s.indent, false, depth+1)
			case s.indent > indent:
				c, ok = s.mapping(s.indent, depth+1)
			case s.indent == indent && s.isEntry():
				c, ok = s.sequence(indent, true, depth+1)
			}
			if !ok {
				return nil, false
			}
			b.kids = append(b.kids, c)
		} else {
			c := s.value(v)
			if c == nil {
				return nil, false
			}
			b.kids = append(b.kids, c)
			s.advance()
		}
		switch {
		case s.bad:
			return nil, false
		case s.eof || s.indent < indent:
			n.Content = b.content(from)
			return n, true
		case s.indent > indent:
			return nil, false // a continuation, or a misplaced line
		}
	}
}

// sequence reads a block sequence whose dashes are at column indent, from
// the current line, its first entry. An indentless sequence (the value of
// a key at the same column) ends at a line of that column that is not an
// entry: the mapping's next key.
func (s *simple) sequence(indent int, indentless bool, depth int) (*yaml.Node, bool) {
	if depth > simpleMaxDepth {
		return nil, false
	}
	b := s.b
	n := b.newNode()
	n.Kind, n.Line, n.Column = yaml.SequenceNode, s.line, indent+1
	from := len(b.kids)
	for {
		p := s.start + indent + 1 // after the dash
		v := s.skipSpaces(p)
		if v == p || v == s.end || s.src[v] == '#' {
			return nil, false // an entry below its dash, or empty: libyaml's
		}
		c := s.value(v)
		if c == nil {
			return nil, false
		}
		b.kids = append(b.kids, c)
		s.advance()
		switch {
		case s.bad:
			return nil, false
		case s.eof || s.indent < indent:
		case s.indent > indent:
			return nil, false
		case s.isEntry():
			continue
		case !indentless:
			return nil, false // a key where an entry belongs
		}
		n.Content = b.content(from)
		return n, true
	}
}

// key reads the key that starts at p on the current line: a plain
// scalar or a quoted one, followed by a colon and a blank or the line's
// end. It returns the key's node and the colon's position, or nil if the
// line does not start with a key parseSimple reads (a plain key with a
// space, no colon, a key too long, ...).
func (s *simple) key(p int) (*yaml.Node, int) {
	if q := s.src[p]; q == '"' || q == '\'' {
		i := s.quoteEnd(p)
		if i < 0 || i+1 == s.end || s.src[i+1] != ':' || i+2 < s.end && s.src[i+2] != ' ' || i-p > simpleMaxKey {
			return nil, -1
		}
		return s.quoted(p, i), i + 1
	}
	if !s.plainStart(p) {
		return nil, -1
	}
	for i := p; i < s.end && i-p <= simpleMaxKey; i++ {
		switch s.src[i] {
		case ':':
			if i+1 == s.end || s.src[i+1] == ' ' {
				return s.scalar(p, p, i, 0), i
			}
		case ' ':
			return nil, -1
		}
	}
	return nil, -1
}

// quoteEnd returns the position of the quote closing the quoted scalar
// that starts at p on the current line, or -1 if it is not one
// parseSimple reads: not closed on the line, with an escape of more than
// one ASCII character (double quotes, see unescape) or a quote written
// twice (single quotes).
func (s *simple) quoteEnd(p int) int {
	q := s.src[p]
	for i := p + 1; i < s.end; i++ {
		switch c := s.src[i]; {
		case c == '\\' && q == '"':
			if i+1 == s.end {
				return -1
			}
			if _, ok := unescape(s.src[i+1]); !ok {
				return -1
			}
			i++
		case c == q:
			if q == '\'' && i+1 < s.end && s.src[i+1] == '\'' {
				return -1
			}
			return i
		}
	}
	return -1
}

// unescape returns the character a double-quoted scalar's escape "\c"
// stands for, if it is one ASCII character (libyaml 0.2.5's: "\/" too, but
// not "\'"); the others (\x, \u, \N, ...) are libyaml's to read.
func unescape(c byte) (byte, bool) {
	switch c {
	case '0':
		return 0, true
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 't':
		return '\t', true
	case 'n':
		return '\n', true
	case 'v':
		return '\v', true
	case 'f':
		return '\f', true
	case 'r':
		return '\r', true
	case 'e':
		return 0x1b, true
	case ' ', '"', '\\', '/':
		return c, true
	}
	return 0, false
}

// quoted makes the node of the quoted scalar from p to its closing quote
// at i (quoteEnd's).
func (s *simple) quoted(p, i int) *yaml.Node {
	if s.src[p] == '\'' {
		return s.scalar(p, p+1, i, yaml.SingleQuotedStyle)
	}
	n := s.scalar(p, p+1, i, yaml.DoubleQuotedStyle)
	if bytes.IndexByte(s.src[p+1:i], '\\') < 0 {
		return n
	}
	// Its text, escapes read.
	sc := &s.scalars[len(s.scalars)-1]
	s.texts = s.texts[:sc.start]
	for j := p + 1; j < i; j++ {
		c := s.src[j]
		if c == '\\' {
			j++
			c, _ = unescape(s.src[j])
		}
		s.texts = append(s.texts, c)
	}
	sc.end = len(s.texts)
	return n
}

// plainStart reports whether a plain scalar may start at p, by libyaml's
// rule: not at an indicator, but for '-', '?' and ':' before a character
// that is not a blank.
func (s *simple) plainStart(p int) bool {
	switch s.src[p] {
	case '-', '?', ':':
		return p+1 < s.end && s.src[p+1] != ' '
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// value reads the scalar that starts at v and ends the current line (a
// comment may follow it), or returns nil if it is not one parseSimple
// reads.
func (s *simple) value(v int) *yaml.Node {
	switch s.src[v] {
	case '"', '\'':
		i := s.quoteEnd(v)
		if i < 0 || !s.onlyComment(i+1) {
			return nil
		}
		return s.quoted(v, i)
	case '[', '{':
		n, i := s.flow(v)
		if n == nil || !s.onlyComment(i+1) {
			return nil
		}
		return n
	}
	if !s.plainStart(v) {
		return nil
	}
	end := s.end
	for i := v; i < s.end; i++ {
		c := s.src[i]
		if c == ':' && (i+1 == s.end || s.src[i+1] == ' ') {
			return nil // a mapping value where none may be
		}
		if c == '#' && s.src[i-1] == ' ' {
			end = i
			break
		}
	}
	for s.src[end-1] == ' ' {
		end--
	}
	return s.scalar(v, v, end, 0)
}

// flow reads the flow sequence or mapping that starts at p ('[' or '{')
// and ends on the current line, of scalars only: quoted ones, and plain
// ones of flowPlain's characters. It returns its node and the position of
// its closing bracket, or nil for anything else (nested collections,
// a trailing comma, a plain scalar with a space, ...).
func (s *simple) flow(p int) (*yaml.Node, int) {
	b := s.b
	n := b.newNode()
	n.Kind, n.Style, n.Line, n.Column = yaml.SequenceNode, yaml.FlowStyle, s.line, p-s.start+1
	closing := byte(']')
	if s.src[p] == '{' {
		n.Kind, closing = yaml.MappingNode, '}'
	}
	from := len(b.kids)
	i := s.skipSpaces(p + 1)
	if i < s.end && s.src[i] == closing {
		return n, i // empty
	}
	for {
		var c *yaml.Node
		at := i
		if c, i = s.flowScalar(at); c == nil {
			return nil, -1
		}
		b.kids = append(b.kids, c)
		if n.Kind == yaml.MappingNode {
			// A key (at most simpleMaxKey long, as in a block mapping):
			// ": " and its value.
			if i+1 >= s.end || s.src[i] != ':' || s.src[i+1] != ' ' || i-at > simpleMaxKey {
				return nil, -1
			}
			if c, i = s.flowScalar(s.skipSpaces(i + 1)); c == nil {
				return nil, -1
			}
			b.kids = append(b.kids, c)
		}
		i = s.skipSpaces(i)
		switch {
		case i == s.end:
			return nil, -1
		case s.src[i] == closing:
			n.Content = b.content(from)
			return n, i
		case s.src[i] != ',':
			return nil, -1
		}
		if i = s.skipSpaces(i + 1); i == s.end || s.src[i] == closing {
			return nil, -1 // a trailing comma: libyaml's
		}
	}
}

// flowScalar reads the scalar of a flow collection at p: quoted, or plain
// of flowPlain's characters only, not starting with an indicator. It
// returns its node and where it ends, or nil.
func (s *simple) flowScalar(p int) (*yaml.Node, int) {
	if p == s.end {
		return nil, -1
	}
	if q := s.src[p]; q == '"' || q == '\'' {
		i := s.quoteEnd(p)
		if i < 0 {
			return nil, -1
		}
		return s.quoted(p, i), i + 1
	}
	i := p
	for i < s.end && flowPlain(s.src[i]) {
		i++
	}
	if i == p || s.src[p] == '-' && i == p+1 || s.src[p] == '@' || s.src[p] == '>' {
		return nil, -1
	}
	return s.scalar(p, p, i, 0), i
}

// flowPlain reports whether a plain scalar of a flow collection may hold
// c anywhere for parseSimple: the characters that neither end it nor
// start anything else ('-', '>' and '@' excepted at its start: indicators,
// see flowScalar).
func flowPlain(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '_', '.', '/', '-', '+', '=', '~', '$', '^', '(', ')', '@', ';', '<', '>', '\\':
		return true
	}
	return false
}

// skipSpaces returns the first position from p on the current line that
// is not a space.
func (s *simple) skipSpaces(p int) int {
	for p < s.end && s.src[p] == ' ' {
		p++
	}
	return p
}

// scalar makes the scalar node at p (its first character, or its opening
// quote) of the current line whose text is src[from:to].
func (s *simple) scalar(p, from, to int, style yaml.Style) *yaml.Node {
	n := s.b.newNode()
	n.Kind, n.Style, n.Line, n.Column = yaml.ScalarNode, style, s.line, p-s.start+1
	at := len(s.texts)
	s.texts = append(s.texts, s.src[from:to]...)
	s.scalars = append(s.scalars, simpleScalar{n, at, len(s.texts)})
	return n
}
