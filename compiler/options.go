package compiler

// Stage: lookup_options — assembled per node with a hash merge across levels
// and layers, then matched against keys (Puppet's LookupAdapter).

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

const lookupOptionsKey = "lookup_options"

var hashMerge = format.Merge{Strategy: "hash"}

// lookupOptions are compiled lookup_options: literal keys and ^regexps.
type lookupOptions struct {
	literal  map[string]any
	patterns []optPattern // in hash order: the first match wins
}

type optPattern struct {
	re  *regexp.Regexp
	val any
}

// forKey returns the lookup_options entry for a root key: a literal entry
// wins, else the first regexp (unanchored) that matches.
func (o *lookupOptions) forKey(root string) any {
	_, v := o.entryFor(root)
	return v
}

// entryFor is forKey with the name of the entry that matched.
func (o *lookupOptions) entryFor(root string) (string, any) {
	if o == nil {
		return "", nil
	}
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

// mergeFor returns the merge a lookup_options entry configures.
func mergeFor(entry any) (format.Merge, error) {
	h, ok := entry.(*format.Hash)
	if !ok {
		return format.Merge{}, nil
	}
	m, _ := h.Get("merge")
	return hiera.ParseMerge(m)
}

type optsResult struct {
	opts *lookupOptions
	err  *format.Error
}

// keyOptions are the lookup_options that apply to keys of module mod ("" for
// unqualified keys).
func (n *nodeRun) keyOptions(mod string) (*lookupOptions, *format.Error) {
	if mod == "" {
		return n.envOptions()
	}
	return n.moduleOptions(mod)
}

// optionsFor is keyOptions for callers that handle its error elsewhere
// (compileNode reports node and module failures once).
func (n *nodeRun) optionsFor(mod string) *lookupOptions {
	o, _ := n.keyOptions(mod)
	return o
}

// envOptions are the lookup_options of the global and environment layers,
// which every lookup on the node reads first.
func (n *nodeRun) envOptions() (*lookupOptions, *format.Error) {
	if n.envOpts == nil {
		n.envOpts = n.w.options(optionsSig(n.global, n.env), func() *optsResult {
			o, err := n.computeEnvOptions()
			return &optsResult{o, err}
		})
	}
	return n.envOpts.opts, n.envOpts.err
}

// optionsSig identifies the data lookup_options come from: every location
// holding the key, per layer, and the layer's shape. "" means the options
// depend on the node (interpolation, or a layer the node's facts broke) and
// must be computed afresh.
func optionsSig(layers ...*layerRun) string {
	var b []byte
	for _, lr := range layers {
		b = append(b, '|')
		if lr == nil || !lr.hier.Present {
			continue
		}
		if lr.err != nil {
			if lr.conf.err == nil {
				return "" // a node-specific failure (its facts broke a path)
			}
			b = fmt.Appendf(b, "E%p", lr.conf)
			continue
		}
		for li, lvl := range lr.files {
			b = fmt.Appendf(b, "L%d", len(lvl))
			for fi, df := range lvl {
				if df == nil {
					continue
				}
				if i, ok := df.index[lookupOptionsKey]; ok || df.err != nil {
					if ok && df.interp[i] {
						return ""
					}
					b = fmt.Appendf(b, ",%d.%d.%d", li, fi, df.id)
				}
			}
		}
	}
	return string(b)
}

// options returns the cached result for sig, computing it once.
func (w *worker) options(sig string, compute func() *optsResult) *optsResult {
	if sig == "" || !sharing {
		return compute()
	}
	if r, ok := w.opts[sig]; ok {
		return r
	}
	r := compute()
	w.opts[sig] = r
	return r
}

func (n *nodeRun) computeEnvOptions() (*lookupOptions, *format.Error) {
	raw, err := n.rawEnvOptions()
	if err != nil {
		return nil, err
	}
	o, err := compileOptions(raw)
	if err != nil {
		return nil, n.placeOption(err, n.global, n.env)
	}
	return o, nil
}

func (n *nodeRun) rawEnvOptions() (*format.Hash, *format.Error) {
	g, err := n.layerOptions(n.global, "")
	if err != nil {
		return nil, err
	}
	e, err := n.layerOptions(n.env, "")
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
func (n *nodeRun) moduleOptions(mod string) (*lookupOptions, *format.Error) {
	if r, ok := n.modOpts[mod]; ok {
		return r.opts, r.err
	}
	r := n.w.options(optionsSig(n.global, n.env, n.module(mod)), func() *optsResult {
		o, err := n.computeModuleOptions(mod)
		return &optsResult{o, err}
	})
	n.modOpts[mod] = r
	return r.opts, r.err
}

func (n *nodeRun) computeModuleOptions(mod string) (*lookupOptions, *format.Error) {
	env, err := n.rawEnvOptions()
	if err != nil {
		return nil, err
	}
	lr := n.module(mod)
	if lr == nil || !lr.hier.Present {
		return compileOptions(env)
	}
	m, err := n.layerOptions(lr, mod)
	if err != nil {
		return nil, err
	}
	switch {
	case m == nil:
		return compileOptions(env)
	case env == nil:
		return compileOptions(m)
	}
	merged, merr := hiera.MergeValues(hashMerge, env, m)
	if merr != nil {
		return nil, asFormatError(merr)
	}
	h, _ := merged.(*format.Hash)
	o, cerr := compileOptions(h)
	if cerr != nil {
		return nil, n.placeOption(cerr, n.global, n.env, lr)
	}
	return o, nil
}

// defaultOptions are the lookup_options of a module's default_hierarchy
// alone; they apply only to lookups it answers.
func (n *nodeRun) defaultOptions(mod string, lr *layerRun) (*lookupOptions, *format.Error) {
	if r, ok := n.defOpts[mod]; ok {
		return r.opts, r.err
	}
	res := &optsResult{}
	n.defOpts[mod] = res
	n.meta(func() {
		v, found, err := hiera.ResolveDefault(hashMerge, lr.def, n.leaf(lookupOptionsKey, nil, nil, lr, true))
		if err != nil {
			res.err = asFormatError(err)
			return
		}
		if !found {
			return
		}
		h, verr := validateOptions(v, mod)
		if verr != nil {
			res.err = verr
			return
		}
		res.opts, res.err = compileOptions(h)
	})
	return res.opts, res.err
}

// layerOptions resolves the lookup_options key in one layer with a hash
// merge over its levels, as Puppet's meta lookup does.
func (n *nodeRun) layerOptions(lr *layerRun, mod string) (*format.Hash, *format.Error) {
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
	n.meta(func() {
		v, found, err := hiera.Resolve(hashMerge, hierarchies(layers), n.leaf(lookupOptionsKey, layers[0], layers[1], layers[2], false))
		if err != nil {
			ferr = asFormatError(err)
			return
		}
		if !found {
			return
		}
		out, ferr = validateOptions(v, mod)
		if ferr != nil {
			ferr = n.placeOption(ferr, lr)
		}
	})
	return out, ferr
}

// validateOptions checks lookup_options is a hash and, in a module, that it
// names only the module's own keys.
func validateOptions(v any, mod string) (*format.Hash, *format.Error) {
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

// compileOptions splits lookup_options into literal keys and regexps.
func compileOptions(h *format.Hash) (*lookupOptions, *format.Error) {
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
			re, err := compileRegexp(ks)
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

// optionErrors remembers which lookup_options entry an error is about, so
// that it can be placed where that entry is written (see placeOption).
var optionErrors sync.Map // *format.Error → optionRef

type optionRef struct {
	entry string
	merge bool // the entry's merge setting, not its name, is wrong
}

func optionError(entry string, merge bool, msg string, args ...any) *format.Error {
	e := &format.Error{Message: fmt.Sprintf(msg, args...)}
	optionErrors.Store(e, optionRef{entry, merge})
	return e
}

// placeOption gives an error about a lookup_options entry the position of
// that entry in the highest-priority data file that defines it (or of its
// merge setting), and that file's level. Other errors are returned as
// they are.
func (n *nodeRun) placeOption(err *format.Error, layers ...*layerRun) *format.Error {
	ref, ok := optionErrors.Load(err)
	if !ok || err.File != "" {
		return err
	}
	r := ref.(optionRef)
	for _, lr := range layers {
		if lr == nil || !lr.hier.Present || lr.err != nil {
			continue
		}
		for li, lvl := range lr.files {
			for _, df := range lvl {
				if df == nil || df.err != nil {
					continue
				}
				i, ok := df.index[lookupOptionsKey]
				if !ok {
					continue
				}
				if h, ok := df.hash.Value(i).(*format.Hash); !ok || !h.Has(r.entry) {
					continue
				}
				e := *err
				e.File, e.Level = df.path, lr.hier.Levels[li].Name
				e.Line, e.Column = df.pos[i].Line, df.pos[i].Column
				if line, col, ok := n.c.entryPos(df.path, r.entry, r.merge); ok {
					e.Line, e.Column = line, col
				}
				return &e
			}
		}
	}
	return err
}
