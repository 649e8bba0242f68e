package compiler

// Data files are parsed once per compile and shared by every node whose
// hierarchy reaches them; a node's own files are released once it is
// compiled (see release).

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
	"gopkg.in/yaml.v3"
)

// dataFile is one loaded data file. It is immutable once loaded.
type dataFile struct {
	id     uint32   // unique within the process, for sharing signatures
	keys   []string // sorted string top-level keys, lookup_options excluded
	path   string   // as Puppet names it in messages (see shownPath)
	fsPath string   // where it is read
	sum    [32]byte // SHA-256 of the file, for revisions
	hash   *format.Hash
	pos    []dataload.Pos
	index  map[string]int // string top-level keys → entry
	interp []bool         // entry needs interpolation
	plans  []*interpPlan  // where in entry i interpolation acts (nil: nowhere)
	bound  []bool         // interpolating entry i may read what is the node's alone (see interpPlan.readsNode)
	// invalid[i] is Puppet's validate_data_value failure for entry i, or
	// eyaml's failure to decrypt it: reading that key fails, other keys
	// are fine.
	invalid []string
	// secret[i]: entry i holds text decrypted from ENC[...] (nil: none).
	secret []bool
	// pending[i], for an invalid entry of an eyaml file: the texts
	// interpolated, in order, before invalid[i] is met (nil: none).
	pending []*pendingTexts
	// err: the file cannot be loaded; every read of it fails.
	err   *format.Error
	diags []diagnostics.Diagnostic
	key   fileKey // its entry in the compilation's file cache
}

type fileKey struct {
	path, function, module string
	keys                   keyringKey // an eyaml level's keys
}

type fileEntry struct {
	once sync.Once
	df   *dataFile
}

// fileCache loads each (file, function, module) once, concurrently safe.
// A node's own files are released once it is compiled (see release).
type fileCache struct {
	mu      sync.Mutex
	entries map[fileKey]*fileEntry
	// released holds the diagnostics of the files released.
	released []diagnostics.Diagnostic
}

// entry returns k's entry, made empty when there is none: whoever first
// runs its once loads it.
func (fc *fileCache) entry(k fileKey) *fileEntry {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	e := fc.entries[k]
	if e == nil {
		e = &fileEntry{}
		fc.entries[k] = e
	}
	return e
}

// file returns the loaded data file at l, or nil when it does not exist.
// A file shown under another name (l.shown) is loaded apart, so that its
// messages name it as Puppet does whichever node reads it first. An eyaml
// level's file is loaded apart for each set of keys.
func (c *compilation) file(l location, function string, layer format.Layer, module string, keys keyringKey) *dataFile {
	if layer != format.LayerModule {
		module = ""
	}
	if function != eyamlFunction {
		keys = keyringKey{}
	}
	shown := l.path
	if l.shown != "" {
		shown = l.shown
	}
	k := fileKey{shown, function, module, keys}
	e := c.files.entry(k)
	e.once.Do(func() {
		e.df = c.loadFile(l.path, shown, function, module, keys)
		if e.df != nil {
			e.df.key = k
		}
	})
	return e.df
}

// release forgets a data file its node has read for the last time: a file
// at a per-node position of the hierarchy (nodes/%{trusted.certname}.yaml,
// say), once its node is compiled, so that a fleet's compile does not hold
// every node's own data until it ends. Should another node reach the file
// after all, it is loaded again (the same content, under another id: only
// sharing sees the difference); its diagnostics are kept, and reported
// once (diagnostics.Sort drops the copies). It reports whether it released it.
func (c *compilation) release(df *dataFile) bool {
	c.files.mu.Lock()
	defer c.files.mu.Unlock()
	if e := c.files.entries[df.key]; e == nil || e.df != df {
		return false // released already, and loaded again since or not
	}
	delete(c.files.entries, df.key)
	c.files.released = append(c.files.released, df.diags...)
	return true
}

// exists reports whether p names a file or a folder, as Ruby's
// Pathname#exist? does: Puppet keeps a location that is a folder, and
// reading it fails (see loadFile). A file that cannot be examined
// (permissions, I/O) counts as existing, so that reading it reports why.
func (c *compilation) exists(p string) bool {
	_, err := fs.Stat(c.fsys, p)
	return err == nil || !isNotExist(err)
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist)
}

// loadFile loads the data file at FS path fsPath, named p in messages.
func (c *compilation) loadFile(fsPath, p, function, module string, keys keyringKey) *dataFile {
	st, err := fs.Stat(c.fsys, fsPath)
	if err != nil {
		if isNotExist(err) {
			return nil
		}
		return &dataFile{path: p, fsPath: fsPath, id: c.fileIDs.Add(1), err: &format.Error{Message: fmt.Sprintf("cannot read %s: %v", p, err), Pos: format.Pos{File: p}}}
	}
	df := &dataFile{path: p, fsPath: fsPath, id: c.fileIDs.Add(1)}
	if st.IsDir() {
		// A location that is a folder exists for Puppet, which fails
		// reading it (Ruby's EISDIR), at every lookup that reaches it.
		df.fail(dataload.Pos{}, "Is a directory @ io_fread - "+p)
		return df
	}
	if st.Size() > dataload.MaxFileSize {
		df.fail(dataload.Pos{}, fmt.Sprintf("Unable to parse (%s): file is %d bytes, more than the %d bytes hieracc reads", p, st.Size(), dataload.MaxFileSize))
		return df
	}
	src, err := fs.ReadFile(c.fsys, fsPath)
	if err != nil {
		df.fail(dataload.Pos{}, fmt.Sprintf("cannot read %s: %v", p, err))
		return df
	}
	df.sum = sha256.Sum256(src)
	function, v3 := strings.CutPrefix(function, v3DataHash)
	var doc *dataload.Doc
	var probs []diagnostics.Diagnostic
	if function == "json_data" {
		doc, probs = dataload.JSON(p, src)
	} else {
		doc, probs = dataload.YAML(p, src)
	}
	for _, pr := range probs {
		if pr.Severity == diagnostics.Warning {
			df.diags = append(df.diags, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: pr.Pos, Message: pr.Message})
		} else {
			df.fail(dataload.Pos{Line: pr.Line, Column: pr.Column}, pr.Message)
		}
	}
	if df.err != nil || doc == nil {
		if df.err == nil {
			df.fail(dataload.Pos{}, fmt.Sprintf("Unable to parse (%s)", p))
		}
		return df
	}
	df.hash, df.pos = doc.Hash, doc.KeyPos
	invalid := relabelInvalid(doc.Invalid, function, v3)
	var secret map[any]bool
	var pending map[any]*pendingTexts
	if function == eyamlFunction {
		invalid, secret, pending = decryptFile(df, c.keys, keys, invalid, doc.InvalidTexts)
	}
	if module != "" {
		df.filterModule(module, function)
	}
	n := df.hash.Len()
	df.index = make(map[string]int, n)
	df.interp = make([]bool, n)
	df.plans = make([]*interpPlan, n)
	df.bound = make([]bool, n)
	df.invalid = make([]string, n)
	for i := 0; i < n; i++ {
		if ks, ok := df.hash.Key(i).(string); ok {
			df.index[ks] = i
			if ks != lookupOptionsKey {
				df.keys = append(df.keys, ks)
			}
		}
		df.plans[i] = planFor(df.hash.Value(i))
		df.interp[i] = df.plans[i] != nil
		df.bound[i] = df.plans[i].readsNode()
		if pr, ok := invalid[df.hash.Key(i)]; ok {
			df.invalid[i] = pr.Message
		}
		if secret[df.hash.Key(i)] {
			if df.secret == nil {
				df.secret = make([]bool, n)
			}
			df.secret[i] = true
		}
		if p := pending[df.hash.Key(i)]; p != nil {
			if df.pending == nil {
				df.pending = make([]*pendingTexts, n)
			}
			df.pending[i] = p
		}
	}
	slices.Sort(df.keys)
	df.keys = slices.Compact(df.keys)
	return df
}

// optionsFile is the data file every existing location of a level with
// options its function refuses stands for (levelConf.optionsErr): one per
// level, failing every read, reported once, where the level is written.
func (c *compilation) optionsFile(conf *config, lvl *levelConf) *dataFile {
	module := ""
	if conf.layer == format.LayerModule {
		module = conf.module
	}
	k := fileKey{path: conf.file + "#" + lvl.name, function: "options:" + lvl.function, module: module}
	e := c.files.entry(k)
	e.once.Do(func() {
		d := diagnostics.Diagnostic{Pos: lvl.pos.In(conf.file), Level: lvl.name, Message: lvl.optionsErr}
		e.df = &dataFile{path: conf.file, id: c.fileIDs.Add(1), diags: []diagnostics.Diagnostic{d},
			err: &format.Error{Message: lvl.optionsErr, Pos: lvl.pos.In(conf.file), Level: lvl.name}}
	})
	return e.df
}

func (df *dataFile) fail(pos dataload.Pos, msg string) {
	if df.err == nil {
		df.err = &format.Error{Message: msg, Pos: pos.In(df.path)}
	}
	df.diags = append(df.diags, diagnostics.Diagnostic{Pos: pos.In(df.path), Message: msg})
}

// filterModule drops keys outside the module's namespace, as Puppet does
// with a warning.
func (df *dataFile) filterModule(module, function string) {
	pfx := module + "::"
	kept := format.NewHash(df.hash.Len())
	var pos []dataload.Pos
	for i := 0; i < df.hash.Len(); i++ {
		k := df.hash.Key(i)
		if ks, ok := k.(string); ok && (ks == lookupOptionsKey || strings.HasPrefix(ks, pfx)) {
			kept.Set(k, df.hash.Value(i))
			pos = append(pos, df.pos[i])
			continue
		}
		if function == eyamlFunction {
			continue // Puppet checks the keys of data_hash files only: an eyaml key outside the module is silently never asked for
		}
		df.diags = append(df.diags, diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: df.pos[i].In(df.path),
			Message: fmt.Sprintf("Module '%s': Value returned from data_hash function '%s', when using location '%s', must use keys qualified with the name of the module", module, function, df.path)})
	}
	df.hash, df.pos = kept, pos
}

// entryPos finds where a lookup_options entry (or its merge setting) is
// written in a YAML data file. Only messages and explanations need it, so
// positions are not kept with every file: the first call for a file parses
// it again and keeps the positions of all its lookup_options entries.
func (c *compilation) entryPos(p, entry string, merge bool) (int, int, bool) {
	v, _ := c.entries.LoadOrStore(p, &entryPositions{})
	ep := v.(*entryPositions)
	ep.once.Do(func() { ep.at = c.parseEntryPositions(p) })
	pos, ok := ep.at[entry]
	if !ok {
		return 0, 0, false
	}
	if merge && pos[1].Line > 0 {
		return pos[1].Line, pos[1].Column, true
	}
	return pos[0].Line, pos[0].Column, true
}

// entryPositions are the positions of a file's lookup_options entries.
type entryPositions struct {
	once sync.Once
	at   map[string][2]dataload.Pos // entry → its key, its merge setting's key
}

func (c *compilation) parseEntryPositions(p string) map[string][2]dataload.Pos {
	src, err := fs.ReadFile(c.fsys, p)
	if err != nil {
		return nil
	}
	root, err := dataload.Node(p, src)
	if err != nil || root == nil {
		return nil
	}
	mapping := func(m *yaml.Node) *yaml.Node {
		for m != nil && m.Kind == yaml.AliasNode {
			m = m.Alias
		}
		if m == nil || m.Kind != yaml.MappingNode {
			return nil
		}
		return m
	}
	find := func(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
		if m = mapping(m); m == nil {
			return nil, nil
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i], m.Content[i+1]
			}
		}
		return nil, nil
	}
	_, opts := find(root, lookupOptionsKey)
	opts = mapping(opts)
	if opts == nil {
		return nil
	}
	at := map[string][2]dataload.Pos{}
	for i := 0; i+1 < len(opts.Content); i += 2 {
		k, v := opts.Content[i], opts.Content[i+1]
		if _, seen := at[k.Value]; seen {
			continue // the first, as the search above found it
		}
		pos := [2]dataload.Pos{{Line: k.Line, Column: k.Column}}
		if mk, _ := find(v, "merge"); mk != nil {
			pos[1] = dataload.Pos{Line: mk.Line, Column: mk.Column}
		}
		at[k.Value] = pos
	}
	return at
}
