package compiler

// Stage 1, continued: hiera.yaml versions 3 and 4, as Puppet 7 reads them
// (HieraConfigV3 and HieraConfigV4 in Puppet's hiera_config.rb).
//
//   - Version 3 (a file without `version` is one) configures the global
//     layer the Hiera 3 way: one level per backend, in :backends: order,
//     each searching every :hierarchy: path with the backend's extension
//     under the backend's :datadir:. In an environment or a module Puppet
//     ignores it, with a warning.
//   - Version 4 (deprecated) configures an environment or a module: each
//     hierarchy entry names a backend (yaml or json) and a path or paths,
//     with the extension added. The global layer refuses it.

import (
	"fmt"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format/ruby"
	"path"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
	"gopkg.in/yaml.v3"
)

// v3Keys are the keys of a version 3 config besides each backend's own
// hash (HieraConfigV3.config_type).
var v3Keys = []string{"version", "backends", "logger", "merge_behavior", "deep_merge_options", "hierarchy"}

// v3DefaultHierarchy is Hiera 3's default :hierarchy:.
var v3DefaultHierarchy = []string{"nodes/%{::trusted.certname}", "common"}

// deprecated is Puppet's warning for a version 3 or 4 hiera.yaml.
func (c *config) deprecated(version int) diagnostics.Diagnostic {
	return diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: format.Pos{File: c.file},
		Message: fmt.Sprintf("%s: Use of 'hiera.yaml' version %d is deprecated. It should be converted to version 5", c.file, version)}
}

// v3 handles a version 3 hiera.yaml (or one that is not a hash, for which
// Puppet uses Hiera 3's default config). h is nil for the default config.
// Puppet ignores it at the root of an environment or a module, with a
// warning; the global layer reads it.
func (c *config) v3(doc *yaml.Node, h *format.Hash, warn ...diagnostics.Diagnostic) (*config, []diagnostics.Diagnostic) {
	ds := append(warn, c.deprecated(3))
	c.legacy = 3
	switch c.layer {
	case format.LayerModule, format.LayerEnvironment:
		// Puppet checks the config's types before it ignores it: a type
		// error fails every lookup that reaches the layer.
		if tds := c.v3TypeErrors(doc, h); len(tds) > 0 {
			return c, append(ds, tds...)
		}
	}
	switch c.layer {
	case format.LayerModule:
		c.present = false
		return c, append(ds, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: format.Pos{File: c.file}, Message: "hiera.yaml version 3 found at module root was ignored"})
	case format.LayerEnvironment:
		c.present = false
		return c, append(ds, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: format.Pos{File: c.file}, Message: "hiera.yaml version 3 found at the environment root was ignored"})
	}
	return c, append(ds, c.parseV3(doc, h)...)
}

// v3TypeErrors are the type errors of a version 3 config in an
// environment or a module, which Puppet validates as the global layer's
// before ignoring it; recorded as the layer's error.
func (c *config) v3TypeErrors(doc *yaml.Node, h *format.Hash) []diagnostics.Diagnostic {
	probe := &config{file: c.file, root: c.root, layer: format.LayerGlobal}
	ds := probe.parseV3(doc, h)
	if probe.err == nil || !strings.HasPrefix(probe.err.Message, "The Lookup Configuration at ") {
		return nil // no type error: what else is wrong matters only to the global layer
	}
	var out []diagnostics.Diagnostic
	for _, d := range ds {
		out = append(out, c.fail(d)...)
	}
	return out
}

// parseV3 validates a version 3 config and builds its levels: one per
// backend, named after it, whose locations are the hierarchy's paths.
func (c *config) parseV3(doc *yaml.Node, h *format.Hash) []diagnostics.Diagnostic {
	var ds []diagnostics.Diagnostic
	typeErr := func(n *yaml.Node, msg string, args ...any) {
		line, col := 0, 0
		if n != nil {
			line, col = n.Line, n.Column
		}
		ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: line, Column: col},
			Message: fmt.Sprintf("The Lookup Configuration at '%s' has wrong type, ", c.file) + fmt.Sprintf(msg, args...)})...)
	}
	if h == nil {
		h = format.NewHash(0)
	}
	// node and pos find a key written as a string or a :symbol.
	node := func(key string) *yaml.Node {
		_, v := symKey(doc, key)
		return v
	}
	pos := func(key string) (int, int) {
		if k, _ := symKey(doc, key); k != nil {
			return k.Line, k.Column
		}
		return 0, 0
	}
	// strList reads a key that is a non-empty string or an array of them.
	strList := func(key string, def []string) []string {
		v, ok := h.Get(key)
		if !ok || v == nil {
			return def
		}
		if s, ok := v.(string); ok && s != "" {
			return []string{s}
		}
		arr, ok := v.([]any)
		if ok {
			var out []string
			for i, e := range arr {
				if s, ok := e.(string); ok && s != "" {
					out = append(out, s)
					continue
				}
				// Puppet's words for an array that is no Array[String[1]]:
				// a mismatch for each variant, in one message.
				want := "String"
				if e == "" {
					want = "String[1]"
				}
				typeErr(node(key), "entry '%s' variant 0 expects a String value, got %s; entry '%s' variant 1 index %d expects a %s value, got %s",
					key, ruby.TypeName(v), key, i, want, ruby.TypeName(e))
				return nil
			}
			return out
		}
		typeErr(node(key), "entry '%s' expects a value of type String or Array, got %s", key, ruby.TypeName(v))
		return nil
	}
	backends := strList("backends", []string{"yaml"})
	paths := strList("hierarchy", v3DefaultHierarchy)
	if v, ok := h.Get("merge_behavior"); ok && v != nil {
		if s, _ := v.(string); s != "deep" && s != "deeper" && s != "native" {
			typeErr(node("merge_behavior"), "entry 'merge_behavior' expects a match for Enum['deep', 'deeper', 'native'], got %s", rubyDescribe(v))
		}
	}
	if v, ok := h.Get("deep_merge_options"); ok && v != nil {
		dm, ok := v.(*format.Hash)
		if !ok {
			typeErr(node("deep_merge_options"), "entry 'deep_merge_options' expects a Hash value, got %s", ruby.TypeName(v))
		} else {
			for k, e := range dm.All() {
				ks, _ := k.(string)
				switch e.(type) {
				case string, bool:
				default:
					typeErr(node("deep_merge_options"), "entry 'deep_merge_options' entry '%s' expects a value of type String or Boolean, got %s", ks, ruby.TypeName(e))
				}
			}
		}
	}
	if v, ok := h.Get("logger"); ok {
		if s, _ := v.(string); s == "" {
			typeErr(node("logger"), "entry 'logger' expects a String[1] value, got %s", ruby.TypeName(v))
		}
	}
	if v, ok := h.Get("version"); ok && !rubyFalsy(v) && !isInteger(v) {
		// Ruby's to_i made the version 3; the config's type wants the Integer.
		typeErr(node("version"), "entry 'version' expects an Integer value, got %s", ruby.TypeName(v))
	}
	for _, k := range h.Keys() {
		ks, _ := k.(string)
		if !slices.Contains(v3Keys, ks) && !slices.Contains(backends, ks) {
			typeErr(keyNode(doc, k), "unrecognized key '%v'", k)
		}
	}
	if len(ds) > 0 {
		return ds
	}

	seen := map[string]bool{}
	for _, b := range backends {
		if seen[b] {
			line, col := pos("backends")
			return append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: line, Column: col}, Message: fmt.Sprintf("Backend '%s' is defined more than once.", b)})...)
		}
		seen[b] = true
		lvl := levelConf{name: b, kind: locPaths, locs: paths, ext: "." + b, noRoot: true}
		lvl.pos.Line, lvl.pos.Column = pos("backends")
		// The backend's own hash: its datadir, and an extension.
		var bconf *format.Hash
		if v, ok := h.Get(b); ok && v != nil {
			if bh, ok := v.(*format.Hash); ok {
				bconf = bh
				lvl.pos.Line, lvl.pos.Column = pos(b)
			} else {
				typeErr(node(b), "entry '%s' expects a Hash value, got %s", b, ruby.TypeName(v))
				continue
			}
		}
		if bconf != nil {
			if e, ok := bconf.Get("extension"); ok && e != nil {
				lvl.ext = "." + ruby.ToS(e)
			}
		}
		switch d, _ := datadirOf(bconf); {
		case d == "":
			// Puppet's default: $codedir/environments/%{::environment}/hieradata,
			// which is the compiled environment's hieradata folder.
			lvl.envDatadir = true
		case path.IsAbs(d) || strings.HasPrefix(d, "%{"):
			lvl.datadir = d
		default:
			ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: lvl.pos.In(c.file), Level: b,
				Message: fmt.Sprintf("hieracc cannot tell where the relative :datadir: '%s' of backend '%s' is: Puppet resolves it against the working directory of its process. Make it absolute (and give that folder with compile --mount)", d, b)})...)
			continue
		}
		switch b {
		case "yaml", "json":
			lvl.function = b + "_data"
		case "eyaml":
			lvl.function = "lookup_key:eyaml_lookup_key"
			// hiera-eyaml's options are the backend's own section
			// (:eyaml: → :pkcs7_private_key:), as Puppet passes them.
			if bconf != nil {
				lvl.keys = eyamlKeysOf(bconf)
			}
		case "hocon":
			lvl.function = "hocon_data"
		default:
			lvl.function = "hiera3_backend:" + b
		}
		if msg := c.checkFunction(&lvl); msg != "" {
			ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: lvl.pos.In(c.file), Level: b, Message: msg})...)
			continue
		}
		c.hierarchy = append(c.hierarchy, lvl)
	}
	return ds
}

// symKey returns the key and value nodes of key in mapping m, written as
// a string or as a Ruby symbol (":key"); nil when absent.
func symKey(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Value == key || k.Value == ":"+key {
			return k, m.Content[i+1]
		}
	}
	return nil, nil
}

// keyNode returns the node of key k in mapping m, where messages point:
// the key as written (a string or a :symbol), else the mapping itself (a
// key that a merge key `<<` brought in). nil when m is.
func keyNode(m *yaml.Node, k any) *yaml.Node {
	if kn, _ := symKey(m, fmt.Sprint(k)); kn != nil {
		return kn
	}
	return m
}

// datadirOf returns a Hiera 3 backend's :datadir:, "" when unset.
func datadirOf(bconf *format.Hash) (string, bool) {
	if bconf == nil {
		return "", false
	}
	v, ok := bconf.Get("datadir")
	if !ok || v == nil {
		return "", false
	}
	return ruby.ToS(v), true
}

// atoiVersion reads a version value as Puppet's to_i does.
func atoiVersion(v any) int {
	switch v := v.(type) {
	case int64:
		return int(v)
	case float64:
		return int(v)
	case string:
		return atoiRuby(v)
	}
	return 0
}

// rubyDescribe is how Puppet's type errors show a value: strings quoted.
func rubyDescribe(v any) string {
	if s, ok := v.(string); ok {
		return "'" + s + "'"
	}
	return ruby.TypeName(v)
}

// v4Keys and v4LevelKeys are HieraConfigV4.config_type's keys.
var (
	v4Keys      = []string{"version", "datadir", "hierarchy"}
	v4LevelKeys = []string{"backend", "name", "datadir", "path", "paths"}
)

// parseV4 validates a version 4 config (environment and module layers only)
// and builds its levels.
func (c *config) parseV4(doc *yaml.Node, h *format.Hash) []diagnostics.Diagnostic {
	ds := []diagnostics.Diagnostic{c.deprecated(4)}
	c.legacy = 4
	if c.layer == format.LayerGlobal {
		line, col := keyPos(doc, "version")
		return append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: line, Column: col}, Message: "hiera.yaml version 4 cannot be used in the global layer"})...)
	}
	typeErr := func(n *yaml.Node, msg string, args ...any) {
		ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: n.Line, Column: n.Column},
			Message: fmt.Sprintf("The Lookup Configuration at '%s' has wrong type, ", c.file) + fmt.Sprintf(msg, args...)})...)
	}
	for _, k := range h.Keys() {
		if ks, _ := k.(string); !slices.Contains(v4Keys, ks) {
			typeErr(keyNode(doc, k), "unrecognized key '%v'", k)
		}
	}
	if v, _ := h.Get("version"); !isInteger(v) {
		typeErr(valueNode(doc, "version"), "entry 'version' expects an Integer value, got %s", ruby.TypeName(v))
	}
	// A datadir or hierarchy that is null or false is the default one
	// (Puppet's ||=).
	datadir := "data"
	if v, ok := h.Get("datadir"); ok && !rubyFalsy(v) {
		if s, _ := v.(string); s != "" {
			datadir = s
		} else {
			typeErr(valueNode(doc, "datadir"), "entry 'datadir' expects a String[1] value, got %s", ruby.TypeName(v))
		}
	}
	var entries []any
	var entryNodes []*yaml.Node
	if v, ok := h.Get("hierarchy"); ok && !rubyFalsy(v) {
		ln := valueNode(doc, "hierarchy")
		list, isList := v.([]any)
		if !isList {
			typeErr(ln, "entry 'hierarchy' expects an Array value, got %s", ruby.TypeName(v))
		}
		entries, entryNodes = list, ln.Content
	} else {
		def := format.NewHash(2)
		def.Set("name", "common")
		def.Set("backend", "yaml")
		entries, entryNodes = []any{def}, []*yaml.Node{doc}
	}
	if len(ds) > 1 {
		return ds
	}
	firstLine := map[string]int{}
	for i, e := range entries {
		en := entryNodes[min(i, len(entryNodes)-1)]
		prefix := fmt.Sprintf("entry 'hierarchy' index %d ", i)
		eh, ok := e.(*format.Hash)
		if !ok {
			typeErr(en, "%sexpects a Struct value, got %s", prefix, ruby.TypeName(e))
			continue
		}
		str := func(key string, required bool) string {
			v, ok := eh.Get(key)
			if !ok {
				if required {
					typeErr(en, "%sexpects a value for key '%s'", prefix, key)
				}
				return ""
			}
			s, _ := v.(string)
			if s == "" {
				typeErr(en, "%sentry '%s' expects a String[1] value, got %s", prefix, key, ruby.TypeName(v))
			}
			return s
		}
		bad := len(ds)
		for _, k := range eh.Keys() {
			if ks, _ := k.(string); !slices.Contains(v4LevelKeys, ks) {
				typeErr(en, "%sunrecognized key '%v'", prefix, k)
			}
		}
		name, backend := str("name", true), str("backend", true)
		// Puppet never interpolates a version 4 datadir: "data/%{facts.dc}"
		// is the folder named so.
		lvl := levelConf{name: name, pos: dataload.Pos{Line: en.Line, Column: en.Column}, datadir: datadir, kind: locPaths, ext: "." + backend, literalDatadir: true}
		if d := str("datadir", false); d != "" {
			lvl.datadir = d
		}
		lvl.locs = []string{name}
		if p := str("path", false); p != "" {
			lvl.locs = []string{p}
		}
		if v, ok := eh.Get("paths"); ok {
			arr, _ := v.([]any)
			lvl.locs = nil
			for j, p := range arr {
				s, _ := p.(string)
				if s == "" {
					typeErr(en, "%sentry 'paths' index %d expects a String[1] value, got %s", prefix, j, ruby.TypeName(p))
				}
				lvl.locs = append(lvl.locs, s)
			}
			if arr == nil {
				typeErr(en, "%sentry 'paths' expects an Array value, got %s", prefix, ruby.TypeName(v))
			}
		}
		if len(ds) > bad {
			continue
		}
		if first, dup := firstLine[name]; dup {
			ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: lvl.pos.In(c.file), Level: name,
				Message: fmt.Sprintf("Hierarchy name '%s' defined more than once. First defined at (line: %d)", name, first)})...)
			continue
		}
		firstLine[name] = lvl.pos.Line
		switch backend {
		case "yaml", "json":
			lvl.function = backend + "_data"
		case "hocon":
			ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: lvl.pos.In(c.file), Level: name,
				Message: "hieracc cannot run the hocon backend ahead of time: only yaml and json are supported"})...)
			continue
		default:
			ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: lvl.pos.In(c.file), Level: name,
				Message: fmt.Sprintf("No data provider is registered for backend '%s'", backend)})...)
			continue
		}
		c.hierarchy = append(c.hierarchy, lvl)
	}
	return ds
}
