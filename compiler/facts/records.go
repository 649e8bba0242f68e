package facts

// Detecting a document's shape and turning it into nodes. Every shape is
// recognised by the fields it must have; a document that has some of a
// shape's fields but not what makes it that shape is an error, never
// facts: a wrapper read as facts would give every node blank facts.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
	"gopkg.in/yaml.v3"
)

// The fields of each wrapper shape.
var (
	// puppet facts find, JSON (Puppet::Node::Facts#to_data_hash).
	findFields = []string{"name", "values", "timestamp", "expiration"}
	// PuppetDB records: factsets, inventory, a replace facts command.
	recordFields = []string{"certname", "environment", "timestamp", "producer_timestamp", "producer",
		"hash", "facts", "trusted", "values", "package_inventory"}
	// Keys that a document holding facts one level down is likely to
	// use: such a document is an error, not a node with one fact.
	wrapperKeys = []string{"facts", "values", "data", "result", "results", "nodes", "node", "factsets", "items"}
)

// detect turns a parsed document into nodes.
func (d *doc) detect(v any) {
	switch v := v.(type) {
	case *format.Hash:
		d.hash(v)
	case []any:
		d.array(v)
	case nil:
		d.fail("", "is empty: a facts file must hold the facts of at least one node")
	default:
		d.fail("", fmt.Sprintf("holds %s, not facts: a facts file holds a hash of facts, or a PuppetDB export (an array of records)", describe(v)))
	}
}

// hash reads a document that is a hash: a plain facts hash, puppet facts
// find's wrapper, or one PuppetDB record.
func (d *doc) hash(h *format.Hash) {
	keys, allStrings := stringKeys(h)
	has := func(k string) bool { return slices.Contains(keys, k) }
	within := func(set ...[]string) bool {
		if !allStrings {
			return false
		}
		for _, k := range keys {
			if !slices.ContainsFunc(set, func(s []string) bool { return slices.Contains(s, k) }) {
				return false
			}
		}
		return true
	}
	switch {
	// puppet facts find output; fields Puppet does not write are ignored,
	// as Puppet's Facts.from_data_hash ignores them (it reads name and
	// values, and timestamp and expiration).
	case has("values") && has("name") && (within(findFields) || !has("certname") && !has("facts")):
		name, _ := h.Get("name")
		values, _ := h.Get("values")
		cert, ok := name.(string)
		if !ok {
			d.fail("", fmt.Sprintf("is puppet facts find output whose name is %s, not a certname", describe(name)))
			return
		}
		vh, ok := values.(*format.Hash)
		if !ok {
			d.fail(cert, fmt.Sprintf("is puppet facts find output whose values are %s, not a hash of facts", describe(values)))
			return
		}
		if vh.Has("_timestamp") {
			// Facts#initialize_from_hash deletes it, as from the cache.
			vh = vh.Clone()
			vh.Delete("_timestamp")
		}
		d.single(Node{Certname: cert, Facts: vh, Format: FactsFind})
	// A PuppetDB record; fields hieracc does not know are ignored (PuppetDB
	// adds fields to its records over versions, as array exports show).
	case has("certname") && (within(recordFields) || (has("facts") || has("values")) && !has("name")):
		d.record(h, "", 0, 0, true)
	case h.Len() == 1 && allStrings && (slices.Contains(wrapperKeys, keys[0]) || keys[0] == d.fileCert) && isCollection(h.Value(0)):
		d.fail("", fmt.Sprintf("holds only %q, whose value is %s: facts belong at the top level of the file (a hash of facts), not under a key", keys[0], describe(h.Value(0))))
	case within(findFields, recordFields) && (has("values") || has("facts") || has("certname") || has("name") && (has("timestamp") || has("expiration"))),
		(has("values") || has("facts")) && (has("name") || has("certname")):
		d.fail("", fmt.Sprintf("looks like a wrapper of facts (it has only the fields %s) but is none that hieracc knows: "+
			"puppet facts find output has name and values, a PuppetDB record certname and facts (or values)", strings.Join(keys, ", ")))
	default:
		d.add(Node{Certname: d.fileCert, Facts: h, Format: Plain}, false, "")
	}
}

// array reads a document that is an array: a PuppetDB export.
func (d *doc) array(a []any) {
	if len(a) == 0 {
		d.fail("", "is an empty array: it holds no node's facts (a PuppetDB export that matched no node?)")
		return
	}
	rows := false
	for i, e := range a {
		r, ok := e.(*format.Hash)
		line, col := d.elemPos(i)
		if !ok {
			d.probs = append(d.probs, d.problemAt(line, col, "", fmt.Sprintf("is an array whose element %d is %s: an array of facts must be a PuppetDB export, an array of records with a certname", i+1, describe(e))))
			return
		}
		if _, ok := r.Get("certname"); !ok {
			keys, _ := stringKeys(r)
			d.probs = append(d.probs, d.problemAt(line, col, "", fmt.Sprintf("is an array whose element %d has no certname (its keys: %s): an array of facts must be a PuppetDB export, an array of records with a certname", i+1, strings.Join(keys, ", "))))
			return
		}
		if i == 0 {
			rows = r.Has("name") && r.Has("value") && !r.Has("facts") && !r.Has("values")
		}
	}
	if rows {
		d.factRows(a)
		return
	}
	for i, e := range a {
		line, col := d.elemPos(i)
		d.record(e.(*format.Hash), fmt.Sprintf("element %d", i+1), line, col, false)
	}
}

// record reads one PuppetDB record: a factset (facts.data holds
// {name, value} pairs), an inventory entry (facts is a hash of facts) or
// a replace facts command (values is a hash of facts).
func (d *doc) record(r *format.Hash, where string, line, col int, single bool) {
	fail := func(cert, msg string) {
		if where != "" {
			msg = where + " " + msg
		}
		d.probs = append(d.probs, d.problemAt(line, col, cert, msg))
	}
	cv, _ := r.Get("certname")
	cert, ok := cv.(string)
	if !ok {
		fail("", fmt.Sprintf("is a PuppetDB record whose certname is %s", describe(cv)))
		return
	}
	n := Node{Certname: cert, Pos: format.Pos{Line: line, Column: col}}
	if ev, ok := r.Get("environment"); ok && ev != nil {
		env, ok := ev.(string)
		if !ok {
			fail(cert, fmt.Sprintf("is a PuppetDB record whose environment is %s", describe(ev)))
			return
		}
		n.Environment = env
	}
	fv, hasFacts := r.Get("facts")
	vv, hasValues := r.Get("values")
	switch {
	case hasFacts && hasValues:
		fail(cert, "is a PuppetDB record with both facts and values: which are its facts?")
		return
	case hasFacts:
		fh, ok := fv.(*format.Hash)
		if !ok {
			fail(cert, fmt.Sprintf("is a PuppetDB record whose facts are %s, not a hash", describe(fv)))
			return
		}
		if data, ok := fh.Get("data"); ok && onlyKeys(fh, "data", "href") {
			facts, msg := factsetData(data)
			if msg != "" {
				fail(cert, "is a PuppetDB factset whose "+msg)
				return
			}
			n.Facts, n.Format = facts, Factsets
		} else if _, ok := fh.Get("href"); ok && onlyKeys(fh, "href") {
			fail(cert, "is a PuppetDB factset whose facts were not expanded (only an href): query the factsets endpoint, which includes the facts")
			return
		} else {
			n.Facts, n.Format = fh.Clone(), Inventory
		}
	case hasValues:
		vh, ok := vv.(*format.Hash)
		if !ok {
			fail(cert, fmt.Sprintf("is a PuppetDB replace facts command whose values are %s, not a hash", describe(vv)))
			return
		}
		n.Facts, n.Format = vh.Clone(), Command
	default:
		keys, _ := stringKeys(r)
		fail(cert, fmt.Sprintf("is a PuppetDB record without facts (its keys: %s): a factset or inventory record has facts, a replace facts command values", strings.Join(keys, ", ")))
		return
	}
	var tv any
	var hasTrusted bool
	if tv, hasTrusted = n.Facts.Get("trusted"); hasTrusted {
		// PuppetDB keeps $trusted as a fact named trusted; on the
		// server it is $trusted, not a fact.
		n.Facts.Delete("trusted")
	}
	if v, ok := r.Get("trusted"); ok {
		tv, hasTrusted = v, true
	}
	if hasTrusted {
		t, msg := trustedHash(cert, tv)
		if msg != "" {
			fail(cert, msg)
			return
		}
		n.Trusted = t
	}
	if single {
		d.single(n)
	} else {
		d.add(n, false, where)
	}
}

// factsetData turns a factset's data, [{name, value}...], into a hash of
// facts; msg says what is wrong with it otherwise.
func factsetData(data any) (*format.Hash, string) {
	list, ok := data.([]any)
	if !ok {
		return nil, fmt.Sprintf("facts.data is %s, not an array of {name, value}", describe(data))
	}
	facts := format.NewHash(len(list))
	for i, e := range list {
		p, ok := e.(*format.Hash)
		name, _ := p.Get("name")
		ns, isStr := name.(string)
		if !ok || !isStr || !p.Has("value") {
			return nil, fmt.Sprintf("facts.data element %d is not a {name, value} pair", i+1)
		}
		if facts.Has(ns) {
			return nil, fmt.Sprintf("facts.data names fact %q twice", ns)
		}
		v, _ := p.Get("value")
		facts.Set(ns, v)
	}
	return facts, ""
}

// factRows reads /pdb/query/v4/facts rows, {certname, name, value,
// environment}, grouped by certname in the order they first appear.
func (d *doc) factRows(a []any) {
	byCert := map[string]int{}
	var nodes []Node
	for i, e := range a {
		r := e.(*format.Hash)
		line, col := d.elemPos(i)
		cv, _ := r.Get("certname")
		nv, _ := r.Get("name")
		cert, ok1 := cv.(string)
		name, ok2 := nv.(string)
		v, ok3 := r.Get("value")
		if !ok1 || !ok2 || !ok3 || !onlyKeys(r, "certname", "name", "value", "environment") {
			keys, _ := stringKeys(r)
			d.probs = append(d.probs, d.problemAt(line, col, "", fmt.Sprintf("is a PuppetDB facts export whose element %d is not a fact row {certname, name, value, environment} (its keys: %s)", i+1, strings.Join(keys, ", "))))
			return
		}
		env := ""
		if ev, ok := r.Get("environment"); ok && ev != nil {
			if env, ok = ev.(string); !ok {
				d.probs = append(d.probs, d.problemAt(line, col, cert, fmt.Sprintf("is a PuppetDB facts export whose element %d has environment %s", i+1, describe(ev))))
				return
			}
		}
		j, seen := byCert[cert]
		if !seen {
			j = len(nodes)
			byCert[cert] = j
			nodes = append(nodes, Node{Certname: cert, Facts: format.NewHash(0), Format: FactRows, Environment: env, Pos: format.Pos{Line: line, Column: col}})
		}
		n := &nodes[j]
		if env != n.Environment {
			d.probs = append(d.probs, d.problemAt(line, col, cert, fmt.Sprintf("is a PuppetDB facts export whose element %d gives environment %q, another row %q", i+1, env, n.Environment)))
			return
		}
		if n.Facts.Has(name) {
			d.probs = append(d.probs, d.problemAt(line, col, cert, fmt.Sprintf("is a PuppetDB facts export whose element %d gives fact %q a second time", i+1, name)))
			return
		}
		if name == "trusted" {
			t, msg := trustedHash(cert, v)
			if msg != "" {
				d.probs = append(d.probs, d.problemAt(line, col, cert, msg))
				return
			}
			n.Trusted = t
			continue
		}
		n.Facts.Set(name, v)
	}
	for _, n := range nodes {
		d.add(n, false, "")
	}
}

// nodeFacts reads a YAML Puppet::Node::Facts: what `puppet facts find
// --render-as yaml` prints and the server's facts cache holds. It is read
// as Puppet's Facts#initialize_from_hash reads it, without running
// anything: name and values are taken, values' "_timestamp" (written by
// old Puppets) is dropped, and timestamp and expiration, bookkeeping, are
// not read at all.
func (d *doc) nodeFacts(root *yaml.Node) {
	if root.Kind != yaml.MappingNode {
		d.probs = append(d.probs, d.problemAt(root.Line, root.Column, "", "is a Puppet::Node::Facts that is not a mapping"))
		return
	}
	n := Node{Format: NodeFacts, Pos: format.Pos{Line: root.Line, Column: root.Column}}
	var haveName, haveValues bool
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := root.Content[i], root.Content[i+1]
		k, err := dataload.Value(d.file, kn)
		if err != nil {
			d.probs = append(d.probs, d.fromDataload(err))
			return
		}
		switch k {
		case "name":
			v, err := dataload.Value(d.file, vn)
			if err != nil {
				d.probs = append(d.probs, d.fromDataload(err))
				return
			}
			s, ok := v.(string)
			if !ok {
				d.probs = append(d.probs, d.problemAt(vn.Line, vn.Column, "", fmt.Sprintf("is a Puppet::Node::Facts whose name is %s, not a certname", describe(v))))
				return
			}
			n.Certname, haveName = s, true
		case "values":
			v, err := dataload.Value(d.file, withoutTimestamp(d.file, vn))
			if err != nil {
				d.probs = append(d.probs, d.fromDataload(err))
				return
			}
			h, ok := v.(*format.Hash)
			if !ok {
				d.probs = append(d.probs, d.problemAt(vn.Line, vn.Column, "", fmt.Sprintf("is a Puppet::Node::Facts whose values are %s, not a hash of facts", describe(v))))
				return
			}
			n.Facts, haveValues = h, true
		case "timestamp", "expiration":
		default:
			d.probs = append(d.probs, d.problemAt(kn.Line, kn.Column, "", fmt.Sprintf("is a Puppet::Node::Facts with a field %v that Puppet does not write", k)))
			return
		}
	}
	switch {
	case !haveValues:
		d.probs = append(d.probs, d.problemAt(root.Line, root.Column, n.Certname, "is a Puppet::Node::Facts without values: it holds no facts"))
	case !haveName:
		d.probs = append(d.probs, d.problemAt(root.Line, root.Column, "", "is a Puppet::Node::Facts without a name: whose facts are they?"))
	default:
		d.single(n)
	}
}

// withoutTimestamp is a mapping of facts without the timestamp old
// Puppets kept among them: an entry whose key is the string _timestamp
// (which Puppet's Facts#initialize_from_hash deletes), or the symbol
// :_timestamp (`!ruby/sym _timestamp`, as Puppet 3 wrote it) holding a
// Ruby Time, which no fact is (Puppet 7's cache reader refuses the file).
// A symbol :_timestamp holding anything else stays a fact. Other nodes are
// returned as they are.
func withoutTimestamp(file string, m *yaml.Node) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return m
	}
	c := *m
	c.Content = nil
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, vn := m.Content[i], m.Content[i+1]
		if kn.Kind == yaml.ScalarNode && kn.Value == "_timestamp" && (kn.Tag == "" || kn.Tag == "!!str" || kn.Tag == "tag:yaml.org,2002:str") {
			continue
		}
		if isKey(file, kn, "_timestamp") && isRubyTime(file, vn) {
			continue
		}
		c.Content = append(c.Content, kn, vn)
	}
	return &c
}

// isKey reports whether a mapping key node is read (a symbol as a string)
// as the key k.
func isKey(file string, kn *yaml.Node, k string) bool {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{kn, {Kind: yaml.ScalarNode, Tag: "!!null", Value: "~"}}}
	v, err := dataload.Value(file, m)
	h, _ := v.(*format.Hash)
	return err == nil && h != nil && h.Has(k)
}

// isRubyTime reports whether a YAML value is one Psych reads as a Ruby
// Time (a timestamp), which Puppet's safe loading refuses.
func isRubyTime(file string, n *yaml.Node) bool {
	_, err := dataload.Value(file, n)
	return err != nil && strings.HasSuffix(err.Error(), "Tried to load unspecified class: Time")
}

// single adds the node of a document that names one node: its file's
// name must agree.
func (d *doc) single(n Node) {
	d.add(n, true, "")
}

// add checks a node's certname and adds it; where names its record in
// messages ("element 3"), when the file has several.
func (d *doc) add(n Node, checkFile bool, where string) {
	n.File = d.file
	if msg := checkCertname(n.Certname); msg != "" {
		if where != "" {
			msg = where + ": " + msg
		}
		d.probs = append(d.probs, d.problemAt(n.Line, n.Column, "", fmt.Sprintf("%s (%s)", msg, n.Format)))
		return
	}
	if checkFile && n.Certname != d.fileCert {
		d.probs = append(d.probs, d.problemAt(n.Line, n.Column, n.Certname, fmt.Sprintf(
			"holds the facts of node %s (%s), but its file name says %s: rename the file %s%s", n.Certname, n.Format, d.fileCert, n.Certname, extOf(d.file))))
		return
	}
	d.nodes = append(d.nodes, n)
}

// MaxCertname is the longest certname, in bytes: its bundle's file name,
// <certname>.bundle, must fit in the 255 bytes of a file name.
const MaxCertname = 255 - len(".bundle")

// checkCertname returns what is wrong with a certname, or "". The rule is
// Puppet's for certificate names (Puppet::SSL::Base::VALID_CERTNAME:
// printable ASCII but "/"), and a certname names its bundle's file: it is
// no path step and fits in a file name. Messages quote the certname as Go
// does when it holds what is not printable: they never echo raw bytes.
func checkCertname(c string) string {
	switch {
	case c == "":
		return "gives an empty certname"
	case c == "." || c == "..":
		return fmt.Sprintf("gives the certname %q, which is not a node's name", c)
	case len(c) > MaxCertname:
		return fmt.Sprintf("certname of %d bytes: at most %d (its bundle's file name, <certname>.bundle, must fit in 255 bytes)", len(c), MaxCertname)
	}
	for i, r := range c {
		if r < ' ' || r > '~' || r == '/' {
			if r == utf8.RuneError {
				return fmt.Sprintf("certname %s holds the byte %#x: a certname is printable ASCII but \"/\", as for Puppet", QuoteName(c), c[i])
			}
			return fmt.Sprintf("certname %s holds %q: a certname is printable ASCII but \"/\", as for Puppet", QuoteName(c), r)
		}
	}
	return ""
}

// QuoteName is s, in Go's quotes when it holds anything but printable
// characters: for a name (a certname, a file's) in a message, which must
// never echo raw bytes.
func QuoteName(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

func extOf(file string) string {
	base := fileCertname(file)
	i := strings.LastIndex(file, base)
	if i < 0 {
		return ""
	}
	return file[i+len(base):]
}

// stringKeys returns a hash's keys as strings, and whether all were.
func stringKeys(h *format.Hash) ([]string, bool) {
	keys := make([]string, 0, h.Len())
	all := true
	for k := range h.All() {
		s, ok := k.(string)
		if !ok {
			all = false
			s = fmt.Sprint(k)
		}
		keys = append(keys, s)
	}
	return keys, all
}

// onlyKeys reports whether every key of h is one of keys.
func onlyKeys(h *format.Hash, keys ...string) bool {
	for k := range h.All() {
		s, ok := k.(string)
		if !ok || !slices.Contains(keys, s) {
			return false
		}
	}
	return true
}

func isCollection(v any) bool {
	switch v.(type) {
	case *format.Hash, []any:
		return true
	}
	return false
}

// describe names a value's kind for messages, without its content
// (facts may hold secrets).
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case string:
		return "a string"
	case []any:
		return fmt.Sprintf("an array of %d", len(v))
	case *format.Hash:
		if v.Len() == 1 {
			return "a hash of 1 key"
		}
		return fmt.Sprintf("a hash of %d keys", v.Len())
	}
	return fmt.Sprintf("a %T", v)
}
