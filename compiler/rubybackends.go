package compiler

// Levels whose function is Ruby code, run with the installed Puppet
// (Input.RubyBackends, `compile --ruby-backends=puppet`): each location of
// such a level that a node reaches is asked of the function, through
// package rubybackend, and its answer becomes a data file of that node's
// alone, compiled like any other (interpolated when the function is a
// data_hash, as Puppet interpolates only those; merged; converted; sealed
// where the function returned a Sensitive).
//
// An answer depends on the node through whatever the function reads (its
// scope, a Vault it asks), so it is never shared: each node's is a data
// file of its own, with an id of its own, which no other node's key
// signature names (package compiler/internal/share), and its digest is the answer's, so that the
// bundle's revision changes with it.
//
// A lookup_key or data_dig function answers only the keys it is asked:
// every key a data file of any other level names, at top level or in its
// lookup_options, under the layers' data folders, plus Input.RubyKeys
// (rubyKeys); a module's are asked only that module's keys.

import (
	"crypto/sha256"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/compiler/internal/rubybackend"
	"github.com/hieracc/hieracc/format"
)

// RubyBackend answers for the levels whose function is Ruby code (see
// Input.RubyBackends); NewRubyBackend starts the real one.
type RubyBackend = rubybackend.Backend

// rubyKind is the kind of a foreign level's function that a RubyBackend
// runs ("data_hash", "lookup_key", "data_dig"), and its name; "" for a
// Hiera 3 backend.
func rubyKind(function string) (kind, name string) {
	kind, name, ok := strings.Cut(function, ":")
	if !ok {
		return rubybackend.DataHash, function
	}
	if kind == rubybackend.LookupKey || kind == rubybackend.DataDig {
		return kind, name
	}
	return "", ""
}

// rubyFile is the data file a Ruby level's location l is for node n: the
// function's answer.
func (nl *nodeLayers) rubyFile(conf *config, lvl *levelConf, l location) *dataFile {
	c := nl.n.c
	kind, name := rubyKind(lvl.function)
	module := ""
	if conf.layer == format.LayerModule {
		module = conf.module
	}
	req := rubybackend.Request{Kind: kind, Function: name, Level: lvl.name, Module: module,
		Options: lvl.options, Original: l.original, Node: nl.n.node.Name}
	shown := l.path
	switch {
	case lvl.kind == locNone:
		shown = conf.file
	case lvl.kind == locURIs:
		req.URI = l.path
	default:
		req.Path = l.path
		if l.shown != "" {
			shown = l.shown
		}
	}
	for _, v := range []struct {
		name string
		to   **format.Hash
	}{{"facts", &req.Facts}, {"trusted", &req.Trusted}, {"server_facts", &req.ServerFacts}} {
		if x, ok := nl.n.scope.vars.Get(v.name); ok {
			*v.to, _ = x.(*format.Hash)
		}
	}
	if kind != rubybackend.DataHash {
		req.Keys = c.rubyKeysFor(module)
	}
	df := &dataFile{path: shown, fsPath: l.path, id: c.fileIDs.Add(1)}
	a, err := c.ruby.Call(c.ctx, req)
	switch {
	case err != nil:
		// The helper failed (crashed, hung, or Puppet would not start):
		// hieracc's message, not Puppet's.
		a = rubybackend.Answer{Err: err.Error()}
		if !strings.HasPrefix(a.Err, "--ruby-backends") {
			a.Err = "--ruby-backends=puppet: " + a.Err
		}
	case a.Data == nil && a.Err == "":
		a.Err = "--ruby-backends=puppet: no answer"
	}
	df.sum = sha256.Sum256([]byte(rubybackend.AnswerText(a, kind)))
	if a.Err != "" {
		pos := lvl.pos.In(conf.file)
		df.err = &format.Error{Message: a.Err, Pos: pos, Level: lvl.name}
		nl.n.diags = append(nl.n.diags, diagnostics.Diagnostic{Pos: pos, Level: lvl.name, Node: nl.n.node.Name, Message: a.Err})
		return df
	}
	df.hash = a.Data
	if kind != rubybackend.DataHash && len(a.Invalid) > 0 {
		// A key the function failed for fails as a key of the file does.
		failed := make([]string, 0, len(a.Invalid))
		for k := range a.Invalid {
			if !df.hash.Has(k) {
				failed = append(failed, k)
			}
		}
		slices.Sort(failed)
		for _, k := range failed {
			df.hash.Set(k, nil)
		}
	}
	df.pos = make([]dataload.Pos, df.hash.Len())
	if module != "" {
		df.filterModule(module, lvl.function)
		for _, d := range df.diags {
			d.Node = nl.n.node.Name
			nl.n.diags = append(nl.n.diags, d)
		}
		df.diags = nil
	}
	size := df.hash.Len()
	df.index = make(map[string]int, size)
	df.interp = make([]bool, size)
	df.plans = make([]*interpPlan, size)
	df.bound = make([]bool, size)
	df.invalid = make([]string, size)
	for i := 0; i < size; i++ {
		ks, ok := df.hash.Key(i).(string)
		if !ok {
			continue
		}
		df.index[ks] = i
		if ks != lookupOptionsKey {
			df.keys = append(df.keys, ks)
		}
		if kind == rubybackend.DataHash {
			// Puppet interpolates what a data_hash returns, not what a
			// lookup_key or data_dig function does.
			df.plans[i] = planFor(df.hash.Value(i))
			df.interp[i] = df.plans[i] != nil
			df.bound[i] = df.plans[i].readsNode()
		}
		df.invalid[i] = a.Invalid[ks]
		if a.Secret[ks] {
			if df.secret == nil {
				df.secret = make([]bool, size)
			}
			df.secret[i] = true
		}
	}
	slices.Sort(df.keys)
	df.keys = slices.Compact(df.keys)
	return df
}

// rubyKeys is the set of keys asked of lookup_key and data_dig functions.
type rubyKeys struct {
	once sync.Once
	all  []string
}

// rubyKeysFor returns the keys a lookup_key or data_dig function of the
// module's layer (the environment's or global layer's when "") is asked:
// lookup_options, then the module's keys, or all.
func (c *compilation) rubyKeysFor(module string) []string {
	c.rubyKeys.once.Do(func() { c.rubyKeys.all = c.collectRubyKeys() })
	if module == "" {
		return c.rubyKeys.all
	}
	out := []string{lookupOptionsKey}
	for _, k := range c.rubyKeys.all {
		if strings.HasPrefix(k, module+"::") {
			out = append(out, k)
		}
	}
	return out
}

// collectRubyKeys reads every data file under the data folders of the
// levels that hieracc reads itself, for the keys they name, at top level
// and in lookup_options (regular expressions aside), and adds
// Input.RubyKeys. A data folder whose path interpolates is read from the
// part before the first interpolation.
func (c *compilation) collectRubyKeys() []string {
	keys := map[string]bool{}
	for _, k := range c.extraKeys {
		keys[k] = true
	}
	dirs := map[string]bool{}
	configs := []*config{c.global, c.env}
	for _, name := range c.moduleNames {
		configs = append(configs, c.modules[name])
	}
	for _, conf := range configs {
		if conf == nil || !conf.present {
			continue
		}
		for _, levels := range [][]levelConf{conf.hierarchy, conf.defaultHierarchy} {
			for _, lvl := range levels {
				if lvl.foreign || lvl.noRoot || path.IsAbs(lvl.datadir) {
					continue
				}
				dir := path.Join(conf.root, lvl.datadir)
				if i := strings.Index(dir, "%{"); i >= 0 {
					dir = path.Dir(dir[:i])
				}
				dirs[dir] = true
			}
		}
	}
	sorted := make([]string, 0, len(dirs))
	for d := range dirs {
		sorted = append(sorted, d)
	}
	slices.Sort(sorted)
	seen := map[string]bool{}
	for _, dir := range sorted {
		fs.WalkDir(c.fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || seen[p] {
				return nil
			}
			seen[p] = true
			var doc *dataload.Doc
			switch path.Ext(p) {
			case ".yaml", ".yml", ".eyaml":
				src, err := fs.ReadFile(c.fsys, p)
				if err != nil || len(src) > dataload.MaxFileSize {
					return nil
				}
				doc, _ = dataload.YAML(p, src)
			case ".json":
				src, err := fs.ReadFile(c.fsys, p)
				if err != nil || len(src) > dataload.MaxFileSize {
					return nil
				}
				doc, _ = dataload.JSON(p, src)
			}
			if doc == nil || doc.Hash == nil {
				return nil
			}
			for k, v := range doc.Hash.All() {
				ks, ok := k.(string)
				if !ok {
					continue
				}
				keys[ks] = true
				if opts, ok := v.(*format.Hash); ok && ks == lookupOptionsKey {
					for ok2 := range opts.All() {
						if s, ok := ok2.(string); ok && !strings.HasPrefix(s, "^") {
							keys[s] = true
						}
					}
				}
			}
			return nil
		})
	}
	delete(keys, lookupOptionsKey)
	out := []string{lookupOptionsKey}
	rest := make([]string, 0, len(keys))
	for k := range keys {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	return append(out, rest...)
}
