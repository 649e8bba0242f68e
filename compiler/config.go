package compiler

// Stage 1: read and validate hiera.yaml files (Puppet's HieraConfigV5).

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
	"gopkg.in/yaml.v3"
)

// locKind is how a hierarchy level names its data files.
type locKind int

const (
	locNone locKind = iota
	locPath
	locPaths
	locGlob
	locGlobs
	locMappedPaths
	locURIs // only for functions hieracc cannot run (backends.go)
)

// levelConf is one validated hierarchy level.
type levelConf struct {
	name     string
	pos      dataload.Pos
	datadir  string   // the level's own datadir, or the defaults'
	function string   // data_hash function: yaml_data or json_data
	kind     locKind  // locNone: the level has no location (Puppet calls the function once)
	locs     []string // path(s) or glob(s), uninterpolated
	mapped   [3]string
	// keys are an eyaml level's key files, from its options (or the
	// defaults'); see eyaml.go.
	keys eyamlKeyPaths

	// Versions 3 and 4 (config_legacy.go). ext is added to each path that
	// does not end with it, after interpolation. A version 3 datadir is not
	// relative to the config's folder (noRoot); envDatadir: Hiera 3's
	// default, the compiled environment's hieradata folder. A version 4
	// datadir is never interpolated (literalDatadir).
	ext            string
	noRoot         bool
	envDatadir     bool
	literalDatadir bool

	// foreign: the level's function is Ruby code hieracc cannot run; the
	// lookups that reach one of its locations fail (backends.go), unless
	// Input.RubyBackends runs it with its options (rubybackends.go).
	foreign bool
	options *format.Hash
	// optionsErr: the level's function (yaml_data, json_data) takes no
	// options, yet it has some: Puppet fails every lookup that reaches one
	// of its locations that exist, with this message.
	optionsErr string
}

// config is one layer's validated hiera.yaml.
type config struct {
	file    string // display path of hiera.yaml; "" for Puppet's built-in default
	root    string // FS folder the config's relative paths start from
	layer   format.Layer
	module  string // module name for the module layer
	present bool   // false: the layer has no data provider at all
	legacy  int    // 3 or 4 for a hiera.yaml of that version (config_legacy.go), else 0

	hierarchy        []levelConf
	defaultHierarchy []levelConf
	hasDefault       bool

	// err fails every lookup that reaches this layer (Puppet raises when it
	// creates the layer's data providers).
	err *format.Error
	// isDefaultConfig: Puppet's built-in config, whose levels only count
	// files that exist.
	isDefaultConfig bool
	sum             [32]byte // SHA-256 of hiera.yaml, for revisions
}

// Config keys Puppet knows (hiera_config.rb).
var (
	topKeys      = []string{"version", "defaults", "hierarchy", "plan_hierarchy", "default_hierarchy"}
	defaultsKeys = []string{"data_hash", "lookup_key", "data_dig", "datadir", "options"}
	levelKeys    = []string{"name", "options", "data_hash", "lookup_key", "v3_backend", "v4_data_hash", "data_dig",
		"path", "paths", "glob", "globs", "uri", "uris", "mapped_paths", "datadir", "hiera3_backend"}
	functionKeys    = []string{"data_hash", "lookup_key", "data_dig", "hiera3_backend"}
	allFunctionKeys = []string{"data_hash", "lookup_key", "data_dig", "hiera3_backend", "v4_data_hash"}
	locationKeys    = []string{"path", "paths", "glob", "globs", "uri", "uris", "mapped_paths"}
)

// supportedFunctions are the data provider functions hieracc can run ahead
// of time.
var supportedFunctions = []string{"yaml_data", "json_data", eyamlFunction}

// defaultConfig is Puppet's built-in v5 config, used when hiera.yaml is absent
// (global layer) or holds only `version: 5`.
func defaultLevels() []levelConf {
	return []levelConf{{name: "Common", datadir: "data", function: "yaml_data", kind: locPath, locs: []string{"common.yaml"}}}
}

// loadConfig reads root/hiera.yaml for a layer. A missing file gives
// present=false except for the global layer, which then uses Puppet's
// default config. Problems that Puppet only logs are returned as warnings;
// problems that make Puppet fail the layer's lookups are both returned and
// recorded in config.err.
func loadConfig(fsys fs.FS, root string, layer format.Layer, module string) (*config, []diagnostics.Diagnostic) {
	c := &config{root: root, layer: layer, module: module}
	file := path.Join(root, "hiera.yaml")
	src, err := fs.ReadFile(fsys, file)
	if err != nil {
		if layer == format.LayerGlobal && isNotExist(err) {
			c.present = true
			c.isDefaultConfig = true
			c.hierarchy = defaultLevels()
			return c, nil
		}
		if isNotExist(err) {
			return c, nil
		}
		c.file = file
		c.present = true
		return c, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: file}, Message: fmt.Sprintf("cannot read hiera.yaml: %v", err)})
	}
	c.file = file
	c.present = true
	c.sum = sha256.Sum256(src)

	node, err := dataload.Node(file, src)
	if err != nil {
		return c, c.fail(loadProblem(err, file))
	}
	doc := node // the document's root node; nil for an empty file
	if doc == nil || doc.Kind != yaml.MappingNode {
		// Puppet falls back to Hiera 3's default config.
		d := diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: format.Pos{File: file}, Message: fmt.Sprintf("%s: File exists but does not contain a valid YAML hash. Falling back to Hiera version 3 default config", file)}
		return c.v3(nil, nil, d)
	}
	val, err := dataload.Value(file, doc)
	if err != nil {
		return c, c.fail(loadProblem(err, file))
	}
	h := val.(*format.Hash)

	version := 3 // a file without version is version 3
	if v, ok := h.Get("version"); ok && !rubyFalsy(v) {
		version = atoiVersion(v)
	}
	switch version {
	case 5:
	case 3:
		return c.v3(doc, h)
	case 4:
		return c, c.parseV4(doc, h)
	default:
		line, col := keyPos(doc, "version")
		return c, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: file, Line: line, Column: col},
			Message: fmt.Sprintf("This runtime does not support hiera.yaml version %d", version)})
	}
	return c, c.parseV5(doc, h)
}

// fail records the first error as the layer's error and returns it as a diagnostic.
func (c *config) fail(d diagnostics.Diagnostic) []diagnostics.Diagnostic {
	if c.err == nil {
		c.err = &format.Error{Message: d.Message, Pos: d.Pos, Level: d.Level}
	}
	return []diagnostics.Diagnostic{d}
}

func (c *config) parseV5(doc *yaml.Node, h *format.Hash) []diagnostics.Diagnostic {
	var ds []diagnostics.Diagnostic
	typeErr := func(n *yaml.Node, msg string, args ...any) {
		line, col := 0, 0
		if n != nil {
			line, col = n.Line, n.Column
		}
		ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: line, Column: col},
			Message: fmt.Sprintf("The Lookup Configuration at '%s' has wrong type, ", c.file) + fmt.Sprintf(msg, args...)})...)
	}
	for _, k := range h.Keys() {
		ks, ok := k.(string)
		if !ok || !slices.Contains(topKeys, ks) {
			typeErr(keyNode(doc, k), "unrecognized key '%v'", k)
		}
	}
	// Ruby's to_i made the version 5; the config's type wants the Integer.
	if v, _ := h.Get("version"); !isInteger(v) {
		typeErr(valueNode(doc, "version"), "entry 'version' expects an Integer value, got %s", ruby.TypeName(v))
	}

	// Without a defaults key Puppet uses {datadir: data, data_hash: yaml_data};
	// a defaults key replaces both. A defaults key whose value is null (an
	// empty `defaults:`, or one holding only comments) or false is absent:
	// Puppet's `config['defaults'] ||= ...`.
	datadir, defFunc := "data", "yaml_data"
	var defOpts any
	if v, ok := h.Get("defaults"); ok && !rubyFalsy(v) {
		defFunc = ""
		dn := valueNode(doc, "defaults")
		dh, ok := v.(*format.Hash)
		if !ok {
			typeErr(dn, "entry 'defaults' expects a Struct value, got %s", ruby.TypeName(v))
		} else {
			for _, k := range dh.Keys() {
				ks, _ := k.(string)
				if !slices.Contains(defaultsKeys, ks) {
					typeErr(keyNode(dn, k), "entry 'defaults' unrecognized key '%v'", k)
				}
			}
			var hasOpts bool
			if defOpts, hasOpts = dh.Get("options"); hasOpts {
				if msg := optionsTypeError(defOpts); msg != "" {
					typeErr(valueNode(dn, "options"), "entry 'defaults' %s", msg)
				}
			}
			n := 0
			for _, fk := range functionKeys {
				if fv, ok := dh.Get(fk); ok {
					n++
					defFunc, _ = fv.(string)
					if fk != "data_hash" {
						defFunc = fk + ":" + defFunc
					}
				}
			}
			if n > 1 {
				ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: dn.Line, Column: dn.Column},
					Message: "Only one of data_hash, lookup_key, data_dig, or hiera3_backend can be defined in defaults"})...)
			}
			if dd, ok := dh.Get("datadir"); ok {
				if s, ok := dd.(string); ok && s != "" {
					datadir = s
				} else {
					typeErr(dn, "entry 'defaults' entry 'datadir' expects a String[1] value, got %s", ruby.TypeName(dd))
				}
			}
		}
	}

	parseList := func(key string) []levelConf {
		v, ok := h.Get(key)
		if !ok {
			return nil
		}
		ln := valueNode(doc, key)
		list, ok := v.([]any)
		if !ok {
			typeErr(ln, "entry '%s' expects an Array value, got %s", key, ruby.TypeName(v))
			return nil
		}
		var levels []levelConf
		firstLine := map[string]int{}
		for i, e := range list {
			en := ln.Content[i]
			lvl, lds := c.parseLevel(key, i, en, e, datadir, defFunc, defOpts)
			ds = append(ds, lds...)
			if lvl == nil {
				continue
			}
			if first, dup := firstLine[lvl.name]; dup {
				ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: lvl.pos.In(c.file), Level: lvl.name,
					Message: fmt.Sprintf("Hierarchy name '%s' defined more than once. First defined at (line: %d)", lvl.name, first)})...)
				continue
			}
			firstLine[lvl.name] = lvl.pos.Line
			levels = append(levels, *lvl)
		}
		return levels
	}
	// A hierarchy that is null or false is Puppet's default one, as if absent.
	if v, ok := h.Get("hierarchy"); ok && !rubyFalsy(v) {
		c.hierarchy = parseList("hierarchy")
	} else {
		c.hierarchy = defaultLevels()
		c.hierarchy[0].datadir = datadir
		if defFunc != "" {
			c.hierarchy[0].function = defFunc
		}
	}
	if _, ok := h.Get("plan_hierarchy"); ok {
		// Only plans search it, but Puppet checks its type all the same:
		// its type errors fail the layer (hieracc's own refusals, of
		// functions it cannot run say, do not: no lookup reads it).
		saved, from := c.err, len(ds)
		c.err = nil
		parseList("plan_hierarchy")
		kept := slices.DeleteFunc(slices.Clone(ds[from:]), func(d diagnostics.Diagnostic) bool {
			return !strings.HasPrefix(d.Message, "The Lookup Configuration at ")
		})
		ds, c.err = ds[:from], saved
		for _, d := range kept {
			ds = append(ds, c.fail(d)...)
		}
	}
	if _, ok := h.Get("default_hierarchy"); ok {
		c.hasDefault = true
		if c.layer != format.LayerModule {
			line, col := keyPos(doc, "default_hierarchy")
			ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: line, Column: col},
				Message: "'default_hierarchy' is only allowed in the module layer"})...)
		}
		c.defaultHierarchy = parseList("default_hierarchy")
	}
	return ds
}

// parseLevel validates one hierarchy entry the way Puppet's config type and
// validate_hierarchy do.
func (c *config) parseLevel(list string, i int, n *yaml.Node, v any, datadir, defFunc string, defOpts any) (*levelConf, []diagnostics.Diagnostic) {
	var ds []diagnostics.Diagnostic
	fail := func(msg string, args ...any) {
		ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: n.Line, Column: n.Column}, Message: fmt.Sprintf(msg, args...)})...)
	}
	prefix := fmt.Sprintf("The Lookup Configuration at '%s' has wrong type, entry '%s' index %d ", c.file, list, i)
	h, ok := v.(*format.Hash)
	if !ok {
		fail("%sexpects a Struct value, got %s", prefix, ruby.TypeName(v))
		return nil, ds
	}
	lvl := &levelConf{pos: dataload.Pos{Line: n.Line, Column: n.Column}, datadir: datadir}
	for _, k := range h.Keys() {
		ks, _ := k.(string)
		if !slices.Contains(levelKeys, ks) {
			kn := keyNode(n, k)
			ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: kn.Line, Column: kn.Column}, Message: fmt.Sprintf("%sunrecognized key '%v'", prefix, k)})...)
		}
	}
	name, ok := h.Get("name")
	switch s, isStr := name.(string); {
	case !ok:
		fail("%sexpects a value for key 'name'", prefix)
	case !isStr || s == "":
		fail("%sentry 'name' expects a String[1] value, got %s", prefix, ruby.TypeName(name))
	default:
		lvl.name = s
	}
	if len(ds) > 0 {
		return nil, ds
	}
	str := func(key string) (string, bool) {
		x, ok := h.Get(key)
		if !ok {
			return "", false
		}
		s, isStr := x.(string)
		if !isStr || s == "" {
			fail("%sentry '%s' expects a String[1] value, got %s", prefix, key, ruby.TypeName(x))
			return "", false
		}
		return s, true
	}
	strs := func(key string, min, max int) ([]string, bool) {
		x, ok := h.Get(key)
		if !ok {
			return nil, false
		}
		arr, isArr := x.([]any)
		if !isArr || len(arr) < min || (max > 0 && len(arr) > max) {
			fail("%sentry '%s' expects an Array value of size %d..., got %s", prefix, key, min, ruby.TypeName(x))
			return nil, false
		}
		out := make([]string, len(arr))
		for k, e := range arr {
			s, isStr := e.(string)
			if !isStr || s == "" {
				fail("%sentry '%s' index %d expects a String[1] value, got %s", prefix, key, k, ruby.TypeName(e))
				return nil, false
			}
			out[k] = s
		}
		return out, true
	}

	if o, ok := h.Get("options"); ok {
		if msg := optionsTypeError(o); msg != "" {
			kn := valueNode(n, "options")
			ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: kn.Line, Column: kn.Column}, Message: prefix + msg})...)
			return nil, ds
		}
	}

	nfunc := 0
	for _, fk := range allFunctionKeys {
		if h.Has(fk) {
			nfunc++
		}
	}
	switch {
	case nfunc == 0 && defFunc == "":
		fail("One of data_hash, lookup_key, data_dig, or hiera3_backend must be defined in hierarchy '%s'", lvl.name)
	case nfunc > 1:
		fail("Only one of data_hash, lookup_key, data_dig, or hiera3_backend can be defined in hierarchy '%s'", lvl.name)
	}
	nloc := 0
	for _, lk := range locationKeys {
		if h.Has(lk) {
			nloc++
		}
	}
	if nloc > 1 {
		fail("Only one of path, paths, glob, globs, uri, uris, or mapped_paths can be defined in hierarchy '%s'", lvl.name)
	}
	if len(ds) > 0 {
		return nil, ds
	}

	lvl.function = defFunc
	for _, fk := range allFunctionKeys {
		if s, ok := str(fk); ok {
			lvl.function = s
			if fk != "data_hash" {
				lvl.function = fk + ":" + s
			}
		}
	}
	if msg := c.checkFunction(lvl); msg != "" {
		ds = append(ds, c.fail(diagnostics.Diagnostic{Pos: format.Pos{File: c.file, Line: n.Line, Column: n.Column}, Message: msg})...)
	}
	if s, ok := str("datadir"); ok {
		lvl.datadir = s
	}
	levelLocations(lvl, str, strs)
	if lvl.kind == locURIs && !lvl.foreign {
		fail("hieracc cannot resolve uri/uris locations in hierarchy '%s': they only make sense to lookup_key functions", lvl.name)
	}
	levelOptions(lvl, h, defOpts, fail)
	if len(ds) > 0 {
		return nil, ds
	}
	return lvl, nil
}

// levelLocations reads the location entry of a level (at most one is
// there, parseLevel checked): str and strs read a string and an array of
// strings, failing for a value of another type.
func levelLocations(lvl *levelConf, str func(string) (string, bool), strs func(string, int, int) ([]string, bool)) {
	if s, ok := str("path"); ok {
		lvl.kind, lvl.locs = locPath, []string{s}
	}
	if s, ok := strs("paths", 1, 0); ok {
		lvl.kind, lvl.locs = locPaths, s
	}
	if s, ok := str("glob"); ok {
		lvl.kind, lvl.locs = locGlob, []string{s}
	}
	if s, ok := strs("globs", 1, 0); ok {
		lvl.kind, lvl.locs = locGlobs, s
	}
	if s, ok := strs("mapped_paths", 3, 3); ok {
		lvl.kind = locMappedPaths
		copy(lvl.mapped[:], s)
	}
	if s, ok := str("uri"); ok {
		lvl.kind, lvl.locs = locURIs, []string{s}
	}
	if s, ok := strs("uris", 1, 0); ok {
		lvl.kind, lvl.locs = locURIs, s
	}
}

// levelOptions reads the options of a level h (its own, else the
// defaults'): eyaml's keys, a Ruby function's options, options its
// function refuses, and the option names Puppet reserves.
func levelOptions(lvl *levelConf, h *format.Hash, defOpts any, fail func(string, ...any)) {
	opts, own := h.Get("options")
	if !own {
		opts = defOpts // Puppet: the level's options, else the defaults'
	}
	if lvl.function == eyamlFunction {
		lvl.keys = eyamlKeysOf(opts)
	}
	oh, _ := opts.(*format.Hash)
	if lvl.foreign {
		lvl.options = oh
	}
	if oh != nil && oh.Len() > 0 && (lvl.function == "yaml_data" || lvl.function == "json_data") {
		// These functions take no options but the path Puppet adds: given
		// any, every call fails (data_hash functions are called for the
		// locations that exist).
		lvl.optionsErr = fmt.Sprintf("'%s' one of 'path', 'paths' 'glob', 'globs' or 'mapped_paths' must be declared in hiera.yaml when using this data_hash function", lvl.function)
	}
	if own && oh != nil {
		for _, reserved := range []string{"path", "uri"} {
			if oh.Has(reserved) {
				fail("Option key '%s' used in hierarchy '%s' is reserved by Puppet", reserved, lvl.name)
			}
		}
	}
}

// optionNamePattern is the pattern option names must match
// (HieraConfigV5.config_type), as Puppet prints it.
const optionNamePattern = `\A[A-Za-z](:?[0-9A-Za-z_-]*[0-9A-Za-z])?\z`

var optionNameRE = regexp.MustCompile(optionNamePattern)

// optionsTypeError is what Puppet's config type finds wrong with an
// options value (after "entry 'hierarchy' index N " or "entry 'defaults' "),
// or "".
func optionsTypeError(v any) string {
	h, ok := v.(*format.Hash)
	if !ok {
		return fmt.Sprintf("entry 'options' expects a Hash value, got %s", ruby.TypeName(v))
	}
	for _, k := range h.Keys() {
		if s, ok := k.(string); !ok || !optionNameRE.MatchString(s) {
			return fmt.Sprintf("entry 'options' key of entry '%v' expects a match for Pattern[/%s/], got %s", k, optionNamePattern, rubyDescribe(k))
		}
	}
	return ""
}

// isInteger reports whether v is an Integer.
func isInteger(v any) bool {
	_, ok := v.(int64)
	return ok
}

// rubyFalsy reports whether v is nil or false, which Ruby's ||= replaces.
func rubyFalsy(v any) bool {
	return v == nil || v == false
}

func describeFunction(f string) string {
	if f == "" {
		return "no data provider function"
	}
	if kind, name, ok := strings.Cut(f, ":"); ok {
		return fmt.Sprintf("%s function '%s'", kind, name)
	}
	return fmt.Sprintf("data_hash function '%s'", f)
}

// loadProblem is a dataload error (reading file) as a diagnostic.
func loadProblem(err error, file string) diagnostics.Diagnostic {
	var d *diagnostics.Diagnostic
	if errors.As(err, &d) {
		return *d
	}
	return diagnostics.Diagnostic{Pos: format.Pos{File: file}, Message: err.Error()}
}

// keyPos returns the position of key in mapping m.
func keyPos(m *yaml.Node, key string) (int, int) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line, m.Content[i].Column
		}
	}
	return m.Line, m.Column
}

// valueNode returns the value node of key in mapping m (m itself if absent).
func valueNode(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			n := m.Content[i+1]
			for n.Kind == yaml.AliasNode && n.Alias != nil {
				n = n.Alias
			}
			return n
		}
	}
	return m
}

// atoiRuby is Ruby's String#to_i: leading digits, else 0.
func atoiRuby(s string) int {
	s = strings.TrimSpace(s)
	n, neg := 0, false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	if neg {
		return -n
	}
	return n
}
