package format

// Format version 4's signature and sealed keys (SPEC.md, "Signature" and
// "Sealed keys"); the cryptography is package trust's.

import (
	"crypto"
	"fmt"

	"github.com/hieracc/hieracc/format/internal/wire"
	"github.com/hieracc/hieracc/format/trust"
)

func readSeal(r *reader) (trust.Seal, error) {
	var s trust.Seal
	if r.nilNext() {
		return s, nil
	}
	if err := r.arrayOf(3, "seal"); err != nil {
		return s, err
	}
	var err error
	if s.Scheme, err = r.str(); err != nil {
		return s, err
	}
	if s.Scheme != trust.SealRSA && s.Scheme != trust.SealECDH {
		return s, r.errorf("unknown seal scheme %q", s.Scheme)
	}
	fp, err := r.bin()
	if err != nil {
		return s, err
	}
	if len(fp) != len(s.Recipient) {
		return s, r.errorf("seal recipient of %d bytes, want %d", len(fp), len(s.Recipient))
	}
	copy(s.Recipient[:], fp)
	if s.Wrapped, err = r.bin(); err != nil {
		return s, err
	}
	if s.Wrapped == "" {
		return s, r.errorf("empty wrapped key")
	}
	return s, nil
}

// trailer reads what follows the body of a bundle with header h: nothing
// up to version 3, the signature in version 4, exactly to the end.
func trailer(h Header, s string) (*trust.Signature, error) {
	if !has(h.Version, fSignature) {
		if len(s) > 0 {
			return nil, fmt.Errorf("format: %w: %d bytes after the end of the bundle (its header says %d bytes)", ErrCorrupt, len(s), h.Size)
		}
		return nil, nil
	}
	if len(s) > maxSignature {
		return nil, fmt.Errorf("format: %w: signature longer than %d bytes", ErrCorrupt, maxSignature)
	}
	r := &reader{s: s, base: h.Size}
	if r.left() == 0 {
		return nil, r.errorf("truncated: no signature after the body")
	}
	if r.nilNext() {
		return nil, afterSignature(r)
	}
	if err := r.arrayOf(3, "signature"); err != nil {
		return nil, err
	}
	sig := &trust.Signature{}
	var err error
	if sig.Scheme, err = r.str(); err != nil {
		return nil, err
	}
	n, err := r.arrayLen()
	if err != nil {
		return nil, err
	}
	for range n {
		c, err := r.bin()
		if err != nil {
			return nil, err
		}
		sig.Certs = append(sig.Certs, []byte(c))
	}
	b, err := r.bin()
	if err != nil {
		return nil, err
	}
	sig.Sig = []byte(b)
	return sig, afterSignature(r)
}

// afterSignature refuses bytes after the signature, the end of a bundle.
func afterSignature(r *reader) error {
	if n := r.left(); n > 0 {
		return r.errorf("%d bytes after the end of the bundle, its signature", n)
	}
	return nil
}

// VerifySignature checks the bundle's signature with v: a bundle without
// one is trust.ErrUnsigned, one that does not match its bytes
// trust.ErrBadSignature, one by another signer trust.ErrUntrusted (each a
// *trust.SignatureError).
func (x *Index) VerifySignature(v *trust.Verifier) error {
	if !has(x.Version, fSignature) {
		return &trust.SignatureError{Err: trust.ErrUnsigned, Reason: fmt.Sprintf("format version %d has no signatures", x.Version)}
	}
	return v.Verify(x.Signature, wire.SignedMessage(x.signed))
}

// Unseal opens the bundle's sealed keys with the node's private key: each
// key's value or error takes its place in Keys, and Bundle returns its
// details. A key that is not the node's is trust.ErrWrongKey; a bundle
// that is not sealed is left as it is. Call it before the Index is shared.
func (x *Index) Unseal(key crypto.PrivateKey) error {
	if x.Seal.Scheme == "" {
		return nil
	}
	env, err := trust.OpenEnvelope(&x.Seal, key)
	if err != nil {
		return fmt.Errorf("bundle of node %s: %w", x.Node, err)
	}
	unsealed := make(map[int]*Key)
	opened := make([]IndexKey, len(x.Keys))
	copy(opened, x.Keys)
	for i := range opened {
		k := &opened[i]
		if k.Ciphertext == "" {
			continue
		}
		plain, err := env.Open(x.Node, k.Name, []byte(k.Ciphertext))
		if err != nil {
			return fmt.Errorf("bundle of node %s: %w", x.Node, err)
		}
		one, err := openKey(x.Version, plain, k)
		if err != nil {
			return fmt.Errorf("bundle of node %s: key %q: %w", x.Node, k.Name, err)
		}
		k.Value, k.Err, k.Sealed = one.Value, one.Err, false
		unsealed[i] = one
	}
	x.Keys, x.unsealed = opened, unsealed
	return nil
}

// openKey decodes the plaintext of sealed key k: a body of k alone, in
// the bundle's format version, whose flags must be k's.
func openKey(version int, plain []byte, k *IndexKey) (*Key, error) {
	s := string(plain)
	y := &Index{Header: Header{Version: version}}
	if err := y.decodeBody(&reader{s: s}); err != nil {
		return nil, err
	}
	if len(y.Keys) != 1 || y.Keys[0].Name != k.Name || y.NodeError != nil || len(y.ModuleErrors) > 0 {
		return nil, fmt.Errorf("format: %w: sealed key %q does not hold that key alone", ErrCorrupt, k.Name)
	}
	in := &y.Keys[0]
	if in.secret != k.secret || in.Sensitive != k.Sensitive || in.Converts != k.Converts || in.Asked != k.Asked || in.Ciphertext != "" {
		return nil, fmt.Errorf("format: %w: sealed key %q: its flags disagree with the bundle's", ErrCorrupt, k.Name)
	}
	b, err := y.Bundle()
	if err != nil {
		return nil, err
	}
	if len(b.Modules) > 0 || len(b.Global.Levels) > 0 || len(b.Env.Levels) > 0 {
		return nil, fmt.Errorf("format: %w: sealed key %q holds hierarchies", ErrCorrupt, k.Name)
	}
	return &b.Keys[0], nil
}
