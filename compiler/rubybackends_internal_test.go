package compiler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/rubybackend"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
)

// nodeBackend is a fake Ruby backend whose answers depend on the node
// alone: every node reaches the same location, with the same path, yet
// each gets its own answer. It records what it was asked.
type nodeBackend struct {
	mu   sync.Mutex
	asks []rubybackend.Request
}

func (b *nodeBackend) Call(_ context.Context, req rubybackend.Request) (rubybackend.Answer, error) {
	b.mu.Lock()
	b.asks = append(b.asks, req)
	b.mu.Unlock()
	a := rubybackend.Answer{Data: format.NewHash(4), Invalid: map[string]string{}, Secret: map[string]bool{}}
	if strings.HasPrefix(req.Node, "bad") {
		return rubybackend.Answer{Err: "Value returned from data_hash function 'f' has wrong type, expects a Hash value, got String"}, nil
	}
	switch req.Kind {
	case rubybackend.DataHash:
		a.Data.Set("who", req.Node)
		a.Data.Set("greet", "hi %{trusted.certname}")
		a.Data.Set("merged", hashOf("from_ruby", req.Node))
		a.Data.Set("pw", "s3cret-"+req.Node)
		a.Secret["pw"] = true
		a.Data.Set("odd", nil)
		a.Invalid["odd"] = "Value for key 'odd', in hash returned from data_hash function 'f', has wrong type, expects Puppet::LookupValue, got Runtime[ruby, 'Time']"
	default:
		for _, k := range req.Keys {
			switch k {
			case "lookup_options":
			case "mod::k":
				a.Data.Set(k, "lk %{not} interpolated "+req.Node)
			case "cmdb_only":
				a.Data.Set(k, "lk "+req.Node)
			}
		}
	}
	return a, nil
}

func hashOf(kv ...any) *format.Hash {
	h := format.NewHash(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

var rubyRepo = fstest.MapFS{
	"env/hiera.yaml": {Data: []byte(`version: 5
hierarchy:
  - name: Ruby
    data_hash: my_hash
    path: ruby.kv
  - name: CMDB
    lookup_key: environment::cmdb
    uri: "cmdb://same"
  - name: Common
    path: common.yaml
`)},
	"env/data/ruby.kv": {Data: []byte("whatever the function reads\n")},
	"env/data/common.yaml": {Data: []byte(`who: common
merged: {from_common: yes}
cmdb_only: common
lookup_options:
  merged: {merge: hash}
  from_options_only: {merge: unique}
`)},
	"modules/mod/hiera.yaml": {Data: []byte(`version: 5
hierarchy:
  - name: Mod CMDB
    lookup_key: mod::cmdb
  - name: Common
    path: common.yaml
`)},
	"modules/mod/data/common.yaml": {Data: []byte("mod::k: common\nmod::j: common\n")},
}

func rubyNodes(names ...string) []Node {
	var nodes []Node
	for _, n := range names {
		nodes = append(nodes, Node{Name: n, Facts: hashOf("dc", "ams")})
	}
	return nodes
}

// TestRubyAnswersAreTheNodes: a Ruby level's answer is its node's, never
// another's, although every node reaches the same location; compiling
// with and without sharing work across nodes gives the same bytes.
func TestRubyAnswersAreTheNodes(t *testing.T) {
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("web%02d", i))
	}
	compile := func(share bool) *Result {
		res, err := Compile(context.Background(), Input{FS: rubyRepo, EnvDir: "env", ModulesDir: "modules", Nodes: rubyNodes(names...),
			Jobs: 1, NoSharing: !share, RubyBackends: &nodeBackend{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	shared, alone := compile(true), compile(false)
	for i, b := range shared.Bundles {
		node := names[i]
		want := map[string]any{
			"who":       node,
			"greet":     "hi " + node,
			"merged":    `{"from_common":true,"from_ruby":"` + node + `"}`, // hash merge: Puppet keeps the lower level's keys first
			"cmdb_only": "lk " + node,
			"mod::k":    "lk %{not} interpolated " + node,
			"mod::j":    "common",
		}
		for _, k := range b.Keys {
			w, ok := want[k.Name]
			if !ok {
				continue
			}
			got := k.Value
			if h, isHash := got.(*format.Hash); isHash {
				var parts []string
				for hk, hv := range h.All() {
					parts = append(parts, fmt.Sprintf("%q:%s", hk, strings.ReplaceAll(fmt.Sprintf("%q", hv), "%!q(bool=true)", "true")))
				}
				got = "{" + strings.Join(parts, ",") + "}"
			}
			if k.Err != nil || got != w {
				t.Errorf("%s %s = %v (err %v), want %v", node, k.Name, got, k.Err, w)
			}
			delete(want, k.Name)
		}
		if len(want) > 0 {
			t.Errorf("%s: keys missing: %v", node, want)
		}
		a, err := encode.Encode(b)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := encode.Encode(alone.Bundles[i])
		if string(a) != string(o) {
			t.Errorf("%s: sharing changed the bundle", node)
		}
	}
}

// TestRubyAnswersCompiled: a Sensitive makes a secret key, a value that
// is not data fails its key only, a failed answer fails the lookups that
// reach it, placed at the level, for that node only.
func TestRubyAnswersCompiled(t *testing.T) {
	res, err := Compile(context.Background(), Input{FS: rubyRepo, EnvDir: "env", ModulesDir: "modules",
		Nodes: rubyNodes("web01", "bad01"), Jobs: 1, RubyBackends: &nodeBackend{}})
	if err != nil {
		t.Fatal(err)
	}
	keys := func(b *format.Bundle) map[string]format.Key {
		m := map[string]format.Key{}
		for _, k := range b.Keys {
			m[k.Name] = k
		}
		return m
	}
	web := keys(res.Bundles[0])
	if !web["pw"].Secret || web["who"].Secret {
		t.Errorf("secret: pw %v, who %v; want pw only", web["pw"].Secret, web["who"].Secret)
	}
	if e := web["odd"].Err; e == nil || !strings.Contains(e.Message, "expects Puppet::LookupValue") {
		t.Errorf("odd: %v, want Puppet's validation error", e)
	}
	bad := res.Bundles[1]
	if bad.NodeError == nil || !strings.Contains(bad.NodeError.Message, "expects a Hash value") ||
		bad.NodeError.File != "env/hiera.yaml" || bad.NodeError.Level != "Ruby" || bad.NodeError.Line != 3 {
		t.Errorf("bad01's error: %+v, want the answer's error at level Ruby in env/hiera.yaml:3", bad.NodeError)
	}
	var got []string
	for _, d := range res.Diagnostics {
		if d.Severity == diagnostics.Error && strings.Contains(d.Message, "expects a Hash value") {
			got = append(got, d.Node)
		}
	}
	slices.Sort(got)
	got = slices.Compact(got)
	if d := cmp.Diff([]string{"bad01"}, got); d != "" {
		t.Errorf("nodes of the failed answer's diagnostics (-want +got):\n%s", d)
	}
}

// TestRubyKeysAsked: a lookup_key function is asked lookup_options, the
// keys the data files name (lookup_options entries too) and the extra
// keys; a module's, only its own; a data_hash, no keys. Each request
// carries the node's scope.
func TestRubyKeysAsked(t *testing.T) {
	b := &nodeBackend{}
	_, err := Compile(context.Background(), Input{FS: rubyRepo, EnvDir: "env", ModulesDir: "modules",
		Nodes: rubyNodes("web01"), Jobs: 1, RubyBackends: b, RubyKeys: []string{"only::extra", "mod::extra"}})
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string][]string{}
	for _, r := range b.asks {
		asked[r.Function] = r.Keys
		if r.Node != "web01" || r.Facts == nil || r.Trusted == nil || r.ServerFacts == nil {
			t.Errorf("%s: node %q, facts %v, trusted %v, server_facts %v", r.Function, r.Node, r.Facts, r.Trusted, r.ServerFacts)
		}
	}
	want := map[string][]string{
		"my_hash":           nil,
		"environment::cmdb": {"lookup_options", "cmdb_only", "from_options_only", "merged", "mod::extra", "mod::j", "mod::k", "only::extra", "who"},
		"mod::cmdb":         {"lookup_options", "mod::extra", "mod::j", "mod::k"},
	}
	if d := cmp.Diff(want, asked); d != "" {
		t.Errorf("keys asked (-want +got):\n%s", d)
	}
}

// versioned answers "v" with its version: a Vault whose secret changed.
type versioned struct{ version string }

func (b versioned) Call(_ context.Context, req rubybackend.Request) (rubybackend.Answer, error) {
	a := rubybackend.Answer{Data: format.NewHash(1), Invalid: map[string]string{}, Secret: map[string]bool{}}
	if req.Kind == rubybackend.DataHash {
		a.Data.Set("v", b.version)
	}
	return a, nil
}

// TestRubyAnswersInRevision: a bundle's revision follows what the Ruby
// level answered, although no file changed.
func TestRubyAnswersInRevision(t *testing.T) {
	rev := func(version string) string {
		res, err := Compile(context.Background(), Input{FS: rubyRepo, EnvDir: "env", ModulesDir: "modules",
			Nodes: rubyNodes("web01"), Jobs: 1, RubyBackends: versioned{version}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Bundles[0].Revision
	}
	if a, b, a2 := rev("1"), rev("2"), rev("1"); a == b || a != a2 {
		t.Errorf("revisions for answers 1, 2, 1: %s, %s, %s; want the first two apart, the first and last the same", a, b, a2)
	}
}

// broken is a helper that failed.
type broken struct{}

func (broken) Call(context.Context, rubybackend.Request) (rubybackend.Answer, error) {
	return rubybackend.Answer{}, fmt.Errorf("the Ruby helper did not answer within 2m0s, and was stopped")
}

// TestRubyHelperFailure: a helper that fails fails the lookups that need
// it, saying so at the level: here every lookup of the node, which reads
// lookup_options from every level.
func TestRubyHelperFailure(t *testing.T) {
	res, err := Compile(context.Background(), Input{FS: rubyRepo, EnvDir: "env", ModulesDir: "modules",
		Nodes: rubyNodes("web01"), Jobs: 1, RubyBackends: broken{}})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Bundles[0]
	want := "--ruby-backends=puppet: the Ruby helper did not answer within 2m0s, and was stopped"
	if b.NodeError == nil || b.NodeError.Message != want || b.NodeError.Level != "Ruby" {
		t.Errorf("node error %+v, want %q at level Ruby", b.NodeError, want)
	}
}
