package runtime

import (
	"crypto"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/trust"
)

// An Option says how Open, OpenBytes and the reloaders (runtime/reload)
// check and open a bundle. A Trust is one; given several, they add up:
// each sets the fields it gives (a later one replacing an earlier one's),
// and none clears a check another asked for, so an option appended to a
// caller's list can never turn verification off.
type Option interface{ apply(*Trust) }

// trustOf is the Trust that opts say.
func trustOf(opts []Option) Trust {
	var t Trust
	for _, o := range opts {
		// A nil *Trust, an Option too, is none, as a nil Option is: not a
		// panic in a Trust's method.
		if p, ok := o.(*Trust); o != nil && (!ok || p != nil) {
			o.apply(&t)
		}
	}
	return t
}

func (t Trust) apply(dst *Trust) {
	if t.Verifier != nil {
		dst.Verifier = t.Verifier
	}
	if t.Node != "" {
		dst.Node = t.Node
	}
	if t.Key != nil {
		dst.Key = t.Key
	}
}

// Trust is the Option by which Open, OpenBytes and the reloaders check a
// bundle and open its sealed secrets (format version 4). The zero Trust
// checks nothing beyond the digest and opens no secret, as Open without
// options does.
type Trust struct {
	// Verifier, when set, refuses any bundle it does not verify: unsigned
	// (ErrUnsigned), changed, renamed or damaged since it was signed
	// (ErrBadSignature), or signed by another signer (ErrUntrusted); the
	// error is a *SignatureError. See trust.NewKeyVerifier (the signer's
	// public keys) and trust.NewCAVerifier (a CA that issued the signer's
	// certificate, and who among its certificates may sign: a CA issues
	// every agent's), or trust.ReadKeyVerifier and trust.ReadCAVerifier.
	Verifier *trust.Verifier
	// Node is the certname of the node the bundle must be for: a bundle
	// of another node is refused (ErrWrongNode). With a Verifier and no
	// Node, a file must be named <certname>.bundle (the path as given, not
	// where a symbolic link leads) and be that node's, and a file named
	// otherwise is refused: the signature says who signed, the node says
	// for whom, and a bundle another node was given, renamed or copied
	// over this one's, verifies as well. OpenBytes, without a file
	// name, checks Node only.
	Node string
	// Key, when set, is the node's private key (Puppet's
	// ssl/private_keys/<certname>.pem, read with trust.ReadPrivateKey):
	// the bundle's sealed keys are decrypted once, when it is opened, and
	// read as the others. A key that is not the bundle's node's fails the
	// open with ErrWrongKey. Without it, lookups of sealed keys fail with
	// a *SealedError (ErrSealed) and every other key reads.
	Key crypto.PrivateKey
}

// Errors of signed and sealed bundles; test with errors.Is.
var (
	ErrUnsigned     = trust.ErrUnsigned
	ErrBadSignature = trust.ErrBadSignature
	ErrUntrusted    = trust.ErrUntrusted
	ErrWrongKey     = trust.ErrWrongKey
	// ErrSealed is matched by the error of a lookup of a key sealed to
	// the node, in a bundle opened without the node's private key.
	ErrSealed = errors.New("sealed")
	// ErrWrongNode is matched by the error of opening a bundle that is
	// not for the node it must be for (Trust.Node, or its file's name).
	ErrWrongNode = errors.New("bundle of another node")
)

// SignatureError is a bundle that its Trust's verifier refused: Err is
// ErrUnsigned, ErrBadSignature or ErrUntrusted.
type SignatureError = trust.SignatureError

// SealedError is the error of a lookup of a sealed key without the
// node's private key (see Trust.Key).
type SealedError struct {
	Key  string // the key looked up
	Node string // the node the key is sealed to
}

func (e *SealedError) Error() string {
	return fmt.Sprintf("key '%s' is sealed to node %s: opening it takes the node's private key", e.Key, e.Node)
}

// Is makes errors.Is(err, ErrSealed) true.
func (e *SealedError) Is(target error) bool { return target == ErrSealed }

// openBytes opens data, read from the file *path (nil for bytes).
func openBytes(data []byte, path *string, t Trust) (*Bundle, error) {
	x, err := format.DecodeIndex(data)
	if err != nil {
		return nil, err
	}
	if t.Verifier != nil {
		if err := x.VerifySignature(t.Verifier); err != nil {
			return nil, err
		}
	}
	if err := checkNode(path, x.Node, t); err != nil {
		return nil, err
	}
	if t.Key != nil {
		if err := x.Unseal(t.Key); err != nil {
			return nil, err
		}
	}
	return newBundle(x), nil
}

// bundleExt ends the name of a bundle file: <certname>.bundle.
const bundleExt = ".bundle"

// wrongNodeError is a bundle of node got where one of want was expected.
type wrongNodeError struct{ got, want string }

func (e *wrongNodeError) Error() string {
	return fmt.Sprintf("holds the bundle of node %s, not %s", e.got, e.want)
}

func (e *wrongNodeError) Is(target error) bool { return target == ErrWrongNode }

// checkNode checks that the bundle of node got may be opened from path
// (nil for bytes) under t: it must be t.Node's or, with a verifier and no
// t.Node, the node its file is named after.
func checkNode(path *string, got string, t Trust) error {
	want := t.Node
	if want == "" && path != nil && t.Verifier != nil {
		base := filepath.Base(*path)
		if want, _ = strings.CutSuffix(base, bundleExt); want == base || want == "" {
			return fmt.Errorf("%w: cannot tell which node's bundle %s must be: name the file <certname>%s or set Trust.Node", ErrWrongNode, base, bundleExt)
		}
	}
	if want != "" && got != want {
		return &wrongNodeError{got: got, want: want}
	}
	return nil
}

// Signature returns the bundle's signature, nil when it is unsigned. It
// was checked when the bundle was opened only if a verifier was given.
func (b *Bundle) Signature() *trust.Signature { return b.x.Signature }

// sealed is the error of a lookup of key, whose root is the i-th key, when
// that key is still sealed; nil otherwise.
func (b *Bundle) sealed(i int, key string) error {
	if !b.x.Keys[i].Sealed {
		return nil
	}
	return &SealedError{Key: key, Node: b.x.Node}
}
