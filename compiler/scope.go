package compiler

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
)

// LoadFacts reads one facts file (<certname>.yaml, .yml or .json) from fsys.
// The node's certname is the file's base name without its extension.
func LoadFacts(fsys fs.FS, file string) (Node, []Diagnostic) {
	base := path.Base(file)
	name := strings.TrimSuffix(base, path.Ext(base))
	n := Node{Name: name, Source: file}
	src, err := fs.ReadFile(fsys, file)
	if err != nil {
		return n, []Diagnostic{{File: file, Node: name, Message: fmt.Sprintf("cannot read facts: %v", err)}}
	}
	var doc *dataload.Doc
	var probs []dataload.Problem
	if strings.EqualFold(path.Ext(base), ".json") {
		doc, probs = dataload.JSON(file, src)
	} else {
		// puppet lookup --facts reads a YAML file as "bom|utf-8", which
		// drops a leading byte order mark; JSON facts keep theirs and
		// fail to parse, as in Puppet. (Data files keep it too: see the
		// byte-order-mark conformance case.)
		doc, probs = dataload.YAML(file, bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")))
	}
	var ds []Diagnostic
	for _, p := range probs {
		// A facts file that is empty or not a hash is an error, not a
		// warning: compiling a node without its facts would silently give
		// it the wrong data.
		msg := p.Message
		if p.Warning {
			msg = "facts file must hold a hash of facts: " + msg
		}
		ds = append(ds, Diagnostic{File: file, Line: p.Pos.Line, Column: p.Pos.Column, Node: name, Message: msg})
	}
	if doc != nil {
		n.Facts = doc.Hash
	}
	if name == "" {
		ds = append(ds, Diagnostic{File: file, Message: "facts file name gives no certname"})
	}
	return n, ds
}

// scope is the node's top scope, as a Puppet server gives it to Hiera:
// every top-level fact as a variable, plus facts, trusted, server_facts and
// environment.
type scope struct {
	vars *format.Hash
}

func newScope(certname, environment string, facts *format.Hash) *scope {
	facts = sanitizeFacts(facts)
	host, domain, hasDomain := strings.Cut(certname, ".")
	trusted := format.NewHash(6)
	trusted.Set("authenticated", "remote")
	trusted.Set("certname", certname)
	trusted.Set("extensions", format.NewHash(0))
	trusted.Set("hostname", host)
	if hasDomain {
		trusted.Set("domain", domain)
	} else {
		trusted.Set("domain", nil) // Puppet keeps the key, with no value
	}
	trusted.Set("external", format.NewHash(0))
	serverFacts := format.NewHash(1)
	serverFacts.Set("environment", environment)

	vars := format.NewHash(facts.Len() + 4)
	for k, v := range facts.All() {
		if ks, ok := k.(string); ok {
			vars.Set(ks, v)
		}
	}
	vars.Set("facts", facts)
	vars.Set("trusted", trusted)
	vars.Set("server_facts", serverFacts)
	vars.Set("environment", environment)
	return &scope{vars: vars}
}

// get returns a top-scope variable; "::x" names the same variable as "x".
func (s *scope) get(name string) (any, bool) {
	return s.vars.Get(strings.TrimPrefix(name, "::"))
}

// sanitizeFacts applies Puppet's fact sanitizing: null fact values become "".
func sanitizeFacts(h *format.Hash) *format.Hash {
	out := format.NewHash(h.Len())
	for k, v := range h.All() {
		out.Set(k, sanitizeFact(v))
	}
	return out
}

func sanitizeFact(v any) any {
	switch v := v.(type) {
	case nil:
		return ""
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = sanitizeFact(e)
		}
		return out
	case *format.Hash:
		return sanitizeFacts(v)
	}
	return v
}
