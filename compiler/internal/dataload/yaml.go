package dataload

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/dataload/internal/libyaml"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
	"github.com/hieracc/hieracc/format/ruby"
)

// YAML loads a data file like Puppet's yaml_data function: it parses src
// with Psych's rules (via Puppet::Util::Yaml.safe_load, which permits Ruby
// symbols and aliases), turns symbol keys into strings, and treats anything
// but a mapping as an empty hash with a warning. name is the file as Puppet
// would name it in messages.
//
// On an error the Doc is nil: Puppet cannot load the file and fails
// every lookup whose hierarchy reads it. Otherwise the Doc is non-nil and
// the diagnostics are only warnings.
//
// A file that starts with a UTF-8 byte order mark is read as Puppet reads
// it (see bomWarning), with a warning.
func YAML(name string, src []byte) (*Doc, []diagnostics.Diagnostic) {
	doc, probs := loadYAML(name, src)
	if doc != nil && bytes.HasPrefix(src, []byte(bomUTF8)) {
		probs = append([]diagnostics.Diagnostic{bomWarning(name, src, doc)}, probs...)
	}
	return doc, probs
}

// bomUTF8 is the UTF-8 byte order mark.
const bomUTF8 = "\xef\xbb\xbf"

// bomWarning is the warning for a data file that starts with a UTF-8 byte
// order mark. Puppet reads the file as UTF-8 and keeps the mark, which
// libyaml skips as a character at column 0: the first line's text is at
// column 1, so the next line at column 0 ends the document, and Psych
// reads no further, silently. The user almost never meant that: the
// warning names the keys lost (the file read without its mark holds them),
// at most five.
func bomWarning(name string, src []byte, doc *Doc) diagnostics.Diagnostic {
	msg := name + ": starts with a UTF-8 byte order mark, which Puppet reads as a character: the first line's text is then at column 1, and the next line at column 0 ends the data, without an error."
	whole, _ := loadYAML(name, src[len(bomUTF8):])
	var lost []string
	n := 0
	if whole != nil {
		for i, k := range whole.Hash.Keys() {
			if doc.Hash.Has(k) {
				continue
			}
			if n++; n <= 5 {
				lost = append(lost, fmt.Sprintf("%s (line %d)", ruby.Inspect(k), whole.KeyPos[i].Line))
			}
		}
	}
	switch {
	case whole == nil:
		msg += " What follows it is not read."
	case n == 0:
		msg += " Every key is read here, but a key added at column 0 would not be."
	case n > len(lost):
		msg += fmt.Sprintf(" Not read: %s and %d more.", strings.Join(lost, ", "), n-len(lost))
	default:
		msg += " Not read: " + strings.Join(lost, ", ") + "."
	}
	return warning(name, Pos{1, 1}, msg+" Remove the mark.")
}

// loadYAML is YAML, but for the byte order mark's warning.
func loadYAML(name string, src []byte) (*Doc, []diagnostics.Diagnostic) {
	if len(src) > MaxFileSize {
		return nil, []diagnostics.Diagnostic{problem(name, Pos{1, 1}, fmt.Sprintf("Unable to parse (%s): hieracc: file larger than %d bytes", name, MaxFileSize))}
	}
	// The tree is converted, then dropped: its blocks serve the next file.
	b, _ := builders.Get().(*builder)
	if b == nil {
		b = &builder{}
	}
	defer builders.Put(b)
	defer b.reset()
	root, err := b.parse(src)
	if err != nil {
		return nil, []diagnostics.Diagnostic{*err.problem(name, "Unable to parse ")}
	}
	notHash := func(p Pos) (*Doc, []diagnostics.Diagnostic) {
		return &Doc{Hash: format.NewHash(0)}, []diagnostics.Diagnostic{warning(name, p, name+": file does not contain a valid yaml hash")}
	}
	if root == nil {
		return notHash(Pos{1, 1})
	}
	c := newConv(name)
	top, lerr := c.convert(root, 0)
	if lerr != nil {
		return nil, []diagnostics.Diagnostic{*lerr.problem(name, "Unable to parse ")}
	}
	ents := top.final
	if ents == nil {
		return notHash(nodePos(root))
	}
	if top.flags&fRecursive != 0 {
		return nil, []diagnostics.Diagnostic{*stackError("a value holds itself through an alias").at(top.pos).problem(name, "")}
	}
	if h, ok := top.v.(*format.Hash); ok && plainValues(ents) {
		// Its keys are format keys (or it would be no *format.Hash), its
		// values taken as they are: the mapping's hash is the document's.
		return &Doc{Hash: h, KeyPos: ents.pos[:len(ents.pos):len(ents.pos)]}, c.dups
	}
	doc := &Doc{Hash: format.NewHash(len(ents.keys)), KeyPos: make([]Pos, 0, len(ents.keys))}
	problems := c.dups
	for i, k := range ents.keys {
		v, vf, p := ents.vals[i], ents.metas[i], ents.pos[i]
		if !isFormatKey(k) {
			// Puppet keeps it, but only string keys are ever looked up.
			problems = append(problems, warning(name, p, fmt.Sprintf(
				"%s: hieracc ignores the top-level key %s: it is not a string, number, boolean or null, so no lookup can find it", name, ruby.Inspect(k))))
			continue
		}
		if vf.flags&(fNotLookup|fNoFormat) != 0 {
			if doc.Invalid == nil {
				doc.Invalid, doc.InvalidTexts = map[any]diagnostics.Diagnostic{}, map[any][]Text{}
			}
			doc.Invalid[k] = problem(name, vf.pos, invalidMessage("yaml_data", name, k, v, vf))
			doc.InvalidTexts[k] = Texts(nil, v)
			v = nil
		} else if vf.flags&fSymbol != 0 {
			v = symbolsToStrings(v)
		}
		doc.Hash.Set(k, v)
		doc.KeyPos = append(doc.KeyPos, p)
	}
	return doc, problems
}

// plainValues reports whether a document's values are all taken as they
// are: none invalid, none holding a Symbol.
func plainValues(ents *entries) bool {
	for _, m := range ents.metas {
		if m.flags&(fNotLookup|fNoFormat|fSymbol) != 0 {
			return false
		}
	}
	return true
}

// invalidMessage is Puppet's error for looking up a key whose value is not
// a LookupValue, or hieracc's when only hieracc cannot hold the value.
func invalidMessage(fn, name string, key, v any, m meta) string {
	prefix := fmt.Sprintf("Value for key '%v', in hash returned from data_hash function '%s', when using location '%s', ", ruby.ToS(key), fn, name)
	if m.flags&fInferLoop != 0 {
		return "stack level too deep"
	}
	if m.flags&fNotLookup != 0 {
		if m.size > maxInferSize {
			// Puppet's inference is quadratic in the worst case; a huge
			// value gets a plainer message rather than a long wait.
			return prefix + "has wrong type, expects Puppet::LookupValue, got " + plainType(v) +
				" (hieracc: too large to describe the type in full)"
		}
		t, err := ptype.Infer(v)
		if err != nil {
			// Puppet's type calculator raised while wording the message;
			// the lookup fails with the exception's message instead.
			return err.Error()
		}
		return prefix + "has wrong type, expects Puppet::LookupValue, got " + t.String()
	}
	return prefix + "holds an integer outside the 64-bit range, which hieracc cannot represent"
}

// maxInferSize is the largest value (in values) whose type Puppet's way is
// inferred for a message.
const maxInferSize = 5000

// plainType names v's type without its parameters: v is an array or a
// hash, as only those exceed maxInferSize.
func plainType(v any) string {
	if _, ok := v.([]any); ok {
		return "Array"
	}
	return "Hash"
}

// Node parses the first document of src (Psych reads no further) into a
// yaml.Node tree for readers that need positions inside values, such as
// hiera.yaml's. It returns nil for a stream without a document.
//
// The tree differs from yaml.v3's in two ways: Tag is set only on nodes
// whose tag was written (those have TaggedStyle, including the
// non-specific "!"), and an alias to an unknown anchor is an AliasNode with
// a nil Alias (Psych fails on it only when the value is converted). Use
// Value, not yaml.v3's Decode, to read it as Puppet does.
//
// The error, a *diagnostics.Diagnostic, carries the message of the YamlLoadError Puppet's
// safe_load raises, e.g. "(name): did not find expected key while parsing a
// block mapping at line 3 column 1".
func Node(name string, src []byte) (*yaml.Node, error) {
	if len(src) > MaxFileSize {
		d := problem(name, Pos{1, 1}, fmt.Sprintf("(%s): hieracc: file larger than %d bytes", name, MaxFileSize))
		return nil, &d
	}
	n, err := new(builder).parse(src)
	if err != nil {
		return nil, err.problem(name, "")
	}
	return n, nil
}

// Value converts n (from Node, or any yaml.Node tree) to a format value the
// way Psych and Puppet's symkeys_to_string would. Symbol hash keys become
// strings. A value the format model cannot hold (a Ruby symbol other than
// :default and :undef, an integer beyond 64 bits, an array or hash used as
// a hash key) is an error, as is anything Puppet's safe_load refuses; the
// error is a *diagnostics.Diagnostic.
func Value(name string, n *yaml.Node) (any, error) {
	if n == nil {
		return nil, nil
	}
	c := newConv(name)
	r, err := c.convert(n, 0)
	if err != nil {
		return nil, err.problem(name, "")
	}
	if r.flags&fRecursive != 0 {
		return nil, stackError("the value holds itself through an alias").at(r.pos).problem(name, "")
	}
	if r.flags&fNoFormat != 0 {
		d := problem(name, r.pos, fmt.Sprintf("(%s): hieracc cannot represent %s", name, describeUnrepresentable(r.v)))
		return nil, &d
	}
	if r.flags&fSymbol != 0 {
		return symbolsToStrings(r.v), nil
	}
	return r.v, nil
}

// parse reads the first document of src into a node tree; nil when
// there is none. The tree is the builder's until its reset.
func (b *builder) parse(src []byte) (*yaml.Node, *loadError) {
	if root, ok := b.parseSimple(src); ok {
		return root, nil
	}
	return b.parseEvents(src)
}

// parseEvents is parse through libyaml's events, for any YAML.
func (b *builder) parseEvents(src []byte) (*yaml.Node, *loadError) {
	if b.p == nil {
		b.p = libyaml.NewParser(src)
	} else {
		b.p.Reset(src)
	}
	for {
		if err := b.next(); err != nil {
			return nil, err
		}
		switch b.ev.Type {
		case libyaml.StreamEnd:
			return nil, nil
		case libyaml.DocumentStart:
			if err := b.next(); err != nil {
				return nil, err
			}
			root, err := b.node(1)
			if err != nil {
				return nil, err
			}
			// Psych stops at the end of the first document, but the
			// parser must read on to see that it ended.
			if err := b.next(); err != nil {
				return nil, err
			}
			return root, nil
		}
	}
}

// builders holds builders whose blocks YAML's next tree takes (YAML drops
// each tree once it is converted; Node's trees are their callers').
var builders sync.Pool

type builder struct {
	p       *libyaml.Parser
	ev      libyaml.Event
	anchors map[string]*yaml.Node // made at the first anchor
	// A tree's nodes and their Content lists are cut from blocks of 32
	// and 64 (a data file's tree is made, read and dropped as a whole):
	// nodeBlocks and listBlocks are every block made, the first nb and lb
	// of them in use; nodes is the block of nodes in use last, lists that
	// of Content lists; kids holds the children of the collections being
	// built, the innermost last.
	nodeBlocks [][]yaml.Node
	listBlocks [][]*yaml.Node
	nb, lb     int
	nodes      []yaml.Node
	lists      []*yaml.Node
	kids       []*yaml.Node
	// parseSimple's buffers (simple.go), kept for the next file.
	texts   []byte
	scalars []simpleScalar
}

// reset forgets the builder's tree, so that its blocks serve another:
// nothing may hold a node of it any more. It keeps the blocks of a tree
// of up to keptBlocks*32 nodes (a large file's are let go), its parser,
// whose buffers the next file is read with (libyaml's Reset), and
// parseSimple's buffers.
func (b *builder) reset() {
	for _, bl := range b.nodeBlocks[:b.nb] {
		clear(bl[:cap(bl)])
	}
	for _, bl := range b.listBlocks[:b.lb] {
		clear(bl[:cap(bl)])
	}
	clear(b.kids[:cap(b.kids)])
	texts, scalars := b.texts[:0], b.scalars[:0]
	if cap(texts) > keptText || cap(scalars) > keptScalars {
		texts, scalars = nil, nil
	}
	*b = builder{p: b.p, nodeBlocks: b.nodeBlocks[:min(len(b.nodeBlocks), keptBlocks)],
		listBlocks: b.listBlocks[:min(len(b.listBlocks), keptBlocks)], kids: b.kids[:0],
		texts: texts, scalars: scalars}
}

// keptBlocks is how many blocks of nodes, and of lists, a builder keeps
// for the next tree.
const keptBlocks = 64

// keptText and keptScalars are the most scalar text and scalars
// (parseSimple's) a builder keeps room for, for the next file: a file of
// many short or empty scalars would else leave a large list in the pool.
const (
	keptText    = 1 << 20
	keptScalars = 1 << 16
)

// newNode returns a zero node of the tree.
func (b *builder) newNode() *yaml.Node {
	if len(b.nodes) == cap(b.nodes) {
		if b.nb == len(b.nodeBlocks) {
			b.nodeBlocks = append(b.nodeBlocks, make([]yaml.Node, 0, 32))
		}
		b.nodes = b.nodeBlocks[b.nb][:0]
		b.nb++
	}
	b.nodes = b.nodes[:len(b.nodes)+1]
	return &b.nodes[len(b.nodes)-1]
}

// content returns the children of a collection, kids[from:], as a list of
// their own (cut from lists), and drops them from kids.
func (b *builder) content(from int) []*yaml.Node {
	n := len(b.kids) - from
	if n == 0 {
		return nil
	}
	if n > cap(b.lists)-len(b.lists) {
		if n > 16 {
			l := append([]*yaml.Node(nil), b.kids[from:]...)
			b.kids = b.kids[:from]
			return l
		}
		if b.lb == len(b.listBlocks) {
			b.listBlocks = append(b.listBlocks, make([]*yaml.Node, 0, 64))
		}
		b.lists = b.listBlocks[b.lb][:0]
		b.lb++
	}
	i := len(b.lists)
	b.lists = append(b.lists, b.kids[from:]...)
	b.kids = b.kids[:from]
	return b.lists[i : i+n : i+n]
}

func (b *builder) next() *loadError {
	if err := b.p.Next(&b.ev); err != nil {
		e := err.(*libyaml.Error)
		// Psych reports the context mark, Ruby-style 1-based.
		return &loadError{
			kind: errSyntax,
			pos:  Pos{e.ProblemMark.Line + 1, e.ProblemMark.Column + 1},
			msg:  fmt.Sprintf("%s at line %d column %d", e.Error(), e.ContextMark.Line+1, e.ContextMark.Column+1),
		}
	}
	return nil
}

// node builds the node whose first event is b.ev, leaving b.ev on its
// last event. depth is the nesting depth of collections.
func (b *builder) node(depth int) (*yaml.Node, *loadError) {
	ev := &b.ev
	n := b.newNode()
	n.Line, n.Column = ev.Start.Line+1, ev.Start.Column+1
	if ev.Type == libyaml.Alias {
		// The event's anchor is the name the alias refers to.
		n.Kind, n.Value, n.Alias = yaml.AliasNode, ev.Anchor, b.anchors[ev.Anchor]
		return n, nil
	}
	if ev.Tag != "" {
		n.Tag = shortTag(ev.Tag)
		n.Style |= yaml.TaggedStyle
	}
	if ev.Anchor != "" {
		n.Anchor = ev.Anchor
		if b.anchors == nil {
			b.anchors = map[string]*yaml.Node{}
		}
		b.anchors[ev.Anchor] = n
	}
	switch ev.Type {
	case libyaml.Scalar:
		n.Kind, n.Value = yaml.ScalarNode, ev.Value
		switch ev.Style {
		case libyaml.SingleQuoted:
			n.Style |= yaml.SingleQuotedStyle
		case libyaml.DoubleQuoted:
			n.Style |= yaml.DoubleQuotedStyle
		case libyaml.Literal:
			n.Style |= yaml.LiteralStyle
		case libyaml.Folded:
			n.Style |= yaml.FoldedStyle
		}
		return n, nil
	case libyaml.SequenceStart, libyaml.MappingStart:
		if depth > MaxDepth {
			return nil, stackError("nesting deeper than %d levels", MaxDepth).at(Pos{n.Line, n.Column})
		}
		n.Kind = yaml.SequenceNode
		end := libyaml.SequenceEnd
		if ev.Type == libyaml.MappingStart {
			n.Kind, end = yaml.MappingNode, libyaml.MappingEnd
		}
		if ev.Flow {
			n.Style |= yaml.FlowStyle
		}
		from := len(b.kids)
		for {
			if err := b.next(); err != nil {
				return nil, err
			}
			if b.ev.Type == end {
				n.Content = b.content(from)
				return n, nil
			}
			c, err := b.node(depth + 1)
			if err != nil {
				return nil, err
			}
			b.kids = append(b.kids, c)
		}
	}
	// The parser only yields nodes here; anything else is a bug in it.
	return nil, limitError("unexpected YAML event %d", ev.Type).at(Pos{n.Line, n.Column})
}

const yamlTagPrefix = "tag:yaml.org,2002:"

// shortTag writes "tag:yaml.org,2002:x" as "!!x", like yaml.v3 does.
func shortTag(t string) string {
	if strings.HasPrefix(t, yamlTagPrefix) {
		return "!!" + t[len(yamlTagPrefix):]
	}
	return t
}

// explicitTag is the full tag written on n ("" when none): what Psych sees
// as the node's tag.
func explicitTag(n *yaml.Node) string {
	if n.Style&yaml.TaggedStyle == 0 {
		return ""
	}
	if strings.HasPrefix(n.Tag, "!!") {
		return yamlTagPrefix + n.Tag[2:]
	}
	return n.Tag
}

func nodePos(n *yaml.Node) Pos { return Pos{n.Line, n.Column} }
