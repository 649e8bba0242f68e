package compiler

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/format"
)

// LoadFacts reads one facts file from fsys: a file of one node, in any of
// the shapes package facts reads (a plain facts hash, whose certname is
// the file's base name without its extension, puppet facts find's output,
// the server's facts cache, a PuppetDB export of one node). A file of
// several nodes is an error: read those with facts.Load.
func LoadFacts(fsys fs.FS, file string) (Node, []diagnostics.Diagnostic) {
	base := path.Base(file)
	name := strings.TrimSuffix(base, path.Ext(base))
	n := Node{Name: name, Source: file}
	src, err := fs.ReadFile(fsys, file)
	if err != nil {
		return n, []diagnostics.Diagnostic{{Pos: format.Pos{File: file}, Node: name, Message: fmt.Sprintf("cannot read facts: %v", err)}}
	}
	nodes, probs := facts.Parse(file, src)
	var ds []diagnostics.Diagnostic
	ds = append(ds, probs...)
	switch {
	case diagnostics.HasErrors(probs):
	case len(nodes) != 1:
		ds = append(ds, diagnostics.Diagnostic{Pos: format.Pos{File: file}, Message: fmt.Sprintf("holds the facts of %d nodes: one file, one node here", len(nodes))})
	default:
		n = NodeOf(nodes[0])
	}
	return n, ds
}

// NodeOf is the node to compile for facts read by package facts.
func NodeOf(f facts.Node) Node {
	return Node{Name: f.Certname, Facts: f.Facts, Source: f.Pos.String(), Trusted: f.Trusted}
}

// scope is the node's top scope, as a Puppet server gives it to Hiera:
// every top-level fact as a variable, plus facts, trusted, server_facts and
// environment.
type scope struct {
	vars *format.Hash
}

func newScope(certname, environment string, facts, recorded *format.Hash) *scope {
	facts = sanitizeFacts(facts)
	trusted := recorded
	if trusted == nil {
		trusted = derivedTrusted(certname)
	}
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

// derivedTrusted is $trusted for a node known only by its certname, as a
// Puppet server gives it for a certificate without extensions.
func derivedTrusted(certname string) *format.Hash {
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
	return trusted
}

// get returns a top-scope variable; "::x" names the same variable as "x".
func (s *scope) get(name string) (any, bool) {
	return s.vars.Get(strings.TrimPrefix(name, "::"))
}

// sanitizeFacts applies Puppet's fact sanitizing: null fact values become
// "". Facts without any are returned as they are (values are never
// modified).
func sanitizeFacts(h *format.Hash) *format.Hash {
	if h != nil && !holdsNil(h) {
		return h
	}
	out := format.NewHash(h.Len())
	for k, v := range h.All() {
		out.Set(k, sanitizeFact(v))
	}
	return out
}

// holdsNil reports whether v is or holds a nil value (or a nil hash,
// which sanitizing makes an empty one).
func holdsNil(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		return slices.ContainsFunc(v, holdsNil)
	case *format.Hash:
		if v == nil {
			return true
		}
		for _, e := range v.All() {
			if holdsNil(e) {
				return true
			}
		}
	}
	return false
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
