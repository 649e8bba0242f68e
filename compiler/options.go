package compiler

// Stage: lookup_options — assembled per node with a hash merge across levels
// and layers, then matched against keys (Puppet's LookupAdapter).

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
	"github.com/hieracc/hieracc/format/hiera/lookupopts"
)

const lookupOptionsKey = "lookup_options"

var hashMerge = format.Merge{Strategy: "hash"}

// lookupOptions are compiled lookup_options: literal keys and ^regexps.
// They are used by one worker's nodes only.
type lookupOptions struct {
	literal  map[string]any
	patterns []optPattern           // in hash order: the first match wins
	keys     map[string]*keyOptions // by root key, see of
	failing  *failingEntries        // computed once, see failingEntries
	// secret: the options hold text decrypted from ENC[...], which their
	// errors do not quote (an unknown merge strategy's name).
	secret bool
}

// keyOptions is what lookup_options say of one root key.
type keyOptions struct {
	entry    string // the entry that applies ("" for none), see entryFor
	val      any    // its value
	merge    format.Merge
	mergeErr error
	conv     []format.Value // its convert_to, nil for none
	convErr  error
	// secret: the options it comes from hold decrypted text (see
	// lookupOptions.secret), which makes the key secret.
	secret bool
}

var noOptions = &keyOptions{}

// of is what the options say of a root key, computed once per key:
// matching every key against every pattern again for each node, and each
// of a key's settings in a lookup of its own, adds up.
func (o *lookupOptions) of(root string) *keyOptions {
	if o == nil {
		return noOptions
	}
	if ko, ok := o.keys[root]; ok {
		return ko
	}
	ko := &keyOptions{}
	ko.entry, ko.val = o.match(root)
	ko.merge, ko.mergeErr = o.mergeFor(ko.val)
	if h, ok := ko.val.(*format.Hash); ok {
		setting, _ := h.Get("convert_to")
		ko.conv, ko.convErr = lookupopts.ParseConvertTo(root, setting)
	}
	if o.secret && ko.val != nil {
		ko.secret = true
		ko.convErr = redactError(ko.convErr, ko.val)
	}
	if o.keys == nil {
		o.keys = map[string]*keyOptions{}
	}
	o.keys[root] = ko
	return ko
}

// mergeOf is the merge a root key's entry configures.
func (o *lookupOptions) mergeOf(root string) (format.Merge, error) {
	ko := o.of(root)
	return ko.merge, ko.mergeErr
}

type optPattern struct {
	re  *regexp.Regexp
	val any
}

// entryFor returns the lookup_options entry for a root key, and the name
// of the entry that matched: a literal entry wins, else the first regexp
// (unanchored) that matches.
func (o *lookupOptions) entryFor(root string) (string, any) {
	ko := o.of(root)
	return ko.entry, ko.val
}

// match is entryFor, computed.
func (o *lookupOptions) match(root string) (string, any) {
	if v, ok := o.literal[root]; ok && v != nil {
		return root, v
	}
	for _, p := range o.patterns {
		if p.re.MatchString(root) {
			return p.re.String(), p.val
		}
	}
	return "", nil
}

// convertTo returns the convert_to a key's lookup_options entry sets
// (format.Key.ConvertTo), nil for none. Callers only read it.
func (o *lookupOptions) convertTo(root string) ([]format.Value, error) {
	ko := o.of(root)
	return ko.conv, ko.convErr
}

// mergeFor returns the merge a lookup_options entry configures.
// readsSecret runs f and reports whether a value it read holds text
// decrypted from ENC[...] (which nodeRun.secret then says as well).
func (op *nodeOptions) readsSecret(f func()) bool {
	outer := op.n.secret
	op.n.secret = false
	f()
	secret := op.n.secret
	op.n.secret = outer || secret
	return secret
}

// redactError is err with the strings of v, a lookup_options entry,
// redacted from its message (hiera.RedactMessage).
func redactError(err error, v any) error {
	if err == nil {
		return nil
	}
	if msg := hiera.RedactMessage(err.Error(), v); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}

// mergeFor is the package's mergeFor for an entry of o, whose error does
// not quote decrypted text.
func (o *lookupOptions) mergeFor(entry any) (format.Merge, error) {
	m, err := mergeFor(entry)
	if o.secret {
		err = redactError(err, entry)
	}
	return m, err
}

func mergeFor(entry any) (format.Merge, error) {
	h, ok := entry.(*format.Hash)
	if !ok {
		return format.Merge{}, nil
	}
	m, _ := h.Get("merge")
	return lookupopts.ParseMerge(m)
}

type optsResult struct {
	opts *lookupOptions
	err  *format.Error
	// id numbers the result in the worker's cache, shared by every node
	// with the same options data (nodeShare.options); 0 when computed for
	// one node alone.
	id uint32
}

// nodeOptions are a node's lookup_options, assembled on first use: those of
// the global and environment layers, and of each module.
type nodeOptions struct {
	n       *nodeRun               // the node, whose layers hold the options
	envOpts *optsResult            // global and environment layers
	modOpts map[string]*optsResult // by module
	defOpts map[string]*optsResult // a module's default_hierarchy, by module
}

// optsOf returns the lookup_options result the keys of module mod are
// resolved under, once keyOptions(mod) has been asked.
func (op *nodeOptions) optsOf(mod string) *optsResult {
	if mod == "" {
		return op.envOpts
	}
	return op.modOpts[mod]
}

// keyOptions are the lookup_options that apply to keys of module mod ("" for
// unqualified keys).
func (op *nodeOptions) keyOptions(mod string) (*lookupOptions, *format.Error) {
	if mod == "" {
		return op.envOptions()
	}
	return op.moduleOptions(mod)
}

// optionsFor is keyOptions for callers that handle its error elsewhere
// (compileNode reports node and module failures once).
func (op *nodeOptions) optionsFor(mod string) *lookupOptions {
	o, _ := op.keyOptions(mod)
	return o
}

// envOptions are the lookup_options of the global and environment layers,
// which every lookup on the node reads first.
func (op *nodeOptions) envOptions() (*lookupOptions, *format.Error) {
	if op.envOpts == nil {
		op.envOpts = op.n.share.options(func() *optsResult {
			var o *lookupOptions
			var err *format.Error
			secret := op.readsSecret(func() { o, err = op.computeEnvOptions() })
			if o != nil {
				o.secret = secret
			}
			return &optsResult{opts: o, err: err}
		}, op.n.layers.global, op.n.layers.env)
	}
	return op.envOpts.opts, op.envOpts.err
}

func (op *nodeOptions) computeEnvOptions() (*lookupOptions, *format.Error) {
	raw, err := op.rawEnvOptions()
	if err != nil {
		return nil, err
	}
	o, cerr := compileOptions(raw)
	if cerr != nil {
		return nil, op.placeOption(cerr, op.n.layers.global, op.n.layers.env)
	}
	return o, nil
}

func (op *nodeOptions) rawEnvOptions() (*format.Hash, *format.Error) {
	g, err := op.layerOptions(op.n.layers.global, "")
	if err != nil {
		return nil, err
	}
	e, err := op.layerOptions(op.n.layers.env, "")
	if err != nil {
		return nil, err
	}
	switch {
	case g == nil:
		return e, nil
	case e == nil:
		return g, nil
	}
	m, merr := hiera.MergeValues(hashMerge, g, e)
	if merr != nil {
		return nil, asFormatError(merr)
	}
	h, _ := m.(*format.Hash)
	return h, nil
}

// moduleOptions are the environment's lookup_options combined with one
// module's (the environment wins for the same key string; the module's
// entries come first, so its regexps are tried first).
func (op *nodeOptions) moduleOptions(mod string) (*lookupOptions, *format.Error) {
	if r, ok := op.modOpts[mod]; ok {
		return r.opts, r.err
	}
	r := op.n.share.options(func() *optsResult {
		var o *lookupOptions
		var err *format.Error
		secret := op.readsSecret(func() { o, err = op.computeModuleOptions(mod) })
		if o != nil {
			o.secret = secret
		}
		return &optsResult{opts: o, err: err}
	}, op.n.layers.global, op.n.layers.env, op.n.layers.module(mod))
	op.modOpts[mod] = r
	return r.opts, r.err
}

func (op *nodeOptions) computeModuleOptions(mod string) (*lookupOptions, *format.Error) {
	env, err := op.rawEnvOptions()
	if err != nil {
		return nil, err
	}
	lr := op.n.layers.module(mod)
	compile := func(h *format.Hash) (*lookupOptions, *format.Error) {
		o, err := compileOptions(h)
		if err != nil {
			return nil, op.placeOption(err, op.n.layers.global, op.n.layers.env, lr)
		}
		return o, nil
	}
	if lr == nil || !lr.hier.Present {
		return compile(env)
	}
	m, err := op.layerOptions(lr, mod)
	if err != nil {
		return nil, err
	}
	switch {
	case m == nil:
		return compile(env)
	case env == nil:
		return compile(m)
	}
	merged, merr := hiera.MergeValues(hashMerge, env, m)
	if merr != nil {
		return nil, asFormatError(merr)
	}
	h, _ := merged.(*format.Hash)
	return compile(h)
}

// defaultOptions are the lookup_options of a module's default_hierarchy
// alone; they apply only to lookups it answers.
func (op *nodeOptions) defaultOptions(mod string, lr *layerRun) (*lookupOptions, *format.Error) {
	if r, ok := op.defOpts[mod]; ok {
		return r.opts, r.err
	}
	res := &optsResult{}
	op.defOpts[mod] = res
	op.n.meta(func() {
		var v any
		var found bool
		var err error
		secret := op.readsSecret(func() {
			v, found, err = hiera.ResolveDefault(hashMerge, lr.def, op.n.leaf(lookupOptionsKey, lookupOptionsKey, nil, nil, lr, true))
		})
		if err != nil {
			res.err = asFormatError(err)
			return
		}
		if !found {
			return
		}
		h, err := validateOptions(v, mod)
		if err == nil {
			res.opts, err = compileOptions(h)
		}
		if res.opts != nil {
			res.opts.secret = secret
		}
		if err != nil {
			res.err = op.placeOption(err, lr)
		}
	})
	return res.opts, res.err
}

// layerOptions resolves the lookup_options key in one layer with a hash
// merge over its levels, as Puppet's meta lookup does.
func (op *nodeOptions) layerOptions(lr *layerRun, mod string) (*format.Hash, *format.Error) {
	if lr == nil || !lr.hier.Present {
		return nil, nil
	}
	if lr.err != nil {
		return nil, lr.err
	}
	var layers [3]*layerRun
	layers[lr.conf.layer] = lr
	var out *format.Hash
	var ferr *format.Error
	op.n.meta(func() {
		v, found, err := hiera.Resolve(hashMerge, hierarchies(layers), op.n.leaf(lookupOptionsKey, lookupOptionsKey, layers[0], layers[1], layers[2], false))
		err = hiera.InLookupOf(lookupOptionsKey, err)
		if err != nil {
			ferr = asFormatError(err)
			return
		}
		if !found {
			return
		}
		var verr error
		if out, verr = validateOptions(v, mod); verr != nil {
			ferr = op.placeOption(verr, lr)
		}
	})
	return out, ferr
}

// validateOptions checks lookup_options is a hash and, in a module, that it
// names only the module's own keys.
func validateOptions(v any, mod string) (*format.Hash, error) {
	h, ok := v.(*format.Hash)
	if !ok {
		return nil, &format.Error{Message: "value of lookup_options must be a hash"}
	}
	if mod == "" {
		return h, nil
	}
	pfx := mod + "::"
	for _, k := range h.Keys() {
		ks, _ := k.(string)
		if strings.HasPrefix(ks, "^") {
			if !strings.HasPrefix(ks[1:], pfx) {
				return nil, optionError(ks, false, "all lookup_options patterns must match a key starting with module name '%s'", mod)
			}
		} else if !strings.HasPrefix(ks, pfx) {
			return nil, optionError(ks, false, "all lookup_options keys must start with module name '%s'", mod)
		}
	}
	return h, nil
}

// failingEntries are what a bundle records of a set of lookup_options
// (format.OptionScope): the entries whose merge Puppet rejects, which fail
// the lookup of a key no level holds, and the valid entries that hide one
// of them from some key (a literal entry a failing pattern also matches,
// the patterns tried before a failing one).
type failingEntries struct {
	literal, patterns []format.OptionEntry
}

// failingEntries computes o's failing entries once; place positions an
// entry's merge error (placeOption over the layers o comes from, which
// are the same for every node that shares o).
func (o *lookupOptions) failingEntries(place func(entry string, err error) *format.Error) *failingEntries {
	if o == nil {
		return &failingEntries{}
	}
	if o.failing != nil {
		return o.failing
	}
	f := &failingEntries{}
	o.failing = f
	last := -1
	errs := make([]error, len(o.patterns))
	for i, p := range o.patterns {
		if _, err := o.mergeFor(p.val); err != nil {
			errs[i], last = err, i
		}
	}
	for i := range last + 1 {
		e := format.OptionEntry{Name: o.patterns[i].re.String()}
		if errs[i] != nil {
			e.Err = place(e.Name, errs[i])
		}
		f.patterns = append(f.patterns, e)
	}
	names := make([]string, 0, len(o.literal))
	for name, v := range o.literal {
		if v != nil { // a null entry lets the patterns decide
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		_, err := o.mergeFor(o.literal[name])
		switch {
		case err != nil:
			f.literal = append(f.literal, format.OptionEntry{Name: name, Err: place(name, err)})
		case last >= 0 && o.patternFails(name, errs):
			f.literal = append(f.literal, format.OptionEntry{Name: name}) // it hides the pattern
		}
	}
	return f
}

// patternFails reports whether the first pattern matching root is one of
// those whose merge fails (errs, by pattern).
func (o *lookupOptions) patternFails(root string, errs []error) bool {
	for i, p := range o.patterns {
		if p.re.MatchString(root) {
			return errs[i] != nil
		}
	}
	return false
}

// optionScopes are the node's lookup_options entries that fail keys its
// bundle does not hold (format.Bundle.Options): the environment's, each
// module's (recorded, if only empty, whenever the environment's are, so
// that a reader does not fall back to them), and each default_hierarchy's.
// Modules that failed (modErr) need none: their keys fail anyway.
func (op *nodeOptions) optionScopes(modErr map[string]bool) []format.OptionScope {
	scope := func(o *lookupOptions, mod string, dflt bool, layers ...*layerRun) format.OptionScope {
		f := o.failingEntries(func(entry string, err error) *format.Error {
			return op.placeOption(optionError(entry, true, "%s", err.Error()), layers...)
		})
		return format.OptionScope{Module: mod, Default: dflt, Literal: f.literal, Pattern: f.patterns}
	}
	var out []format.OptionScope
	env := scope(op.optionsFor(""), "", false, op.n.layers.global, op.n.layers.env)
	hasEnv := len(env.Literal) > 0 || len(env.Pattern) > 0
	if hasEnv {
		out = append(out, env)
	}
	for _, name := range op.n.c.moduleNames {
		lr := op.n.layers.module(name)
		if lr == nil || !lr.hier.Present || lr.err != nil || modErr[name] {
			continue
		}
		if m := scope(op.optionsFor(name), name, false, op.n.layers.global, op.n.layers.env, lr); hasEnv || len(m.Literal) > 0 || len(m.Pattern) > 0 {
			out = append(out, m)
		}
		if lr.def == nil || len(lr.def.Levels) == 0 {
			continue
		}
		dopts, derr := op.defaultOptions(name, lr)
		d := format.OptionScope{Module: name, Default: true, Err: derr}
		if derr == nil {
			d = scope(dopts, name, true, lr)
		}
		if d.Err != nil || len(d.Literal) > 0 || len(d.Pattern) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// compileOptions splits lookup_options into literal keys and regexps.
func compileOptions(h *format.Hash) (*lookupOptions, error) {
	if h == nil {
		return nil, nil
	}
	o := &lookupOptions{literal: map[string]any{}}
	for k, v := range h.All() {
		ks, ok := k.(string)
		if !ok {
			continue
		}
		if strings.HasPrefix(ks, "^") {
			re, err := format.OptionsPattern(ks)
			if err != nil {
				return nil, optionError(ks, false, "lookup_options: invalid regexp %q: %v", ks, err)
			}
			o.patterns = append(o.patterns, optPattern{re, v})
		} else {
			o.literal[ks] = v
		}
	}
	return o, nil
}

// entryError is an error about one lookup_options entry; placeOption turns
// it into a *format.Error placed where that entry is written.
type entryError struct {
	msg   string
	entry string
	merge bool // the entry's merge setting, not its name, is wrong
}

func (e *entryError) Error() string { return e.msg }

func optionError(entry string, merge bool, msg string, args ...any) *entryError {
	return &entryError{msg: fmt.Sprintf(msg, args...), entry: entry, merge: merge}
}

// placeOption gives an error about a lookup_options entry the position of
// that entry in the highest-priority data file that defines it (or of its
// merge setting), and that file's level. Other errors are converted as
// they are.
func (op *nodeOptions) placeOption(err error, layers ...*layerRun) *format.Error {
	var ee *entryError
	if !errors.As(err, &ee) {
		return asFormatError(err)
	}
	e := &format.Error{Message: ee.msg}
	for _, lr := range layers {
		if lr == nil || !lr.hier.Present || lr.err != nil {
			continue
		}
		if op.placeIn(e, ee, &lr.hier, lr.files) || lr.def != nil && op.placeIn(e, ee, lr.def, lr.defFiles) {
			return e
		}
	}
	return e
}

// mergeFrom is where the lookup_options entry that applies to a key (ko) is
// written (the highest-priority file defining it), for explanations; nil
// when no entry applies.
func (op *nodeOptions) mergeFrom(ko *keyOptions, layers [3]*layerRun) *format.OptionsEntry {
	entry, v := ko.entry, ko.val
	if v == nil {
		return nil
	}
	e := op.placeOption(optionError(entry, false, "%s", entry), layers[:]...)
	if e.File == "" {
		return nil
	}
	return &format.OptionsEntry{Entry: entry, Pos: e.Pos, Level: e.Level}
}

// placeIn places e at the entry if one of files defines it.
func (op *nodeOptions) placeIn(e *format.Error, ee *entryError, h *format.Hierarchy, files [][]*dataFile) bool {
	for li, lvl := range files {
		for _, df := range lvl {
			if df == nil || df.err != nil {
				continue
			}
			i, ok := df.index[lookupOptionsKey]
			if !ok {
				continue
			}
			if opts, ok := df.hash.Value(i).(*format.Hash); !ok || !opts.Has(ee.entry) {
				continue
			}
			e.Pos, e.Level = df.pos[i].In(df.path), h.Levels[li].Name
			if line, col, ok := op.n.c.entryPos(df.fsPath, ee.entry, ee.merge); ok {
				e.Line, e.Column = line, col
			}
			return true
		}
	}
	return false
}
