package compiler

// Stage: compile one key of a node — resolved under its lookup_options,
// with the contributions that explain it (node.go walks the node's keys).

import (
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
	"slices"
	"strings"
)

// compileKey resolves one key at the top level. Every location's value is
// recorded (interpolated), and the configured merge is computed from those
// records with the same driver the runtime uses, so the two cannot differ.
// locs are the key's locations (see locsOf), nil to find them; pre, when
// not nil, keeps what the key's other nodes found out (see keyPre); rc,
// when not nil, holds the key's contributions, read by the caller (see
// nodeShare.FromTemplate). The key returned is the worker's until its next
// compileKey: callers copy it.
func (n *nodeRun) compileKey(name, mod string, locs []keyLoc, pre *keyPre, rc *readContribs) (*format.Key, *format.Error) {
	mark := len(n.stack.checks)
	if rc != nil {
		mark = rc.mark
	}
	layers := n.layers.of(mod)
	if locs == nil {
		locs = n.locsOf(name, layers)
	}
	k, err := n.resolveTop(name, mod, locs, layers, pre, rc)
	tested := n.w.testedList(n.stack.checks[mark:])
	if k != nil && asksItself(name, tested) {
		n.recordAsked(k, locs, layers, tested)
	}
	n.setKeyChecks(tested)
	return k, err
}

// keyPre is what compiling a key finds out that is the same for every
// node of a slice (whose nodes share their lookup_options and the files
// defining them, see slice): the key's options and where the entry that
// applies is written. A slot keeps it for the nodes that compile the key
// themselves.
type keyPre struct {
	ko      *keyOptions
	from    *format.OptionsEntry
	fromSet bool
}

// readContribs are a key's contributions (from the locations that are
// not its module's default_hierarchy's) as its caller read them, with
// what reading them did: whether a value read holds decrypted text, and
// where the names it tested start in lookupStack.checks.
type readContribs struct {
	cs     []format.Contribution
	secret bool
	mark   int
}

// resolveTop is compileKey's lookup of the key as asked by its name.
func (n *nodeRun) resolveTop(name, mod string, locs []keyLoc, layers [3]*layerRun, pre *keyPre, rc *readContribs) (*format.Key, *format.Error) {
	k := &n.w.key // copied by every caller: no allocation per key
	*k = format.Key{Name: name}
	var ko *keyOptions
	switch {
	case pre == nil:
		ko = n.opts.optionsFor(mod).of(name)
	case pre.ko == nil:
		pre.ko = n.opts.optionsFor(mod).of(name)
		fallthrough
	default:
		ko = pre.ko
	}
	merge, perr := ko.merge, ko.mergeErr
	// Whether any value read for the key holds decrypted text.
	outer := n.secret
	n.secret = false
	defer func() {
		k.Secret = n.secret
		n.secret = outer || n.secret
	}()
	if rc != nil {
		k.Contributions, n.secret = rc.cs, rc.secret
	} else {
		fr := n.stack.enter(name)
		k.Contributions = n.contributions(name, locs, false, layers)
		n.stack.leave(fr)
	}
	// Options that hold decrypted text (a convert_to type) make the key
	// secret: a conversion's message quotes its type.
	n.secret = n.secret || ko.secret

	var v any
	var found bool
	var err error
	if perr != nil {
		// Place it where the lookup_options entry sets the merge.
		err = n.opts.placeOption(optionError(ko.entry, true, "%s", perr.Error()), layers[:]...)
	} else {
		k.Merge = merge
		if pre != nil && pre.fromSet {
			k.MergeFrom = pre.from
		} else {
			k.MergeFrom = n.opts.mergeFrom(ko, layers)
			if pre != nil {
				pre.from, pre.fromSet = k.MergeFrom, true
			}
		}
		v, found, err = hiera.Resolve(merge, hierarchies(layers), hiera.ContributionLeaf(k.Contributions))
		err = hiera.InLookupOf(name, err)
	}
	// The module's default_hierarchy answers when nothing else has the
	// key; it is recorded even when something has, for dotted keys: Puppet
	// digs there too when digging into the regular value finds nothing;
	// and when the key's configured merge fails, for lookup-time merges.
	if lr := n.layers.module(mod); lr != nil && lr.def != nil {
		failed := err != nil
		dopts, derr := n.opts.defaultOptions(mod, lr)
		var dm format.Merge
		var merr error
		if derr == nil {
			dm, merr = dopts.mergeOf(name)
		}
		switch {
		case (found || failed) && (derr != nil || merr != nil):
			// A dotted key's fallback, or a lookup-time merge's, would
			// fail: the bundle's options scopes say so (optionScopes).
		case derr != nil:
			err = derr
		case merr != nil:
			entry, _ := dopts.entryFor(name)
			err = n.opts.placeOption(optionError(entry, true, "%s", merr.Error()), lr)
		default:
			k.DefaultMerge = dm
			fr := n.stack.enter(name)
			k.Defaults = n.contributions(name, locs, true, layers)
			n.stack.leave(fr)
			if !found && !failed {
				v, found, err = hiera.ResolveDefault(dm, lr.def, hiera.ContributionLeaf(k.Defaults))
			}
		}
	}
	// convert_to applies to the result, after merging (Puppet's
	// convert_result); Sensitive is applied by readers. It is recorded
	// even when the key fails: a lookup-time merge, which ignores a bad
	// lookup_options merge, still converts what it finds.
	conv, cerr := ko.conv, ko.convErr
	if cerr == nil {
		k.ConvertTo = conv
	}
	if err == nil && found {
		if err = cerr; err == nil {
			v, err = hiera.Convert(name, k.ConvertTo, v, n.secret)
		}
	}
	if err == nil && found && merge.Strategy != "" && merge.Strategy != "first" {
		// A merge can build a value larger than any of its parts.
		if serr := checkSize(v); serr != nil {
			err = serr
		}
	}
	if err != nil {
		k.Err = n.position(asFormatError(err), k, layers)
		return k, k.Err
	}
	if !found {
		return nil, nil
	}
	k.Value = v
	return k, nil
}

// asksItself reports whether a key's lookup tested its own name, or a
// dotted text of it, against the recursion guard: a dotted lookup of the
// key may then read other values (see format.Key.Asked). tested is sorted.
func asksItself(name string, tested []string) bool {
	for _, t := range tested {
		// A text whose root is name holds name: the cheap test first.
		if t == name || strings.Contains(t, name) && rootOf(t) == name {
			return true
		}
	}
	return false
}

// rootOf is the root key of a key text, "" if it does not parse.
func rootOf(text string) string {
	if !strings.ContainsAny(text, ".'\"") {
		return text // no dots or quotes: the text is its root (hiera.ParseKey)
	}
	k, err := hiera.ParseKey(text)
	if err != nil {
		return ""
	}
	return k.Root
}

// recordAsked records k.Asked: the contributions read by a dotted lookup,
// with the dotted text on the guard instead of the key's name. The entry
// "" is read with nothing on the guard (the text asked, never tested, is
// left out of recursion chains: readers insert it); each dotted text of
// the key that its data looks up gets its own entry.
func (n *nodeRun) recordAsked(k *format.Key, locs []keyLoc, layers [3]*layerRun, tested []string) {
	texts := []string{""}
	for _, t := range tested {
		if t != k.Name && rootOf(t) == k.Name {
			texts = append(texts, t) // sorted, as tested is
		}
	}
	outer := n.secret
	n.secret = false
	k.Asked = make([]format.Asked, len(texts))
	for i, t := range texts {
		fr := n.stack.enter(t)
		if t == "" {
			n.stack.names, n.stack.top = n.stack.names[:0], k.Name
		}
		a := &k.Asked[i]
		a.Text = t
		a.Contributions = n.contributions(k.Name, locs, false, layers)
		if k.Defaults != nil {
			a.Defaults = n.contributions(k.Name, locs, true, layers)
		}
		n.stack.leave(fr)
	}
	k.Secret = k.Secret || n.secret
	n.secret = outer || n.secret
}

// keyLoc is a location a key's contribution comes from: a data file that
// holds the key (entry idx), or that failed to load (idx -1).
type keyLoc struct {
	layer      format.Layer
	def        bool // in the module's default_hierarchy
	level, loc int
	df         *dataFile
	idx        int
	// named: the location's path template names the node (namesNode),
	// so its contribution is bound.
	named bool
}

// locsOf lists the locations of a key's layers that hold it or fail to
// load, in order: the locations a lookup of the key reads something from.
func (n *nodeRun) locsOf(name string, layers [3]*layerRun) []keyLoc {
	return cloneOrNil(n.locsIn(name, layers, nil))
}

// locsIn is locsOf over the files of only (nil for all), in the worker's
// buffer (until its next call).
func (n *nodeRun) locsIn(name string, layers [3]*layerRun, only []*dataFile) []keyLoc {
	out := n.w.locs[:0]
	add := func(layer format.Layer, def bool, h *format.Hierarchy, files [][]*dataFile) {
		for li, lvl := range files {
			for fi, df := range lvl {
				if df == nil || only != nil && !slices.Contains(only, df) {
					continue
				}
				idx := -1
				if df.err == nil {
					i, ok := df.index[name]
					if !ok {
						continue
					}
					idx = i
				}
				named := n.w.namesNode(h.Levels[li].Locations[fi].Original)
				out = append(out, keyLoc{layer, def, li, fi, df, idx, named})
			}
		}
	}
	for li, lr := range layers {
		if lr != nil && lr.hier.Present && lr.err == nil {
			add(format.Layer(li), false, &lr.hier, lr.files)
			if li == int(format.LayerModule) && lr.def != nil {
				add(format.LayerModule, true, lr.def, lr.defFiles)
			}
		}
	}
	n.w.locs = out
	return out
}

// contributions reads a key from its locations in the hierarchies, or in
// the module's default_hierarchy when def is set.
func (n *nodeRun) contributions(name string, locs []keyLoc, def bool, layers [3]*layerRun) []format.Contribution {
	count := 0
	for _, l := range locs {
		if l.def == def {
			count++
		}
	}
	if count == 0 {
		return nil
	}
	out := n.w.contributionsBuf(count)
	for _, l := range locs {
		if l.def != def {
			continue
		}
		h := &layers[l.layer].hier
		if def {
			h = layers[l.layer].def
		}
		c := format.Contribution{Layer: l.layer, Level: l.level, Location: l.loc, Bound: l.named}
		var err error
		if l.idx < 0 {
			err = l.df.err
		} else {
			c.Line, c.Column = l.df.pos[l.idx].Line, l.df.pos[l.idx].Column
			confined := n.confine(l.layer, def)
			c.Value, err = n.readEntry(l.df, l.idx, h.Levels[l.level].Name)
			if confined {
				n.globalOnly--
			}
			c.Bound = c.Bound || l.df.bound[l.idx]
		}
		if err != nil {
			c.Value = nil
			c.Err = asFormatError(err)
			if l.layer == format.LayerGlobal && !def {
				c.Err = inGlobal(name, c.Err)
			}
		}
		out = append(out, c)
	}
	return out
}

// contribChunk is how many contributions the worker allocates at once
// (see contributionsBuf): most keys have one or two, so a chunk saves as
// many allocations, and a result kept for the compile's length (a shared
// one) keeps at most a chunk of others' alive with it.
const contribChunk = 32

// contributionsBuf returns an empty slice with room for exactly n
// contributions (appending more moves it), cut from the worker's current
// chunk.
func (w *worker) contributionsBuf(n int) []format.Contribution {
	if n > contribChunk {
		return make([]format.Contribution, 0, n)
	}
	if cap(w.contribs)-len(w.contribs) < n {
		w.contribs = make([]format.Contribution, 0, contribChunk)
	}
	i := len(w.contribs)
	w.contribs = w.contribs[:i+n]
	return w.contribs[i : i : i+n]
}

// position gives a key error the place it arose. An error read from a
// location already names its file; it gets the level of the contribution
// that failed. Any other error (a merge that failed, say) gets the place
// of the highest-priority contribution.
func (n *nodeRun) position(err *format.Error, k *format.Key, layers [3]*layerRun) *format.Error {
	e := *err
	cs, useDefault := k.Contributions, false
	if len(cs) == 0 {
		cs, useDefault = k.Defaults, true
	}
	for _, c := range cs {
		if e.File != "" && (c.Err == nil || c.Err.Message != e.Message) {
			continue // not the contribution that failed
		}
		lr := layers[c.Layer]
		if lr == nil {
			break
		}
		h := &lr.hier
		if useDefault && lr.def != nil {
			h = lr.def
		}
		if c.Level < len(h.Levels) {
			lvl := h.Levels[c.Level]
			e.Level = lvl.Name
			if e.File == "" && c.Location < len(lvl.Locations) {
				e.File = lvl.Locations[c.Location].Path
				e.Line, e.Column = c.Line, c.Column
			}
		}
		break
	}
	return &e
}

// namesNode is the package function namesNode, remembered per template
// (but for a few thousand: a glob's template is its pattern, interpolated).
func (w *worker) namesNode(template string) bool {
	named, ok := w.named[template]
	if !ok {
		named = namesNode(template)
		if w.named == nil {
			w.named = map[string]bool{}
		}
		if len(w.named) < 4096 {
			w.named[template] = named
		}
	}
	return named
}

// namesNode reports whether a location's path template names the node:
// it interpolates what is the node's alone (nodeExpr), as
// nodes/%{trusted.certname}.yaml does. Its data is then the node's own:
// a contribution from it, like one whose interpolation reads the node's
// name, is bound (format.Contribution.Bound), written with the node's
// bundle and never in a shared details file. The rule reads only the
// template, which every node of an environment shares, so a result the
// compiler reuses across nodes has the same bound bits for each of them.
func namesNode(template string) bool {
	for start, end := nextExpr(template, 0); start >= 0; start, end = nextExpr(template, end) {
		if nodeExpr(template[start+2 : end-1]) {
			return true
		}
	}
	return false
}
