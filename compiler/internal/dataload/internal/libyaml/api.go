// Package libyaml is the YAML event parser of gopkg.in/yaml.v3 (itself a Go
// port of libyaml, the C library Ruby's Psych is built on), exposed at the
// event level.
//
// dataload needs what yaml.v3's public API hides: the exact tag and
// implicit flags of each scalar (Psych decides "quoted" from them), the
// problem, context and context mark of a syntax error (Psych's message is
// built from them), and the freedom to stop after the first document like
// Psych.parse does. The scanner, parser and reader files are copied from
// go.yaml.in/yaml/v3 v3.0.6 (yaml.v3's successor); changes are marked
// [hieracc] and listed in PATCHES.md, and bring the scanner to libyaml
// 0.2.5's behaviour (the version Ruby 3.1's Psych uses), which a
// differential test against Psych pins. Code the package does not use is
// removed. This file is the API addition. See LICENSE for the copyright
// notices.
package libyaml

// Mark is a position in the input. All fields are 0-based; Column counts
// characters, not bytes, like libyaml.
type Mark struct {
	Index, Line, Column int
}

// EventType says what an Event is.
type EventType int

// Event types.
const (
	NoEvent EventType = iota
	StreamStart
	StreamEnd
	DocumentStart
	DocumentEnd
	Alias
	Scalar
	SequenceStart
	SequenceEnd
	MappingStart
	MappingEnd
)

// ScalarStyle is how a scalar was written.
type ScalarStyle int

// Scalar styles.
const (
	Plain ScalarStyle = iota
	SingleQuoted
	DoubleQuoted
	Literal
	Folded
)

// Event is one parser event. Tag is the resolved tag (a "!!x" handle is
// already expanded to "tag:yaml.org,2002:x"), empty when none was written.
type Event struct {
	Type       EventType
	Start, End Mark
	Anchor     string
	Tag        string
	Value      string
	// Implicit is libyaml's plain_implicit for scalars (plain and untagged,
	// or tagged with the non-specific "!") and "no tag" for collections.
	Implicit bool
	// QuotedImplicit is set for an untagged scalar that is not plain:
	// exactly what Psych calls a quoted scalar.
	QuotedImplicit bool
	Style          ScalarStyle // scalars only
	Flow           bool        // collections only
}

// Error is a reader, scanner or parser error, with libyaml's fields.
type Error struct {
	Problem     string
	Context     string // may be empty
	ProblemMark Mark
	ContextMark Mark
}

func (e *Error) Error() string {
	if e.Context == "" {
		return e.Problem
	}
	return e.Problem + " " + e.Context
}

// Parser produces the events of one input.
type Parser struct {
	p    yaml_parser_t
	ev   yaml_event_t
	done bool
	// src is the input as a string: a scalar written in it as it is
	// (most plain and quoted ones) is a part of it (see value).
	src string
}

// NewParser returns a parser reading src as UTF-8, the encoding Psych is
// given for a Ruby string read as UTF-8 (so no BOM sniffing for UTF-16).
func NewParser(src []byte) *Parser {
	p := &Parser{}
	yaml_parser_initialize(&p.p)
	if len(src) == 0 {
		src = []byte{} // yaml.v3 treats nil input as a reader
	}
	yaml_parser_set_input_string(&p.p, src)
	yaml_parser_set_encoding(&p.p, yaml_UTF8_ENCODING)
	p.src = string(src)
	return p
}

// Reset makes p read src from its start, exactly as NewParser(src) would,
// in the memory of what it read before: its buffers, queues and stacks
// are emptied and kept (the buffers at their first size, so that input is
// read in the same pieces), the rest of its state is made new.
func (p *Parser) Reset(src []byte) {
	q := &p.p
	clear(q.tokens[:cap(q.tokens)]) // tokens hold texts
	clear(q.simple_keys_by_tok)
	kept := yaml_parser_t{
		raw_buffer:         q.raw_buffer[:0:input_raw_buffer_size],
		buffer:             q.buffer[:0:input_buffer_size],
		tokens:             q.tokens[:0],
		indents:            q.indents[:0],
		simple_keys:        q.simple_keys[:0],
		possible_keys:      q.possible_keys[:0],
		strings:            q.strings, // its rest is unused
		states:             q.states[:0],
		marks:              q.marks[:0],
		simple_keys_by_tok: q.simple_keys_by_tok,
	}
	*p = Parser{p: kept, src: string(src)}
	if len(src) == 0 {
		src = []byte{} // as NewParser
	}
	yaml_parser_set_input_string(&p.p, src)
	yaml_parser_set_encoding(&p.p, yaml_UTF8_ENCODING)
}

func mark(m yaml_mark_t) Mark { return Mark{Index: m.index, Line: m.line, Column: m.column} }

// Next fills ev with the next event. After StreamEnd or an error it keeps
// returning the same outcome.
func (p *Parser) Next(ev *Event) error {
	for {
		if p.done {
			*ev = Event{Type: StreamEnd}
			return p.err()
		}
		if !yaml_parser_parse(&p.p, &p.ev) || p.p.error != yaml_NO_ERROR {
			p.done = true
			*ev = Event{}
			return p.err()
		}
		e := &p.ev
		if e.typ == yaml_TAIL_COMMENT_EVENT {
			continue // a yaml.v3 addition for comments; libyaml has no such event
		}
		*ev = Event{
			Type:           EventType(e.typ),
			Start:          mark(e.start_mark),
			End:            mark(e.end_mark),
			Anchor:         string(e.anchor),
			Tag:            string(e.tag),
			Implicit:       e.implicit,
			QuotedImplicit: e.quoted_implicit,
		}
		switch e.typ {
		case yaml_SCALAR_EVENT:
			ev.Value = p.value(e)
			switch yaml_scalar_style_t(e.style) {
			case yaml_SINGLE_QUOTED_SCALAR_STYLE:
				ev.Style = SingleQuoted
			case yaml_DOUBLE_QUOTED_SCALAR_STYLE:
				ev.Style = DoubleQuoted
			case yaml_LITERAL_SCALAR_STYLE:
				ev.Style = Literal
			case yaml_FOLDED_SCALAR_STYLE:
				ev.Style = Folded
			}
		case yaml_SEQUENCE_START_EVENT:
			ev.Flow = yaml_sequence_style_t(e.style) == yaml_FLOW_SEQUENCE_STYLE
		case yaml_MAPPING_START_EVENT:
			ev.Flow = yaml_mapping_style_t(e.style) == yaml_FLOW_MAPPING_STYLE
		case yaml_STREAM_END_EVENT:
			p.done = true
		}
		return nil
	}
}

// value returns scalar event e's text: where the input holds it as it is
// from e's start (inside the quotes of a quoted scalar), that part of
// p.src, which costs no memory of its own; else a copy. (Marks count
// characters, not bytes: after a character of several bytes they miss,
// and the text is copied.)
func (p *Parser) value(e *yaml_event_t) string {
	i := e.start_mark.index
	switch yaml_scalar_style_t(e.style) {
	case yaml_SINGLE_QUOTED_SCALAR_STYLE, yaml_DOUBLE_QUOTED_SCALAR_STYLE:
		i++
	}
	if j := i + len(e.value); 0 <= i && j <= len(p.src) && p.src[i:j] == string(e.value) {
		return p.src[i:j]
	}
	return string(e.value)
}

func (p *Parser) err() error {
	if p.p.error == yaml_NO_ERROR {
		return nil
	}
	problem := p.p.problem
	if problem == "" {
		problem = "unknown problem parsing YAML content"
	}
	return &Error{
		Problem:     problem,
		Context:     p.p.context,
		ProblemMark: mark(p.p.problem_mark),
		ContextMark: mark(p.p.context_mark),
	}
}
