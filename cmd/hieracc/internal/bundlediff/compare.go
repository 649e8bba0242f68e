package bundlediff

// Stage: find the nodes of both folders, skip those whose digests match,
// and diff the others bundle by bundle.

import (
	"errors"
	"fmt"
	"path"
	goruntime "runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/bundleset"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
	"github.com/hieracc/hieracc/runtime"
)

// Compare compares the bundles of two folders written by `hieracc compile`
// (its --out): OLD/<node>.bundle with NEW/<node>.bundle for every node of
// either folder that f selects. Either folder may instead hold the
// folders of a sharded compile's shards (package bundleset). A folder
// that cannot be read, holds no bundle, or a selection of no node is an
// error, as is a bundle that cannot be read; the error names the file.
func Compare(oldDir, newDir string, f Filter) (*Report, error) {
	return CompareProgress(oldDir, newDir, f, nil)
}

// CompareProgress is Compare, calling progress (when not nil) after each
// node, with the nodes done and their total, from one goroutine.
func CompareProgress(oldDir, newDir string, f Filter, progress func(done, total int)) (*Report, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	oldSet, err := listBundles(oldDir)
	if err != nil {
		return nil, err
	}
	newSet, err := listBundles(newDir)
	if err != nil {
		return nil, err
	}
	oldNodes, newNodes := oldSet.Nodes, newSet.Nodes
	all := len(oldNodes) + len(newNodes)
	oldNodes = slices.DeleteFunc(oldNodes, func(n string) bool { return !matchAny(f.Nodes, n, true) })
	newNodes = slices.DeleteFunc(newNodes, func(n string) bool { return !matchAny(f.Nodes, n, true) })
	if all > 0 && len(oldNodes)+len(newNodes) == 0 {
		return nil, fmt.Errorf("%w: no node of %s or %s matches %s", ErrNothingToCompare, oldDir, newDir, globList(f.Nodes))
	}

	var common, onlyOld, onlyNew []string
	for i, j := 0, 0; i < len(oldNodes) || j < len(newNodes); {
		switch {
		case j == len(newNodes) || (i < len(oldNodes) && oldNodes[i] < newNodes[j]):
			onlyOld = append(onlyOld, oldNodes[i])
			i++
		case i == len(oldNodes) || newNodes[j] < oldNodes[i]:
			onlyNew = append(onlyNew, newNodes[j])
			j++
		default:
			common = append(common, oldNodes[i])
			i, j = i+1, j+1
		}
	}

	r, err := compareAll(common, oldSet, onlyOld, newSet, onlyNew, &f, progress)
	if err != nil {
		return nil, err
	}
	r.Old, r.New = oldDir, newDir
	return r, nil
}

// compareAll compares the nodes of both sets (common) and verifies the
// bundles of the others, streaming: nodes are compared in parallel, a
// bounded window ahead of the report, which takes them in order and keeps
// only the distinct changes and the nodes' names (grouper). Every bundle is
// verified (length and digest, without decoding), so an equal digest is
// one that holds; the nodes whose digests differ are decoded, sharing
// what the nodes of one slice share (comparer). Every bundle that cannot
// be read is named, not only the first.
func compareAll(common []string, oldSet *bundleset.Set, onlyOld []string, newSet *bundleset.Set, onlyNew []string, f *Filter, progress func(done, total int)) (*Report, error) {
	total := len(common) + len(onlyOld) + len(onlyNew)
	errs := make([]error, total)
	done := 0
	step := func() {
		done++
		if progress != nil {
			progress(done, total)
		}
	}
	workers := goruntime.GOMAXPROCS(0)
	window := 64 * workers
	c := newComparer(f)
	type result struct {
		cs  []Change
		ids [][32]byte
		err error
	}
	sem := make(chan struct{}, window)
	ready := make([]chan result, window)
	for i := range ready {
		ready[i] = make(chan result, 1)
	}
	jobs := make(chan int)
	go func() {
		for i := range common {
			sem <- struct{}{}
			jobs <- i
		}
		close(jobs)
	}()
	for range workers {
		go func() {
			w := c.worker()
			for i := range jobs {
				node := common[i]
				cs, ids, err := w.compareNode(node, oldSet.File(node), newSet.File(node))
				ready[i%window] <- result{cs, ids, err}
			}
		}()
	}
	g := newGrouper()
	for i, node := range common {
		res := <-ready[i%window]
		<-sem
		errs[i] = res.err
		if res.err == nil {
			g.add(node, res.cs, res.ids)
		}
		step()
	}

	var eg errgroup.Group
	eg.SetLimit(workers)
	for i, file := range onlyFiles(oldSet, onlyOld, newSet, onlyNew) {
		eg.Go(func() error {
			var h format.Header
			h, errs[len(common)+i] = verify(file.path, file.node)
			c.revs.note(i < len(onlyOld), h.SourceRevision)
			return nil
		})
	}
	eg.Wait()
	for range len(onlyOld) + len(onlyNew) {
		step()
	}
	if err := badBundles(errs); err != nil {
		return nil, err
	}
	r := g.finish(onlyOld, onlyNew)
	r.OldRevision, r.NewRevision = c.revs.get()
	return r, nil
}

type nodeFile struct{ node, path string }

// onlyFiles lists the bundles of the nodes found on one side only.
func onlyFiles(oldSet *bundleset.Set, onlyOld []string, newSet *bundleset.Set, onlyNew []string) []nodeFile {
	var out []nodeFile
	for _, side := range []struct {
		set   *bundleset.Set
		nodes []string
	}{{oldSet, onlyOld}, {newSet, onlyNew}} {
		for _, n := range side.nodes {
			out = append(out, nodeFile{n, side.set.File(n)})
		}
	}
	return out
}

// maxBadShown bounds the bundles a BadBundlesError names in its message.
const maxBadShown = 10

// BadBundlesError lists the bundles that cannot be read, are not bundles,
// are damaged or hold another node: a comparison that meets one is not
// made (exit 2), since its "unchanged" or "only in NEW" would be a guess.
type BadBundlesError struct {
	Errs []error // one per bundle, in node order
}

func (e *BadBundlesError) Error() string {
	if len(e.Errs) == 1 {
		return e.Errs[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d bundles cannot be read:", len(e.Errs))
	for _, err := range e.Errs[:min(len(e.Errs), maxBadShown)] {
		b.WriteString("\n  " + err.Error())
	}
	if n := len(e.Errs) - maxBadShown; n > 0 {
		fmt.Fprintf(&b, "\n  and %d more", n)
	}
	return b.String()
}

func (e *BadBundlesError) Unwrap() []error { return e.Errs }

func badBundles(errs []error) error {
	var bad []error
	for _, err := range errs {
		if err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &BadBundlesError{Errs: bad}
}

// listBundles returns the bundles of dir (see package bundleset: a
// folder compile wrote, or a folder of the shards' folders).
func listBundles(dir string) (*bundleset.Set, error) {
	set, bad, err := bundleset.Read(dir)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, &BadBundlesError{Errs: bad}
	}
	if len(set.Nodes) == 0 {
		return nil, fmt.Errorf("%w: no bundles (*%s) in %s", ErrNothingToCompare, bundleset.Ext, dir)
	}
	return set, nil
}

// verify checks that file is a whole, undamaged bundle of node (see
// format.VerifyFile) and returns its header.
func verify(file, node string) (format.Header, error) {
	h, err := format.VerifyFile(file)
	if err != nil {
		return h, fmt.Errorf("%s: %w", file, err)
	}
	// A renamed or misplaced file must not stand for another node.
	if h.Node != node {
		return h, fmt.Errorf("%s holds the bundle of node %s, not %s", file, h.Node, node)
	}
	return h, nil
}

// details reads a whole bundle through the runtime, as agents do, with
// its shared details file, in its own folder (beside it). It is a
// variable so that tests can count the bundles decoded.
var details = func(file string) (*format.Bundle, error) {
	b, err := runtime.Open(file)
	if err != nil {
		return nil, err
	}
	d, err := b.Details()
	if errors.Is(err, runtime.ErrNoSharedDetails) {
		return nil, err // names the bundle and its shared details file
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return d, nil
}

// diffBundles lists every change from od to nd that f selects.
func diffBundles(od, nd *format.Bundle, f *Filter) []Change {
	var out []Change
	// A node error fails every lookup and leaves no key in the bundle:
	// it is the whole story of the node.
	if od.NodeError != nil || nd.NodeError != nil {
		if !sameError(od.NodeError, nd.NodeError) {
			out = append(out, Change{Kind: ErrorChanged, Old: errSide(od.NodeError), New: errSide(nd.NodeError)})
		}
		return out
	}
	// Likewise a module error fails every key of its module, and the
	// compiler records none of them.
	failed := map[string]bool{}
	oldMods, newMods := moduleErrors(od), moduleErrors(nd)
	for _, m := range sortedUnion(oldMods, newMods) {
		oe, ne := oldMods[m], newMods[m]
		failed[m] = true
		if !sameError(oe, ne) && f.wantsModule(m) {
			out = append(out, Change{Module: m, Kind: ErrorChanged, Old: errSide(oe), New: errSide(ne)})
		}
	}

	if f.wantsKey("lookup_options") {
		out = append(out, diffOptions(od, nd)...)
	}

	ok, nk := od.Keys, nd.Keys
	for i, j := 0, 0; i < len(ok) || j < len(nk); {
		var o, n *format.Key
		switch {
		case j == len(nk) || (i < len(ok) && ok[i].Name < nk[j].Name):
			o = &ok[i]
			i++
		case i == len(ok) || nk[j].Name < ok[i].Name:
			n = &nk[j]
			j++
		default:
			o, n = &ok[i], &nk[j]
			i, j = i+1, j+1
		}
		name := keyName(o, n)
		if failed[hiera.ModuleOf(name)] || !f.wantsKey(name) {
			continue
		}
		out = append(out, keyChanges(name, od, o, nd, n, f)...)
	}
	return out
}

// keyChanges lists the changes of one key that f shows: secret keys'
// redacted.
func keyChanges(name string, od *format.Bundle, o *format.Key, nd *format.Bundle, n *format.Key, f *Filter) []Change {
	cs := diffKey(name, od, o, nd, n)
	cs = wholeChanges(name, od, o, nd, n, cs, f.IgnoreOrder)
	if !f.ShowSecrets && (hidden(o) || hidden(n)) {
		cs = redact(name, od, o, nd, n, cs)
	}
	return cs
}

// diffOptions compares the lookup_options entries whose merge fails keys
// that a bundle does not hold (format version 4's options): a change there
// changes what looking such a key up gives, though no key changed. Each is
// a change of key "lookup_options" at the entry's name.
func diffOptions(od, nd *format.Bundle) []Change {
	return diffOptionErrors(optionErrorsOf(od.Options), optionErrorsOf(nd.Options))
}

func diffOptionErrors(oe, ne map[string]*format.Error) []Change {
	var out []Change
	for _, name := range sortedUnion(oe, ne) {
		if o, n := oe[name], ne[name]; !sameError(o, n) {
			out = append(out, Change{Key: "lookup_options", Path: pointer([]string{name}), Kind: ErrorChanged, Old: errSide(o), New: errSide(n)})
		}
	}
	return out
}

// optionErrorsOf maps each failing lookup_options entry of a bundle's
// options to its failure: the first met, scopes in order (an environment
// entry shows in each module's scope too).
func optionErrorsOf(options []format.OptionScope) map[string]*format.Error {
	m := map[string]*format.Error{}
	for _, sc := range options {
		for _, es := range [2][]format.OptionEntry{sc.Literal, sc.Pattern} {
			for _, e := range es {
				if _, seen := m[e.Name]; !seen && e.Err != nil {
					m[e.Name] = e.Err
				}
			}
		}
	}
	return m
}

// hidden reports whether a key's values are not shown: it holds decrypted
// text, or its lookups return a Sensitive.
func hidden(k *format.Key) bool { return k != nil && (k.Secret || k.Sensitive()) }

// redact turns the changes of a secret key into one change of the whole
// key whose sides say where the values came from, not what they are.
func redact(name string, od *format.Bundle, o *format.Key, nd *format.Bundle, n *format.Key, cs []Change) []Change {
	if len(cs) == 0 {
		return nil
	}
	c := Change{Key: name, Kind: Changed}
	if len(cs) == 1 && cs[0].Path == "" {
		c.Kind = cs[0].Kind // added, removed, error or type: said of the whole key
	}
	hide := func(b *format.Bundle, k *format.Key) *Side {
		if k == nil {
			return nil
		}
		s := keySide(b, k)
		s.Value, s.Keys, s.Secret = nil, nil, s.Err == nil
		return s
	}
	c.Old, c.New = hide(od, o), hide(nd, n)
	return []Change{c}
}

func keyName(o, n *format.Key) string {
	if o != nil {
		return o.Name
	}
	return n.Name
}

// diffKey compares one key of two bundles; o or n is nil where the key is
// absent.
func diffKey(name string, od *format.Bundle, o *format.Key, nd *format.Bundle, n *format.Key) []Change {
	switch {
	case o == nil:
		return []Change{{Key: name, Kind: Added, New: keySide(nd, n)}}
	case n == nil:
		return []Change{{Key: name, Kind: Removed, Old: keySide(od, o)}}
	case o.Sealed || n.Sealed:
		// Sealed to the node: the ciphertexts change exactly when the
		// key's value, error or sources do (when signed; see SPEC.md).
		if o.Sealed && n.Sealed && o.Ciphertext == n.Ciphertext {
			return nil
		}
		return []Change{{Key: name, Kind: Changed, Old: keySide(od, o), New: keySide(nd, n)}}
	case o.Err != nil || n.Err != nil:
		if sameError(o.Err, n.Err) {
			return nil
		}
		return []Change{{Key: name, Kind: ErrorChanged, Old: keySide(od, o), New: keySide(nd, n)}}
	}
	var vds []valueDiff
	diffValues(nil, o.Value, n.Value, &vds)
	out := make([]Change, len(vds))
	for i, vd := range vds {
		c := Change{Key: name, Path: pointer(vd.path), Kind: vd.kind}
		if vd.hasOld {
			c.Old = &Side{Value: vd.old, Keys: vd.oldKeys, Sources: sources(od, o, vd.path, vd.old)}
		}
		if vd.hasNew {
			c.New = &Side{Value: vd.new, Keys: vd.newKeys, Sources: sources(nd, n, vd.path, vd.new)}
		}
		if vd.kind == Reordered { // the keys say it all
			c.Old.Value, c.New.Value = nil, nil
		}
		out[i] = c
	}
	return out
}

// keySide is a whole key's value or error, with its sources.
func keySide(b *format.Bundle, k *format.Key) *Side {
	if k.Sealed {
		return &Side{Secret: true, Sealed: true}
	}
	if k.Err != nil {
		return &Side{Err: k.Err, Sources: sources(b, k, nil, nil)}
	}
	return &Side{Value: k.Value, Sources: sources(b, k, nil, k.Value)}
}

func errSide(e *format.Error) *Side {
	if e == nil {
		return nil
	}
	return &Side{Err: e}
}

// sameError compares failures by message: the same failure at another line
// of a file is not a change.
func sameError(a, b *format.Error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Message == b.Message
}

func moduleErrors(b *format.Bundle) map[string]*format.Error {
	m := map[string]*format.Error{}
	for i := range b.Modules {
		if e := b.Modules[i].Err; e != nil {
			m[b.Modules[i].Name] = e
		}
	}
	return m
}

func sortedUnion[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// matchAny reports whether name matches one of globs; an empty list gives
// empty. The globs were validated, so path.Match cannot fail.
func matchAny(globs []string, name string, empty bool) bool {
	if len(globs) == 0 {
		return empty
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

func (f *Filter) wantsKey(name string) bool {
	return matchAny(f.Keys, name, true) && !matchAny(f.IgnoreKeys, name, false)
}

// wantsModule reports whether the key globs leave any key of module m in:
// its error fails them all. A glob can select keys of m when it matches
// the name "m::*" itself ("*", "ntp::*") or starts with "m::" before its
// first wildcard ("ntp::servers", "ntp::s*").
func (f *Filter) wantsModule(m string) bool {
	all := m + "::*"
	if matchAny(f.IgnoreKeys, all, false) {
		return false
	}
	if len(f.Keys) == 0 {
		return true
	}
	for _, g := range f.Keys {
		literal := g
		if i := strings.IndexAny(g, `*?[\`); i >= 0 {
			literal = g[:i]
		}
		if ok, _ := path.Match(g, all); ok || strings.HasPrefix(literal, m+"::") {
			return true
		}
	}
	return false
}

func globList(globs []string) string {
	q := make([]string, len(globs))
	for i, g := range globs {
		q[i] = quote(g)
	}
	return strings.Join(q, ", ")
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
