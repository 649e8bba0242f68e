package compiler

// Check (hieracc check) lints a control repo without compiling a node:
// every data file a hierarchy level can name is read, whether or not a
// node reaches it, with the reader and the messages of a compile.

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// Check reads every layer's hiera.yaml and every data file its levels
// can name, for any node: a level's path template with each
// interpolation turned into a wildcard ("roles/%{facts.role}.yaml" names
// every file matching "roles/*.yaml"). It reports, besides what a compile
// reports of those files (which only a node reaching them would show):
//   - a data file under a level's datadir that no level can name;
//   - a lookup_options entry that matches no key of any data file (when
//     no level's function is Ruby code, whose keys a check cannot know);
//   - a value that cannot be read (a Ruby symbol, an eyaml value the keys
//     do not decrypt: never its text), as an error at its key; when the
//     keys an eyaml level's options name cannot be used (not on this
//     machine) and Input gives none, a warning per file instead;
//   - a tab in the indentation of a YAML data file;
//   - with in.Nodes, a fact a level interpolates that none of them has.
//
// Result.Bundles is nil. Check fails only when ctx is cancelled.
func Check(ctx context.Context, in Input) (*Result, error) {
	c := prepare(in)
	c.ctx = ctx
	k := &checker{c: c, named: map[string]bool{}, nodes: in.Nodes,
		keysGiven: in.PKCS7PrivateKey != nil || in.PKCS7PublicKey != nil}
	ds := slices.Clone(c.diags)
	configs := []*config{c.global, c.env}
	for _, name := range c.moduleNames {
		configs = append(configs, c.modules[name])
	}
	for _, conf := range configs {
		if conf == nil || !conf.present || conf.err != nil {
			continue
		}
		for i := range conf.hierarchy {
			k.level(conf, &conf.hierarchy[i])
		}
		for i := range conf.defaultHierarchy {
			k.level(conf, &conf.defaultHierarchy[i])
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	ds = append(ds, k.diags...)
	ds = append(ds, k.unnamed()...)
	ds = append(ds, k.files()...)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Result{Diagnostics: diagnostics.Sort(ds)}, nil
}

// checker is one Check's state.
type checker struct {
	c     *compilation
	nodes []Node
	// keysGiven: Input gives the eyaml keys; else a value that the keys
	// the options name, when they cannot be used here, do not decrypt is
	// left unchecked, with a warning (a developer's machine holds no
	// private key).
	keysGiven bool
	ruby      bool // some level's function is Ruby code
	// named holds every data file a level can name (FS paths); loaded,
	// each once, in the order first named.
	named  map[string]bool
	loaded []*dataFile
	// datadirs are the folders the levels read in (FS paths, globbed).
	datadirs []string
	walks    map[string]walked // folder → what is below it
	diags    []diagnostics.Diagnostic
}

// interpolation is Hiera's %{...}.
var interpolation = regexp.MustCompile(`%\{[^}]*\}`)

// literalCall is %{literal('x')}, which inserts x.
var literalCall = regexp.MustCompile(`^\s*literal\(\s*(?:'([^']*)'|"([^"]*)")\s*\)\s*$`)

// wildcard turns a path template into the glob of every path it can name:
// each interpolation becomes "*" (literal() its text), the rest stays as
// written, escaped unless the template is a glob itself. wild reports
// whether an interpolation made a wildcard.
func wildcard(tmpl string, glob bool) (pattern string, wild bool) {
	var b strings.Builder
	last := 0
	lit := func(s string) {
		if !glob {
			s = escapeGlob(s)
		}
		b.WriteString(s)
	}
	for _, m := range interpolation.FindAllStringIndex(tmpl, -1) {
		lit(tmpl[last:m[0]])
		expr := tmpl[m[0]+2 : m[1]-1]
		switch sm := literalCall.FindStringSubmatch(expr); {
		case strings.TrimSpace(expr) == "":
		case sm != nil:
			lit(sm[1] + sm[2])
		case glob && (m[0] == 0 || tmpl[m[0]-1] == '/') && m[1] < len(tmpl) && tmpl[m[1]] == '/':
			b.WriteString("{*/,}") // a whole segment, which may be empty
			wild = true
			last = m[1] + 1
			continue
		default:
			b.WriteByte('*')
			wild = true
		}
		last = m[1]
	}
	lit(tmpl[last:])
	return b.String(), wild
}

// level names, and loads, the data files lvl can name, and checks the
// facts its interpolations read.
func (k *checker) level(conf *config, lvl *levelConf) {
	k.facts(conf, lvl)
	k.ruby = k.ruby || lvl.foreign
	var tmpls []string
	switch lvl.kind {
	case locPath, locPaths, locGlob, locGlobs:
		tmpls = lvl.locs
	case locMappedPaths:
		tmpls = []string{lvl.mapped[2]}
	default:
		return
	}
	c := k.c
	glob := lvl.kind == locGlob || lvl.kind == locGlobs
	tmpl, dir := lvl.datadir, conf.root
	switch {
	case lvl.envDatadir:
		tmpl, dir = path.Join(c.envDir, "hieradata"), ""
	case lvl.noRoot, path.IsAbs(lvl.datadir):
		dir = ""
	}
	if lvl.literalDatadir && strings.Contains(tmpl, "%{") {
		return // a version 4 datadir is not interpolated: left alone, as rare as it is
	}
	datadir := path.Join(dir, tmpl)
	if lit := literalPrefix(datadir); lit != "" {
		if p, ok := k.fsPath(lit); ok {
			k.datadirs = append(k.datadirs, p)
		}
	}
	for _, t := range tmpls {
		if lvl.ext != "" && !strings.HasSuffix(t, lvl.ext) {
			t += lvl.ext
		}
		full := path.Join(datadir, t)
		if path.IsAbs(t) {
			full = t
		}
		if path.IsAbs(full) {
			static, _, _ := strings.Cut(full, "%{")
			if _, ok := k.fsPath(literalPrefix(full)); !ok {
				k.diags = append(k.diags, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: lvl.pos.In(conf.file), Level: lvl.name,
					Message: fmt.Sprintf("%s is on the Puppet server's disk, outside the folders given to hieracc: read as absent (compile --mount %s=LOCAL_DIR supplies it)", full, path.Dir(static+"x"))})
				continue
			}
		}
		var files []string
		if glob {
			files = k.globbed(full)
		} else {
			files = k.matching(full)
		}
		for _, m := range files {
			if k.named[m] {
				continue
			}
			k.named[m] = true
			if lvl.foreign {
				continue // Ruby code reads it, which a check does not run
			}
			if lvl.optionsErr != "" {
				// Every lookup that reaches a file that exists fails,
				// reported once, where the level is written.
				k.loaded = append(k.loaded, c.optionsFile(conf, lvl))
				continue
			}
			if df := k.file(conf, lvl, m); df != nil {
				k.loaded = append(k.loaded, df)
			}
		}
	}
}

// file loads the data file at FS path p for lvl, as a compile does: one
// that cannot be read because a link leads out of the FS to the Puppet
// server's disk is read from the mount that supplies it, else absent with
// a warning (outside.go).
func (k *checker) file(conf *config, lvl *levelConf, p string) *dataFile {
	c := k.c
	load := func(p string) *dataFile {
		return c.file(location{path: p}, dataFunction(lvl), conf.layer, conf.module, keyringKey{conf.root, lvl.keys})
	}
	df := load(p)
	if df == nil || df.err == nil {
		return df
	}
	lo, ok := c.linkOutOf(p)
	if !ok {
		return df
	}
	if mp, ok := c.mapServer(path.Clean(lo.server)); ok {
		if k.named[mp] {
			return nil
		}
		k.named[mp] = true
		return load(mp)
	}
	dir := lo.target
	if lo.file {
		dir = path.Dir(dir)
	}
	k.diags = append(k.diags, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: lvl.pos.In(conf.file), Level: lvl.name,
		Message: fmt.Sprintf("%s is a symbolic link to %s, on the Puppet server's disk, outside the folders given to hieracc: read as absent (compile --mount %s=LOCAL_DIR supplies it)", lo.link, lo.target, path.Clean(dir))})
	return nil
}

// fsPath is where the input FS holds the slash path p: itself, or for an
// absolute path (on the Puppet server's disk) in the folder a mount
// supplies.
func (k *checker) fsPath(p string) (string, bool) {
	if path.IsAbs(p) {
		return k.c.mapServer(path.Clean(p))
	}
	return p, fs.ValidPath(p)
}

// literalPrefix is the folder of tmpl before its first interpolation:
// tmpl itself when it has none.
func literalPrefix(tmpl string) string {
	i := strings.Index(tmpl, "%{")
	if i < 0 {
		return path.Clean(tmpl)
	}
	j := strings.LastIndexByte(tmpl[:i], '/')
	switch {
	case j < 0:
		return "."
	case j == 0:
		return "/"
	}
	return path.Clean(tmpl[:j])
}

// matching is the files the path template tmpl (datadir included) can
// name: tmpl itself when it interpolates nothing (a folder too: reading it
// fails, as in a compile), else every file below its literal folder that
// the template matches, each interpolation standing for any text (empty
// included: "a/%{x}/b" names "a/b", as Puppet's "a//b" reads).
func (k *checker) matching(tmpl string) []string {
	if !hasWildInterpolation(tmpl) {
		p, ok := k.fsPath(path.Clean(expandLiterals(tmpl)))
		if !ok || !k.c.exists(p) {
			return nil
		}
		return []string{p}
	}
	re := templateRegexp(tmpl)
	if re == nil {
		return nil
	}
	lit := literalPrefix(tmpl)
	base, ok := k.fsPath(lit)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range k.walk(base, true) {
		server := f
		if path.IsAbs(lit) {
			server = path.Join(lit, strings.TrimPrefix(strings.TrimPrefix(f, base), "/"))
		}
		if re.MatchString(server) {
			out = append(out, f)
		}
	}
	return out
}

// hasWildInterpolation reports whether tmpl has an interpolation other
// than %{literal(...)} and %{}.
func hasWildInterpolation(tmpl string) bool {
	_, wild := wildcard(tmpl, false)
	return wild
}

// expandLiterals replaces %{literal('x')} and %{} in tmpl by their text.
func expandLiterals(tmpl string) string {
	return interpolation.ReplaceAllStringFunc(tmpl, func(m string) string {
		if sm := literalCall.FindStringSubmatch(m[2 : len(m)-1]); sm != nil {
			return sm[1] + sm[2]
		}
		return ""
	})
}

// templateRegexp matches the cleaned paths the template can name; nil
// when the template is not UTF-8.
func templateRegexp(tmpl string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	ms := interpolation.FindAllStringIndex(tmpl, -1)
	for _, m := range ms {
		if m[0] < last {
			continue
		}
		b.WriteString(regexp.QuoteMeta(tmpl[last:m[0]]))
		expr := tmpl[m[0]+2 : m[1]-1]
		last = m[1]
		if sm := literalCall.FindStringSubmatch(expr); sm != nil || strings.TrimSpace(expr) == "" {
			if sm != nil {
				b.WriteString(regexp.QuoteMeta(sm[1] + sm[2]))
			}
			continue
		}
		if (m[0] == 0 || tmpl[m[0]-1] == '/') && m[1] < len(tmpl) && tmpl[m[1]] == '/' {
			b.WriteString("(?:.*/)?") // a whole segment, which may be empty
			last++
			continue
		}
		b.WriteString(".*")
	}
	b.WriteString(regexp.QuoteMeta(tmpl[last:]))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil // not UTF-8: names no file of the FS
	}
	return re
}

// globbed is the files a glob level's pattern can name, each
// interpolation a wildcard.
func (k *checker) globbed(tmpl string) []string {
	pattern, _ := wildcard(tmpl, true)
	p, ok := k.fsPath(path.Clean(pattern))
	if !ok {
		return nil
	}
	matched, err := rubyGlob(k.c.fsys, p)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range matched {
		if st, err := fs.Stat(k.c.fsys, m); err == nil && !st.IsDir() {
			out = append(out, m)
		}
	}
	return out
}

// walk is every file below dir (none when it is no folder), sorted;
// with folders, also the folders named like data files (x.yaml/), which a
// level can name too: reading them fails. Computed once per folder.
func (k *checker) walk(dir string, folders bool) []string {
	w, ok := k.walks[dir]
	if !ok {
		fs.WalkDir(k.c.fsys, dir, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
			case !d.IsDir():
				w.files = append(w.files, p)
			case p != dir && slices.Contains(dataExts, path.Ext(p)):
				w.folders = append(w.folders, p)
			}
			return nil
		})
		if k.walks == nil {
			k.walks = map[string]walked{}
		}
		k.walks[dir] = w
	}
	if folders {
		return slices.Concat(w.files, w.folders)
	}
	return w.files
}

// walked is what walk found below a folder.
type walked struct{ files, folders []string }

// dataExts are the file names a data folder's data files end with.
var dataExts = []string{".yaml", ".yml", ".json", ".eyaml"}

// unnamed warns of the data files under a level's datadir that no level
// can name: no lookup ever reads them. A datadir that is a layer's own
// folder (one holding hiera.yaml) is not searched: it holds more than data.
func (k *checker) unnamed() []diagnostics.Diagnostic {
	var ds []diagnostics.Diagnostic
	dirs := slices.Clone(k.datadirs)
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	seen := map[string]bool{}
	for _, dir := range dirs {
		if k.c.exists(path.Join(dir, "hiera.yaml")) {
			continue
		}
		for _, p := range k.walk(dir, false) {
			if seen[p] || k.named[p] || !slices.Contains(dataExts, path.Ext(p)) {
				continue
			}
			seen[p] = true
			ds = append(ds, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: format.Pos{File: p},
				Message: "no hierarchy level names this data file, whatever a node's facts: no lookup reads it"})
		}
	}
	return ds
}

// files reports what the data files loaded hold: their diagnostics (a
// compile's), the values that cannot be read, tabs in indentation and
// lookup_options entries that match no key.
func (k *checker) files() []diagnostics.Diagnostic {
	var ds []diagnostics.Diagnostic
	keys := map[string]bool{}
	for _, df := range k.loaded {
		ds = append(ds, df.diags...)
		if df.err != nil && !slices.ContainsFunc(df.diags, func(d diagnostics.Diagnostic) bool { return d.Message == df.err.Message }) {
			// A file that cannot even be examined (a link that loops, a
			// folder it may not enter) fails each lookup that reaches it
			// in a compile, with no diagnostic of its own: the check says it.
			ds = append(ds, diagnostics.Diagnostic{Pos: df.err.Pos, Message: df.err.Message})
		}
		for _, key := range df.keys {
			keys[key] = true
		}
		var keyErr error // the eyaml keys the options name, unusable here
		if df.key.function == eyamlFunction && k.c.keys != nil && !k.keysGiven {
			keyErr = k.c.keys.decrypters[df.key.keys].KeyErr()
		}
		unchecked := false
		for i, msg := range df.invalid {
			if msg == "" {
				continue
			}
			if keyErr != nil && strings.HasSuffix(msg, "Error was "+keyErr.Error()) {
				unchecked = true
				continue
			}
			key, _ := df.hash.Key(i).(string)
			var pos format.Pos
			if i < len(df.pos) {
				pos = df.pos[i].In(df.path)
			}
			ds = append(ds, diagnostics.Diagnostic{Pos: pos, Key: key, Message: msg})
		}
		if unchecked {
			ds = append(ds, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: format.Pos{File: df.path},
				Message: fmt.Sprintf("eyaml values not checked: the keys its level's options name cannot be used here (%v); --pkcs7-private-key and --pkcs7-public-key give them", keyErr)})
		}
		if df.err == nil && !strings.HasSuffix(df.key.function, "json_data") {
			ds = append(ds, k.tabs(df)...)
		}
	}
	for _, df := range k.loaded {
		if k.ruby {
			break // Ruby code gives keys a check cannot know
		}
		i, ok := df.index[lookupOptionsKey]
		if !ok {
			continue
		}
		opts, _ := df.hash.Value(i).(*format.Hash)
		if opts == nil {
			continue
		}
		for _, e := range opts.Keys() {
			entry, ok := e.(string)
			if !ok || matchesAny(entry, keys) {
				continue
			}
			pos := format.Pos{File: df.path}
			if i < len(df.pos) {
				pos = df.pos[i].In(df.path)
			}
			if line, col, ok := k.c.entryPos(df.fsPath, entry, false); ok {
				pos.Line, pos.Column = line, col
			}
			ds = append(ds, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: pos, Key: entry,
				Message: fmt.Sprintf("lookup_options entry %q matches no key of any data file", entry)})
		}
	}
	return ds
}

// matchesAny reports whether the lookup_options entry (a key, or a
// regexp when it starts with "^") matches one of keys. An entry that is
// not a valid regexp matches: a compile reports it.
func matchesAny(entry string, keys map[string]bool) bool {
	if !strings.HasPrefix(entry, "^") {
		return keys[entry]
	}
	re, err := format.OptionsPattern(entry)
	if err != nil {
		return true
	}
	for key := range keys {
		if re.MatchString(key) {
			return true
		}
	}
	return false
}

// tabs warns of the lines of a YAML data file indented with a tab that
// libyaml read without a word (YAML indents with spaces): the tab is then
// part of a value, or folded into one, rarely what was meant. The
// content of a block scalar (| or >) is text, and not warned of.
func (k *checker) tabs(df *dataFile) []diagnostics.Diagnostic {
	src, err := fs.ReadFile(k.c.fsys, df.fsPath)
	if err != nil || !strings.Contains(string(src), "\t") {
		return nil
	}
	var ds []diagnostics.Diagnostic
	block := -1 // indentation of the line that opened a block scalar; -1: none
	for n, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSuffix(line, "\r")
		body := strings.TrimLeft(line, " \t")
		indent := line[:len(line)-len(body)]
		if body == "" {
			continue
		}
		if block >= 0 {
			if len(indent) > block {
				continue // a block scalar's text
			}
			block = -1
		}
		if body[0] != '#' {
			if i := strings.IndexByte(indent, '\t'); i >= 0 {
				ds = append(ds, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: format.Pos{File: df.path, Line: n + 1, Column: i + 1},
					Message: "tab in indentation: YAML indents with spaces, and Puppet reads this line's tab as part of a value, without a word"})
			}
		}
		if blockScalarStart.MatchString(body) {
			block = strings.IndexFunc(line, func(r rune) bool { return r != ' ' && r != '\t' })
		}
	}
	return ds
}

// blockScalarStart is a line whose value is a block scalar: "key: |",
// "- >-", "key: |2 # comment".
var blockScalarStart = regexp.MustCompile(`(^|[:-])\s*[|>][-+0-9]*\s*(#.*)?$`)

// topScopeVariables are the variables of a node's top scope that are not
// facts (scope.go).
var topScopeVariables = []string{"facts", "trusted", "server_facts", "environment", "settings", "module_name",
	"calling_module", "calling_class", "calling_class_path"}

// facts warns, when nodes are given, of each fact lvl interpolates that
// none of them has: the level names no data file for any of them (or a
// path with an empty part).
func (k *checker) facts(conf *config, lvl *levelConf) {
	if len(k.nodes) == 0 {
		return
	}
	texts := slices.Concat([]string{lvl.datadir}, lvl.locs)
	if lvl.literalDatadir {
		texts = texts[1:]
	}
	seen := map[string]bool{}
	if lvl.kind == locMappedPaths {
		// mapped_paths: [fact, variable, path]: the path interpolates the
		// variable, which stands for each of the fact's values.
		texts = append(texts, lvl.mapped[2])
		seen[lvl.mapped[1]] = true
		if v := strings.TrimPrefix(lvl.mapped[0], "::"); !slices.ContainsFunc(k.nodes, func(n Node) bool { return hasFact(n.Facts, strings.TrimPrefix(v, "facts.")) }) {
			k.diags = append(k.diags, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: lvl.pos.In(conf.file), Level: lvl.name,
				Message: fmt.Sprintf("maps %s, a fact none of the %d nodes given has", lvl.mapped[0], len(k.nodes))})
		}
	}
	for _, t := range texts {
		for _, m := range interpolation.FindAllString(t, -1) {
			expr := strings.TrimSpace(m[2 : len(m)-1])
			var fact string
			switch {
			case strings.HasPrefix(expr, "facts."):
				fact = expr[len("facts."):]
			case strings.ContainsAny(expr, "('\"") || expr == "":
				continue // a function: literal(), scope(), lookup(), ...
			default:
				fact = strings.TrimPrefix(expr, "::")
				if root, _, _ := strings.Cut(fact, "."); slices.Contains(topScopeVariables, root) {
					continue
				}
			}
			if root, _, _ := strings.Cut(fact, "."); fact == "" || seen[fact] || seen[root] && !strings.HasPrefix(expr, "facts.") {
				continue
			}
			seen[fact] = true
			if !slices.ContainsFunc(k.nodes, func(n Node) bool { return hasFact(n.Facts, fact) }) {
				k.diags = append(k.diags, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: lvl.pos.In(conf.file), Level: lvl.name,
					Message: fmt.Sprintf("interpolates %s, a fact none of the %d nodes given has", m, len(k.nodes))})
			}
		}
	}
}

// hasFact reports whether facts hold the dotted path p.
func hasFact(facts *format.Hash, p string) bool {
	var v any = facts
	for seg := range strings.SplitSeq(p, ".") {
		h, ok := v.(*format.Hash)
		if !ok {
			if a, isArray := v.([]any); isArray {
				var i int
				if _, err := fmt.Sscanf(seg, "%d", &i); err == nil && i >= 0 && i < len(a) {
					v = a[i]
					continue
				}
			}
			return false
		}
		if v, ok = h.Get(seg); !ok {
			return false
		}
	}
	return v != nil
}
