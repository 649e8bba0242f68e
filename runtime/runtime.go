// Package runtime reads compiled Hiera bundles: it is what agents import to
// answer lookups for their node. A bundle holds every key of one node
// already resolved and merged, so a lookup is one hash probe that allocates
// nothing; lookup-time merges and explanations decode the rest of the
// bundle on first use.
//
// Open (or OpenBytes) a bundle, then:
//
//   - Lookup(key) returns the value as Puppet's lookup(key) would: nil,
//     bool, int64, float64, string, []any or *format.Hash (keys in order;
//     json.Marshal keeps it);
//   - Decode(key, &v) stores it in Go structs, maps and slices, as
//     encoding/json does; LookupString, LookupInt, LookupFloat, LookupBool,
//     LookupStrings and LookupHash are typed getters;
//   - LookupWith and LookupNames are the whole of lookup(): a merge, several
//     names, a value type (format/ptype), override, default_values_hash, a
//     default function (the lambda) and a default value;
//   - Details returns the whole bundle: where each value came from, which
//     package runtime/explain tells as puppet lookup --explain does.
//
// Errors: a key not found gives a *NotFoundError (errors.Is(err,
// ErrNotFound)); a failure recorded for the node, the key's module or the
// key is a *format.Error; a lookup-time merge that fails a *MergeError; a
// value of the wrong type a *ptype.MismatchError (LookupNames) or a
// *DecodeError (Decode, getters). Each Error() is Puppet's message where
// Puppet has one. "lookup_options" is never found, and dotted keys
// ("a.b.0") dig into the root key's value.
//
// Package runtime/reload keeps a bundle current: a file that the compiler
// replaces (reload.File, whose Watch reloads whenever the file is
// replaced), or a URL that hieracc serve answers (reload.HTTP), keeping
// the last good bundle. An agent that opens its bundle once does without
// it.
//
// Shared details files: a compile writes the details that nodes share
// (where each value came from, merge options) once, in
// details/<digest>.details beside the bundles (format.SharedDetailsName).
// Lookups need only the bundle. Details (so explanations), lookup-time
// merges and some dotted lookups also need that file: a bundle opened from
// a file (Open, a reload.File) reads it from its own folder on the first
// call that needs it (LoadSharedDetails reads it at once); one opened from
// bytes is given it with AttachSharedDetails. A missing, damaged or
// foreign file fails those calls with a *SharedDetailsError
// (ErrNoSharedDetails), never another answer.
//
// Signed and sealed bundles (format version 4): Open, OpenBytes
// and the reloaders take a Trust, a verifier that refuses bundles CI
// did not sign (a *SignatureError: ErrUnsigned, ErrBadSignature,
// ErrUntrusted; under a CA, the signer must be named), the node the
// bundle must be for (Trust.Node, or with a verifier the file's name
// <certname>.bundle: ErrWrongNode) and the node's private key that opens
// the secrets sealed to it (ErrWrongKey when it is another node's).
// Without the key, a lookup of a sealed key fails with a *SealedError
// (ErrSealed) and every other key reads.
//
// Values returned are shared with the bundle and with other callers: they
// must not be modified. A *Bundle is safe for concurrent use.
package runtime

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// Bundle is an opened bundle.
type Bundle struct {
	x *format.Index
	// simple is set when no node or module error can apply, so that a key
	// found in the index is the answer.
	simple bool
	// odd marks keys that a plain lookup must not return as they are:
	// names that parse as dotted or quoted keys, and "lookup_options". Nil
	// when there are none, as usual.
	odd []bool

	// sens holds, for each key whose lookups return a Sensitive
	// (convert_to Sensitive), its value wrapped once, so that Lookup
	// allocates nothing. Nil when there are none.
	sens []*Sensitive

	// path is the bundle's file, where its shared details file is found
	// (SharedDetailsFile); "" for a bundle opened from bytes.
	path string

	// The details, decoded on first use (Details). dmu serialises their
	// decoding and the attaching of the shared details file; a decoded
	// bundle is read without it.
	dmu      sync.Mutex
	details  atomic.Pointer[format.Bundle]
	derr     error // the details cannot be decoded: kept
	attached bool  // the shared details file is attached

	misses misses // the errors of keys not found, kept for the next miss
}

// Open reads and verifies the bundle at path (magic, version, checksums).
// Only a regular file is read (see format.ReadFile). Options (a Trust)
// add a verifier, the node the bundle must be for and the node's private
// key.
func Open(path string, opts ...Option) (*Bundle, error) {
	t := trustOf(opts)
	data, err := format.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	b, err := openBytes(data, &path, t)
	if err != nil {
		return nil, fmt.Errorf("runtime: open %s: %w", path, err)
	}
	b.path = path
	return b, nil
}

// OpenBytes verifies and opens an encoded bundle. It does not keep data.
// Options are Open's; a Trust's Node is checked (bytes have no file
// name).
func OpenBytes(data []byte, opts ...Option) (*Bundle, error) {
	return openBytes(data, nil, trustOf(opts))
}

// newBundle makes the Bundle of a decoded index.
func newBundle(x *format.Index) *Bundle {
	b := &Bundle{x: x, simple: x.NodeError == nil && len(x.ModuleErrors) == 0}
	for i := range x.Keys {
		// Sealed keys (not opened) take the slow path, which says so.
		if name := x.Keys[i].Name; name == lookupOptions || dottedOrQuoted(name) || x.Keys[i].Sealed {
			if b.odd == nil {
				b.odd = make([]bool, len(x.Keys))
			}
			b.odd[i] = true
		}
		if k := &x.Keys[i]; k.Sensitive && !k.Sealed {
			if b.sens == nil {
				b.sens = make([]*Sensitive, len(x.Keys))
			}
			b.sens[i] = &Sensitive{v: k.Value}
		}
	}
	return b
}

// dottedOrQuoted reports whether hiera.ParseKey would split name.
func dottedOrQuoted(name string) bool {
	return strings.IndexByte(name, '.') >= 0 || strings.IndexByte(name, '\'') >= 0 || strings.IndexByte(name, '"') >= 0
}

// Header returns the bundle's header: node, environment, revision, digest.
func (b *Bundle) Header() format.Header { return b.x.Header }

// Keys returns the names of the keys the bundle holds, sorted.
func (b *Bundle) Keys() []string {
	out := make([]string, len(b.x.Keys))
	for i := range b.x.Keys {
		out[i] = b.x.Keys[i].Name
	}
	return out
}

// Details returns the whole decoded bundle: merge options, contributions
// and hierarchies. It is decoded on the first call and shared: do not
// modify it. A bundle whose details continue in a shared details file
// (SharedDetailsFile) reads that file first: when it cannot (a
// *SharedDetailsError, errors.Is ErrNoSharedDetails), the next call tries
// again.
func (b *Bundle) Details() (*format.Bundle, error) {
	if d := b.details.Load(); d != nil {
		return d, nil
	}
	b.dmu.Lock()
	defer b.dmu.Unlock()
	if d := b.details.Load(); d != nil {
		return d, nil
	}
	if b.derr != nil {
		return nil, b.derr
	}
	if err := b.loadShared(); err != nil {
		return nil, err
	}
	d, err := b.x.Bundle()
	if err != nil {
		b.derr = err
		return nil, err
	}
	b.details.Store(d)
	return d, nil
}

// Lookup returns the value of key as Puppet's lookup(key) would. A key not
// found gives a *NotFoundError (errors.Is(err, ErrNotFound) holds); a
// failure recorded for the key, its module or the node is returned as a
// *format.Error. A plain key (no dots or quotes) costs one hash probe and
// allocates nothing, found or not.
func (b *Bundle) Lookup(key string) (any, error) {
	if b.simple {
		if i := b.x.Find(key); i >= 0 && (b.odd == nil || !b.odd[i]) {
			k := &b.x.Keys[i]
			if k.Err != nil {
				return nil, k.Err
			}
			if b.sens != nil && b.sens[i] != nil {
				return b.sens[i], nil
			}
			return k.Value, nil
		}
	}
	v, found, err := b.search(key, nil)
	if err == nil && !found {
		return nil, b.misses.get(key)
	}
	return v, err
}

const lookupOptions = "lookup_options"

// search looks key up in the bundle: Puppet's search_and_merge, with merge
// replacing the merge lookup_options give the key.
func (b *Bundle) search(key string, merge *format.Merge) (any, bool, error) {
	if key == lookupOptions || strings.HasPrefix(key, lookupOptions+".") {
		return nil, false, nil
	}
	// Puppet collects lookup_options from every level before any lookup,
	// so these fail a lookup even where data exists.
	if b.x.NodeError != nil {
		return nil, false, b.x.NodeError
	}
	k, err := hiera.ParseKey(key)
	if err != nil {
		return nil, false, err
	}
	if k.Module != "" {
		if err := b.x.ModuleError(k.Module); err != nil {
			return nil, false, err
		}
	}
	i := b.x.Find(k.Root)
	if i < 0 {
		return nil, false, b.optionsError(k, merge)
	}
	if err := b.sealed(i, key); err != nil {
		return nil, false, err
	}
	ik := &b.x.Keys[i]
	if merge == nil && ik.Err == nil && len(k.Segments) == 0 {
		if b.sens != nil && b.sens[i] != nil {
			return b.sens[i], true, nil
		}
		return ik.Value, true, nil // converted when compiled
	}
	v, found, err := b.find(key, k, i, merge)
	if err != nil || !found || !ik.Converts {
		return v, found, err
	}
	// The key's convert_to applies to what is found (not to a default).
	d, err := b.Details()
	if err != nil {
		return nil, false, err
	}
	dk := &d.Keys[i]
	if dk.Sensitive() {
		return &Sensitive{v: v}, true, nil
	}
	v, err = hiera.Convert(k.Text, dk.ConvertTo, v, dk.Secret) // the key as asked
	return v, err == nil, err
}

// optionsError is the failure of a lookup of a key the bundle does not
// hold: Puppet builds the key's merge from its lookup_options before it
// searches (unless the lookup gives one), and the module's
// default_hierarchy's own before it searches there, so an entry whose
// merge it rejects fails the lookup (format.OptionScope). Nil when none
// does, as usual.
func (b *Bundle) optionsError(k hiera.Key, merge *format.Merge) error {
	scopes := b.x.Options
	if len(scopes) == 0 {
		return nil
	}
	if merge == nil {
		s := format.FindOptionScope(scopes, k.Module, false)
		if s == nil && k.Module != "" {
			s = format.FindOptionScope(scopes, "", false) // a module without a hierarchy
		}
		if s != nil {
			if err := s.Match(k.Root); err != nil {
				return err
			}
		}
	}
	return b.defaultOptionsError(k)
}

// defaultOptionsError is the failure of the lookup_options of k's
// module's default_hierarchy for k, as Puppet meets it when it turns to
// the default_hierarchy (lookup-time merges do not apply there), or nil.
func (b *Bundle) defaultOptionsError(k hiera.Key) error {
	if k.Module == "" {
		return nil
	}
	if s := format.FindOptionScope(b.x.Options, k.Module, true); s != nil {
		if err := s.Match(k.Root); err != nil {
			return err
		}
	}
	return nil
}

// askedAs is a key's recorded error as a lookup of k.Text gives it. The
// bundle records it as a lookup of the key's root gives it, and Puppet
// tells them apart in two places: the prefix of an error raised in the
// global layer names the key as asked ("Lookup of key 'a.b' failed: ";
// testdata/conformance/global-error-prefix-dotted), and its recursion
// guard holds the key as asked, so a recursion chain starts with it
// ("[a.b, n, m]"; testdata/conformance/recursion-chain-dotted).
func askedAs(err *format.Error, k hiera.Key) error {
	if k.Text == k.Root {
		return err
	}
	msg := err.Message
	// A recursion is reported by the nested lookup that met it, whose
	// prefix names its own key (testdata/conformance/recursion-reused-results).
	if rest, ok := strings.CutPrefix(msg, "Lookup of key '"+k.Root+"' failed: "); ok && !strings.HasPrefix(rest, "Recursive lookup detected") {
		msg = "Lookup of key '" + k.Text + "' failed: " + rest
	}
	for _, end := range [...]string{", ", "]"} {
		if root := recursionChain + k.Root + end; strings.Contains(msg, root) {
			msg = strings.Replace(msg, root, recursionChain+k.Text+end, 1)
			break
		}
	}
	if msg == err.Message {
		return err
	}
	e := *err
	e.Message = msg
	return &e
}

// find is search without convert_to: what the merge and the dig find.
func (b *Bundle) find(key string, k hiera.Key, i int, merge *format.Merge) (any, bool, error) {
	ik := &b.x.Keys[i]
	if ik.Asked && len(k.Segments) > 0 {
		return b.asked(key, k, i, merge)
	}
	if merge != nil {
		return b.merged(key, k, i, *merge)
	}
	if ik.Err != nil && !(len(k.Segments) > 0 && ik.Converts && hiera.ConvertFailed(k.Root, ik.Err.Message)) {
		return nil, false, askedAs(ik.Err, k)
	}
	if ik.Converts && !ik.Sensitive {
		// The value was converted when compiled: dig into the merge of
		// the contributions instead.
		d, err := b.Details()
		if err != nil {
			return nil, false, err
		}
		return b.merged(key, k, i, d.Keys[i].Merge)
	}
	if len(k.Segments) == 0 {
		return ik.Value, true, nil
	}
	v, found, err := k.Dig(ik.Value)
	if err != nil || found {
		return v, found, err
	}
	// Puppet tries the module's default_hierarchy when digging into the
	// regular value finds nothing (the dig is inside its catch).
	d, err := b.Details()
	if err != nil {
		return nil, false, err
	}
	if dk := &d.Keys[i]; len(dk.Contributions) > 0 {
		return b.fromDefaults(d, k, dk.DefaultMerge, hiera.ContributionLeaf(dk.Defaults), len(dk.Defaults) > 0)
	}
	return nil, false, nil
}

// asked answers a dotted lookup of a key whose data looks the key itself
// up: Puppet's recursion guard then holds key as asked, not the root key,
// and the locations are read anew (format.Key.Asked).
func (b *Bundle) asked(key string, k hiera.Key, i int, merge *format.Merge) (any, bool, error) {
	d, err := b.Details()
	if err != nil {
		return nil, false, err
	}
	dk := &d.Keys[i]
	m := dk.Merge
	if merge != nil {
		m = *merge
	}
	a := dk.AskedAs(key)
	cs, ds := hiera.ContributionLeaf(a.Contributions), hiera.ContributionLeaf(a.Defaults)
	if a.Text == "" {
		cs, ds = chainFrom(key, a.Contributions), chainFrom(key, a.Defaults)
	}
	return b.resolve(key, k, d, m, cs, dk.DefaultMerge, ds, len(a.Defaults) > 0)
}

// chainFrom answers hiera.Resolve from the contributions of Asked's entry
// "", whose recursion chains leave out the key as asked: it comes first.
func chainFrom(key string, cs []format.Contribution) hiera.Leaf {
	l := hiera.ContributionLeaf(cs)
	return func(layer format.Layer, level, loc int) (any, bool, error) {
		v, found, err := l(layer, level, loc)
		var fe *format.Error
		if errors.As(err, &fe) && strings.Contains(fe.Message, recursionChain) {
			e := *fe
			e.Message = strings.ReplaceAll(e.Message, recursionChain, recursionChain+key+", ")
			err = &e
		}
		return v, found, err
	}
}

// recursionChain opens Puppet's recursion error's chain of keys.
const recursionChain = "Recursive lookup detected in ["

// merged answers a lookup with a lookup-time merge, recomputed from the
// contributions; the key's recorded error belongs to the configured merge
// and does not apply.
func (b *Bundle) merged(key string, k hiera.Key, i int, m format.Merge) (any, bool, error) {
	d, err := b.Details()
	if err != nil {
		return nil, false, err
	}
	dk := &d.Keys[i]
	return b.resolve(key, k, d, m, hiera.ContributionLeaf(dk.Contributions), dk.DefaultMerge, hiera.ContributionLeaf(dk.Defaults), len(dk.Defaults) > 0)
}

// resolve merges what cs answers with m and digs into the result, falling
// back to the module's default_hierarchy (ds, merged with dm; hasDefaults
// when it holds the key).
func (b *Bundle) resolve(key string, k hiera.Key, d *format.Bundle, m format.Merge, cs hiera.Leaf, dm format.Merge, ds hiera.Leaf, hasDefaults bool) (any, bool, error) {
	v, found, err := hiera.Resolve(m, d.Layers(k.Module), cs)
	if err != nil {
		err = hiera.InLookupOf(k.Text, err) // Puppet's prefix for the global layer's errors
		var recorded *format.Error
		if errors.As(err, &recorded) {
			return nil, false, askedAs(recorded, k)
		}
		return nil, false, &MergeError{Key: key, Merge: m, Err: err}
	}
	if found {
		v, found, err = k.Dig(v)
		if err != nil || found {
			return v, found, err
		}
	}
	return b.fromDefaults(d, k, dm, ds, hasDefaults)
}

// fromDefaults looks k up in its module's default_hierarchy, with the
// merge the default_hierarchy's own lookup_options give (a lookup-time
// merge does not apply there): ds answers it, when hasDefaults.
func (b *Bundle) fromDefaults(d *format.Bundle, k hiera.Key, dm format.Merge, ds hiera.Leaf, hasDefaults bool) (any, bool, error) {
	mod := d.Module(k.Module)
	if mod == nil || mod.Default == nil {
		return nil, false, nil
	}
	if err := b.defaultOptionsError(k); err != nil {
		return nil, false, err
	}
	if !hasDefaults {
		return nil, false, nil
	}
	v, found, err := hiera.ResolveDefault(dm, mod.Default, ds)
	if err != nil || !found {
		return nil, false, err
	}
	return k.Dig(v)
}
