package compiler

// Stage: resolve keys for one node — Puppet's LookupAdapter#lookup over the
// global, environment and module layers, with recursion detection.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// nodeRun is the state of compiling one node: its lookups (this file) and
// its keys (node.go, emit.go). The other stages keep their state in parts
// of it, each a type whose methods are its file's:
//
//	layers  nodeLayers    hierarchy.go   every layer's hierarchy, expanded
//	                                     into the node's data files
//	opts    nodeOptions   options.go     lookup_options
//	interp  interpolator  interpolate.go %{...} in paths and data
//	stack   lookupStack   lookup.go      the keys being looked up
//	share   nodeShare     share.go       sharing work across nodes, as
//	                                     the node sees it
//
// A part that calls back into the node's lookups holds n. share is the
// seam: the semantic stages reach the sharing only through it, its hooks
// named in the package's documentation.
type nodeRun struct {
	c     *compilation
	w     *worker
	node  Node
	scope *scope

	layers nodeLayers // every layer's hierarchy expanded (hierarchy.go)

	stack lookupStack // keys being looked up, for recursion detection
	// globalOnly > 0 while the data of a global layer that confines its
	// nested lookups is read (see confinesLookups): they search it alone.
	globalOnly int
	memo       map[string]memoEntry // successful nested lookups by key text
	// secret is set when a value read since it was last cleared holds
	// text decrypted from ENC[...] (memo entries say it of themselves).
	secret bool
	keys   []format.Key // keys compiled so far, sorted: nested lookups reuse them
	// keyTested holds the names each key of keys tested (see checks),
	// for the keys that tested any, in order (see setKeyChecks).
	keyTested []testedAt

	opts nodeOptions // lookup_options (options.go)

	diags  []diagnostics.Diagnostic
	warned map[string]bool
	// warnings counts the warnings raised, reported or not (one the
	// node has already been given is not reported again).
	warnings int

	interp interpolator // %{...} in paths and data (interpolate.go)

	// share is sharing work across nodes as the node sees it
	// (share.go), and the only way the stages reach the sharing.
	share nodeShare
}

// site is a place interpolation reads from: a data file's key, or a level
// of a hiera.yaml.
type site struct {
	pos   format.Pos
	level string
}

// errNotFound is Puppet's throw :no_such_key for nested lookups.
var errNotFound = errors.New("not found")

func newNodeRun(c *compilation, w *worker, node Node) *nodeRun {
	n := &nodeRun{
		c:      c,
		w:      w,
		node:   node,
		stack:  lookupStack{names: make([]string, 0, 32)},
		scope:  newScope(node.Name, c.environment, node.Facts, node.Trusted),
		memo:   map[string]memoEntry{},
		warned: map[string]bool{},
	}
	n.interp.n = n
	n.opts = nodeOptions{n: n,
		modOpts: make(map[string]*optsResult, len(c.moduleNames)),
		defOpts: map[string]*optsResult{},
	}
	n.share.start(n)
	n.layers = nodeLayers{n: n, modules: make(map[string]*layerRun, len(c.moduleNames))}
	n.layers.global = n.layers.expandLayer(c.global)
	n.layers.env = n.layers.expandLayer(c.env)
	return n
}

func hierarchies(layers [3]*layerRun) [3]*format.Hierarchy {
	var hs [3]*format.Hierarchy
	for i, lr := range layers {
		if lr != nil && lr.hier.Present {
			hs[i] = &lr.hier
		}
	}
	return hs
}

// lookupStack is Puppet's Invocation name stack: the keys being looked up,
// for recursion detection, and a log of the names tested against it.
type lookupStack struct {
	names []string
	top   string // the key the current top-level lookup started from
	// checks logs every name tested against the stack: a result whose
	// computation tested a name holds only where that name is not on the
	// stack (Puppet would have reported a recursion). See holds.
	checks []string
}

// frame is a saved lookup stack.
type frame struct {
	stack []string
	top   string
}

// enter starts a new top-level lookup of key; leave restores the previous
// one. The new stack reuses the spare capacity after the current one, so a
// lookup allocates nothing here.
func (st *lookupStack) enter(key string) frame {
	f := frame{st.names, st.top}
	st.names = append(st.names[len(st.names):], key)
	st.top = key
	return f
}

func (st *lookupStack) leave(f frame) { st.names, st.top = f.stack, f.top }

// withStack runs f as a new top-level lookup of key.
func (st *lookupStack) withStack(key string, f func()) {
	fr := st.enter(key)
	f()
	st.leave(fr)
}

// meta runs a lookup of lookup_options: its reads are the node's, not the
// current key's.
func (n *nodeRun) meta(f func()) {
	n.share.Nested(1)
	n.stack.withStack(lookupOptionsKey, f)
	n.share.Nested(-1)
}

// push is Puppet's Invocation#check: a name already on the stack is a
// recursion.
func (st *lookupStack) push(name string) error {
	if st.onStack(name) {
		return lookupError(fmt.Sprintf("Recursive lookup detected in [%s]", strings.Join(st.names, ", ")))
	}
	st.names = append(st.names, name)
	return nil
}

// onStack tests name against the stack, logging the test (see checks).
func (st *lookupStack) onStack(name string) bool {
	st.checks = append(st.checks, name)
	return slices.Contains(st.names, name)
}

// memoEntry is a nested lookup's result and the names its computation
// tested against the stack.
type memoEntry struct {
	value  any
	tested []string
	secret bool // the value holds text decrypted from ENC[...]
}

// maxTestedLists bounds the lists testedList keeps per worker.
const maxTestedLists = 1 << 14

// testedAt is what the key at position i of nodeRun.keys tested.
type testedAt struct {
	i      int
	tested []string
}

// setKeyChecks records the names the key being compiled tested: the key
// that compileKeys appends to keys next, if it finds it (see dropChecks).
func (n *nodeRun) setKeyChecks(tested []string) {
	n.dropChecks()
	if len(tested) > 0 {
		n.keyTested = append(n.keyTested, testedAt{len(n.keys), tested})
	}
}

// dropChecks forgets what the key being compiled tested: it is not one of
// keys (nothing holds it, or its module failed).
func (n *nodeRun) dropChecks() {
	if l := len(n.keyTested); l > 0 && n.keyTested[l-1].i == len(n.keys) {
		n.keyTested = n.keyTested[:l-1]
	}
}

// testedOf returns the names the key at position i of keys tested.
func (n *nodeRun) testedOf(i int) []string {
	if j, ok := slices.BinarySearchFunc(n.keyTested, i, func(t testedAt, i int) int { return t.i - i }); ok {
		return n.keyTested[j].tested
	}
	return nil
}

// holds reports whether a result that tested these names is the answer
// here too: none of them is on the stack, so every test passes again. A
// result reused counts its tests as made, for the results that contain it.
func (st *lookupStack) holds(tested []string) bool {
	for _, t := range tested {
		if slices.Contains(st.names, t) {
			return false
		}
	}
	st.checks = append(st.checks, tested...)
	return true
}

func (st *lookupStack) pop() { st.names = st.names[:len(st.names)-1] }

// leaf answers one location for a key: its value, interpolated for the node.
// Interpolation happens here, lazily, as Puppet does it when it reads the
// location.
// asked is the key as the lookup was asked, for the prefix Puppet gives
// errors raised in the global layer (see inGlobal).
func (n *nodeRun) leaf(root, asked string, g, e, m *layerRun, useDefault bool) hiera.Leaf {
	layers := [3]*layerRun{g, e, m}
	return func(layer format.Layer, level, loc int) (any, bool, error) {
		lr := layers[layer]
		if useDefault {
			lr = m
		}
		if lr == nil {
			return nil, false, nil
		}
		files := lr.files
		if useDefault {
			files = lr.defFiles
		}
		df := files[level][loc]
		if df == nil {
			return nil, false, nil
		}
		h := &lr.hier
		if useDefault {
			h = lr.def
		}
		confined := n.confine(layer, useDefault)
		v, found, err := n.readKey(df, root, h.Levels[level].Name)
		if confined {
			n.globalOnly--
		}
		if err != nil && layer == format.LayerGlobal && !useDefault {
			err = inGlobal(asked, asFormatError(err))
		}
		return v, found, err
	}
}

// confine is called before data of layer (of a default_hierarchy when
// def) is read: it confines the nested lookups the data makes, when the
// layer does (see confinesLookups), and reports whether it did; the caller
// then decrements n.globalOnly once the data is read.
func (n *nodeRun) confine(layer format.Layer, def bool) bool {
	if layer == format.LayerGlobal && !def && n.c.confinesLookups() {
		n.globalOnly++
		return true
	}
	return false
}

// confinesLookups reports whether the nested lookups (%{lookup()},
// %{hiera()}, %{alias()}) in the global layer's data search the global
// layer alone: Puppet's GlobalDataProvider confines those of a Hiera 3
// global config "same as for hiera_xxx functions", unless the environment
// has a version 5 hiera.yaml (none, version 4, or version 3, which Puppet
// ignores, do not count). Confined, a lookup finds no environment or
// module data, nor a module's default_hierarchy.
func (c *compilation) confinesLookups() bool {
	envV5 := c.env != nil && c.env.present && c.env.legacy == 0
	return c.global != nil && c.global.present && c.global.legacy == 3 && !envV5
}

// inGlobal gives an error raised in the global layer Puppet's prefix: its
// global provider's error handler adds "Lookup of key 'K' failed: " (K the
// key as asked) to every error but those that carry an issue code, which
// among Hiera's are interpolation's own (see puppetIssue).
func inGlobal(asked string, err *format.Error) *format.Error {
	if puppetIssue(err.Message) {
		return err
	}
	e := *err
	e.Message = fmt.Sprintf("Lookup of key '%s' failed: %s", asked, e.Message)
	return &e
}

// puppetIssue reports whether a message is one of the errors interpolation
// raises with a Puppet issue code (Lookup::Interpolation#fail).
func puppetIssue(msg string) bool {
	return msg == errMethodsNotAllowed || msg == errAliasNotEntire ||
		strings.HasPrefix(msg, "Unknown interpolation method '")
}

// readKey reads key from a data file (of the named level) and interpolates it.
func (n *nodeRun) readKey(df *dataFile, key, level string) (any, bool, error) {
	if df.err != nil {
		return nil, false, df.err
	}
	i, ok := df.index[key]
	if !ok {
		return nil, false, nil
	}
	v, err := n.readEntry(df, i, level)
	return v, err == nil, err
}

// readEntry reads entry i of a loaded data file and interpolates it.
func (n *nodeRun) readEntry(df *dataFile, i int, level string) (any, error) {
	if msg := df.invalid[i]; msg != "" {
		if df.pending != nil && df.pending[i] != nil {
			if err := n.interpolatePending(df, i, level); err != nil {
				return nil, err
			}
		}
		return nil, &format.Error{Message: msg, Pos: df.pos[i].In(df.path)}
	}
	if df.secret != nil && df.secret[i] {
		n.secret = true
	}
	v := df.hash.Value(i)
	if !df.interp[i] {
		return v, nil
	}
	saved := n.interp.at
	n.interp.at = site{df.pos[i].In(df.path), level}
	aliases := n.interp.aliases
	// Decrypted text, or the value of a key that lookup_options convert
	// to Sensitive: its messages do not quote it.
	secret := df.secret != nil && df.secret[i] || n.convertsToSensitive(df.hash.Key(i))
	if secret {
		n.interp.hide++
	}
	x, err := n.interp.interpolatePlanned(v, df.plans[i], true)
	if secret {
		n.interp.hide--
	}
	n.interp.at = saved
	if err == nil && n.interp.aliases != aliases {
		// Only an alias() inserts structure: a value grows past what its
		// data file holds (which dataload bounds) only through one.
		if serr := checkSize(x); serr != nil {
			err = serr
		}
	}
	if err != nil {
		fe := asFormatError(err)
		if fe.File == "" {
			fe = &format.Error{Message: fe.Message, Pos: df.pos[i].In(df.path)}
		}
		if secret {
			if msg := hiera.RedactMessage(fe.Message, v); msg != fe.Message {
				e := *fe
				e.Message = msg
				fe = &e
			}
		}
		return nil, fe
	}
	return x, nil
}

// interpolatePending interpolates the texts of an eyaml file's invalid
// entry i that hiera-eyaml interpolates before it meets the entry's error
// (see pendingTexts), and returns the first error they give.
func (n *nodeRun) interpolatePending(df *dataFile, i int, level string) error {
	p := df.pending[i]
	saved := n.interp.at
	n.interp.at = site{df.pos[i].In(df.path), level}
	defer func() { n.interp.at = saved }()
	if p.secret {
		n.interp.hide++
		defer func() { n.interp.hide-- }()
	}
	for _, t := range p.texts {
		if _, err := n.interp.interpolateString(t, true); err != nil {
			fe := asFormatError(err)
			if fe.File == "" {
				fe = &format.Error{Message: fe.Message, Pos: df.pos[i].In(df.path)}
			}
			if p.secret {
				texts := make([]any, len(p.texts))
				for j, t := range p.texts {
					texts[j] = t
				}
				fe = &format.Error{Message: hiera.RedactMessage(fe.Message, texts...), Pos: fe.Pos, Level: fe.Level}
			}
			return fe
		}
	}
	return nil
}

// convertsToSensitive reports whether lookup_options convert key, a data
// file's key, to Sensitive.
func (n *nodeRun) convertsToSensitive(key any) bool {
	ks, _ := key.(string)
	if ks == "" || ks == lookupOptionsKey {
		return false
	}
	spec, _ := n.opts.optionsFor(hiera.ModuleOf(ks)).convertTo(ks)
	return len(spec) > 0 && spec[0] == "Sensitive"
}

// lookupWithDefault is the lookup()/hiera() interpolation method: a full
// lookup of the key whose default is "". A key converted to Sensitive
// gives the Sensitive's text, as Puppet's interpolation inserts it.
func (n *nodeRun) lookupWithDefault(text string) (any, error) {
	v, err := n.lookup(text)
	var se *sensitiveKey
	switch {
	case errors.Is(err, errNotFound):
		return "", nil
	case errors.As(err, &se):
		return redacted, nil
	}
	return v, err
}

// aliasWithDefault is the alias() interpolation method: lookupWithDefault,
// except that the value of a key converted to Sensitive would be the
// Sensitive itself, which bundles cannot hold inside a key: an error.
func (n *nodeRun) aliasWithDefault(text string) (any, error) {
	v, err := n.lookup(text)
	var se *sensitiveKey
	switch {
	case errors.Is(err, errNotFound):
		return "", nil
	case errors.As(err, &se):
		return nil, sensitiveError(se.key)
	}
	return v, err
}

// redacted is how Puppet's interpolation shows a Sensitive (its to_s).
const redacted = "Sensitive [value redacted]"

// sensitiveKey is what lookup returns for a key its lookup_options convert
// to Sensitive: the interpolation method decides what it gives.
type sensitiveKey struct{ key string }

func (e *sensitiveKey) Error() string { return sensitiveError(e.key).Message }

// lookup is a full nested lookup of key text (as lookup() in data does).
func (n *nodeRun) lookup(text string) (any, error) {
	if text == lookupOptionsKey || strings.HasPrefix(text, lookupOptionsKey+".") {
		return nil, errNotFound
	}
	k, err := n.w.parseExpr(text)
	if err != nil {
		return nil, asFormatError(err)
	}
	// A nested lookup has no lookup-time merge: Puppet reads the key's
	// lookup_options and builds its merge strategy (LookupAdapter#lookup,
	// then do_lookup) before any data provider runs, so a bad merge there
	// fails before the recursion test.
	if _, ferr := n.mergeOfKey(k); ferr != nil {
		return nil, ferr
	}
	// Puppet tests the key against the stack before any data is read, in
	// the global layer's provider, whose error handler prefixes the key of
	// this lookup (the one that met the cycle).
	if n.stack.onStack(text) {
		return nil, lookupError(fmt.Sprintf("Lookup of key '%s' failed: Recursive lookup detected in [%s]", text, strings.Join(n.stack.names, ", ")))
	}
	// Results computed earlier (here, or as a compiled key) are reused only
	// where they hold: their computation tested no name now on the stack.
	memoKey := text
	if n.globalOnly > 0 {
		memoKey = "\x00global:" + text // a confined lookup's answer is its own
	}
	if e, ok := n.memo[memoKey]; ok && n.stack.holds(e.tested) {
		n.secret = n.secret || e.secret
		return e.value, nil
	}
	// Only a text that is its own root names a compiled key: a quoted
	// text, "x", names root x, not a key written "x" with its quotes.
	if len(k.Segments) == 0 && k.Root == text && n.globalOnly == 0 {
		if i, ok := slices.BinarySearchFunc(n.keys, text, func(k format.Key, name string) int { return strings.Compare(k.Name, name) }); ok && n.keys[i].Err == nil && n.stack.holds(n.testedOf(i)) {
			if n.keys[i].Sensitive() {
				return nil, &sensitiveKey{text}
			}
			n.secret = n.secret || n.keys[i].Secret
			return n.keys[i].Value, nil
		}
	}
	if len(n.stack.names) >= maxLookupDepth {
		return nil, limitError("lookup of key '%s' nested %d deep", text, len(n.stack.names))
	}
	mark := len(n.stack.checks)
	n.stack.names = append(n.stack.names, text)
	n.share.Nested(1)
	outer := n.secret
	n.secret = false
	// The key's own data is hidden only if it is secret itself (its
	// errors pass back through the caller's, see hidden).
	hide := n.interp.hide
	n.interp.hide = 0
	v, found, ferr := n.resolveKey(text, k)
	n.interp.hide = hide
	secret := n.secret
	n.secret = outer || secret
	n.share.Nested(-1)
	n.stack.pop()
	if ferr != nil {
		return nil, ferr
	}
	if !found {
		return nil, errNotFound
	}
	if v, err = n.convert(k, v, secret); err != nil {
		var se *sensitiveKey
		if errors.As(err, &se) {
			n.secret = outer // what the interpolation inserts holds no secret
			return nil, err
		}
		return nil, asFormatError(err)
	}
	n.memo[memoKey] = memoEntry{value: v, tested: n.w.testedList(n.stack.checks[mark:]), secret: secret}
	return v, nil
}

// convert applies the root key's convert_to to what a nested lookup found.
// A Sensitive is not a value data can hold: convert reports it with a
// *sensitiveKey (see lookupWithDefault). secret says v holds decrypted
// text, which its error does not quote.
func (n *nodeRun) convert(k hiera.Key, v any, secret bool) (any, error) {
	opts, oerr := n.opts.keyOptions(k.Module)
	if oerr != nil {
		return nil, oerr
	}
	ko := opts.of(k.Root)
	spec, err := ko.conv, ko.convErr
	if err != nil || len(spec) == 0 {
		return v, err
	}
	secret = secret || ko.secret
	if spec[0] == "Sensitive" {
		return nil, &sensitiveKey{k.Root}
	}
	return hiera.Convert(k.Text, spec, v, secret) // the key as asked ("k.a")
}

func sensitiveError(key string) *format.Error {
	return lookupError(fmt.Sprintf("hieracc cannot interpolate key '%s': its lookup_options convert it to Sensitive, which cannot be held in other data ahead of time", key))
}

// resolveKey resolves the root key of k under its lookup_options and digs
// into it, falling back to the module's default_hierarchy when nothing
// has the root key or digging finds nothing, as Puppet does.
func (n *nodeRun) resolveKey(text string, k hiera.Key) (any, bool, *format.Error) {
	merge, ferr := n.mergeOfKey(k)
	if ferr != nil {
		return nil, false, ferr
	}
	layers := n.layers.of(k.Module)
	if n.globalOnly > 0 {
		layers = [3]*layerRun{n.layers.global, nil, nil}
	}
	v, found, err := hiera.Resolve(merge, hierarchies(layers), n.leaf(k.Root, text, layers[0], layers[1], layers[2], false))
	err = hiera.InLookupOf(text, err)
	if err == nil && found {
		v, found, err = k.Dig(v)
	}
	if err != nil {
		return nil, false, asFormatError(err)
	}
	if found || n.globalOnly > 0 {
		return v, found, nil
	}
	v, found, ferr = n.resolveDefault(k)
	if ferr != nil || !found {
		return nil, false, ferr
	}
	v, found, err = k.Dig(v)
	return v, found, asFormatError(err)
}

// mergeOfKey is the merge the lookup_options of k's root key configure.
func (n *nodeRun) mergeOfKey(k hiera.Key) (format.Merge, *format.Error) {
	opts, oerr := n.opts.keyOptions(k.Module)
	if oerr != nil {
		return format.Merge{}, oerr
	}
	merge, merr := opts.mergeOf(k.Root)
	if merr != nil {
		return format.Merge{}, asFormatError(merr)
	}
	return merge, nil
}

// resolveDefault searches the module's default_hierarchy, under its own
// lookup_options only.
func (n *nodeRun) resolveDefault(k hiera.Key) (any, bool, *format.Error) {
	lr := n.layers.module(k.Module)
	if lr == nil || lr.def == nil {
		return nil, false, nil
	}
	dopts, derr := n.opts.defaultOptions(k.Module, lr)
	if derr != nil {
		return nil, false, derr
	}
	m, err := dopts.mergeOf(k.Root)
	if err != nil {
		return nil, false, asFormatError(err)
	}
	v, found, err := hiera.ResolveDefault(m, lr.def, n.leaf(k.Root, k.Root, nil, nil, lr, true))
	if err != nil {
		return nil, false, asFormatError(err)
	}
	return v, found, nil
}

// lookupError makes a lookup failure with Puppet's message.
func lookupError(msg string) *format.Error { return &format.Error{Message: msg} }

// asFormatError converts any error to a *format.Error, keeping one as is.
func asFormatError(err error) *format.Error {
	if err == nil {
		return nil
	}
	var fe *format.Error
	if errors.As(err, &fe) {
		return fe
	}
	return &format.Error{Message: err.Error()}
}

// warnUndefined reports a variable that is not in scope, as Puppet's
// "Undefined variable" warning.
func (n *nodeRun) warnUndefined(name string) {
	if n.interp.hide > 0 {
		name = hiera.Redacted
	}
	n.warn(fmt.Sprintf("Undefined variable '%s'", name))
}

// warn reports a warning at the site being interpolated, once per node and
// place.
func (n *nodeRun) warn(msg string) {
	if n.share.Quiet() {
		return
	}
	d := diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: n.interp.at.pos,
		Level: n.interp.at.level, Key: n.stack.top, Node: n.node.Name, Message: msg}
	if d.Key == lookupOptionsKey {
		d.Key = ""
	}
	n.emitWarning(d)
}

func (n *nodeRun) emitWarning(d diagnostics.Diagnostic) {
	n.warnings++
	n.share.Warned(d)
	if s := d.String(); !n.warned[s] {
		n.warned[s] = true
		n.diags = append(n.diags, d)
	}
}
