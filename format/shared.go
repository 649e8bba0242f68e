package format

import (
	"encoding/hex"
	"errors"
	"io"
	"strings"
)

// Shared details (SPEC.md, "Shared details"): nodes of one role,
// datacenter and OS share almost all of their keys' details (where each
// value came from, merge options), which take about half of a bundle. A
// compile writes the part of a bundle's details that holds no bound
// contribution (see Contribution.Bound) once, in a shared details file
// named by its digest, which every bundle with the same shared part
// refers to. A bundle still holds every value a lookup returns: only
// explanations and lookup-time merges read the shared file.

// SharedDetails is a shared details file: Data, whose body's SHA-256 is
// Digest, is written to SharedDetailsName(Digest) in the folder of the
// bundles that refer to it.
type SharedDetails struct {
	Digest [32]byte
	Data   []byte
}

// SharedDetailsDir is the folder, inside a compile's output folder, that
// holds the shared details files of its bundles.
const SharedDetailsDir = "details"

// sharedSuffix ends the name of every shared details file.
const sharedSuffix = ".details"

// SharedDetailsName is the path, relative to the folder of the bundles
// that refer to it, of the shared details file of digest d:
// details/<64 hex digits>.details.
func SharedDetailsName(d [32]byte) string {
	return SharedDetailsDir + "/" + hex.EncodeToString(d[:]) + sharedSuffix
}

// ParseSharedDetailsName is the digest a shared details file's base name
// (<64 hex digits>.details) gives; ok is false for any other name.
func ParseSharedDetailsName(base string) (d [32]byte, ok bool) {
	h, found := strings.CutSuffix(base, sharedSuffix)
	if !found || len(h) != 2*len(d) || strings.ToLower(h) != h {
		return d, false
	}
	if _, err := hex.Decode(d[:], []byte(h)); err != nil {
		return d, false
	}
	return d, true
}

// ErrNoSharedDetails is the error of reading the details of a bundle
// whose shared details file was not attached (Index.AttachShared).
var ErrNoSharedDetails = errors.New("shared details file not attached")

// AppendShared is AppendWith, writing the part of b's details that holds
// no bound contribution to a shared details file instead of the bundle:
// it returns that file (nil when nothing is shared), which the caller
// writes to SharedDetailsName(Digest) beside the bundle. Its Data is
// valid until e's next call.
func (e *Encoder) AppendShared(dst []byte, b *Bundle, p Protection) ([]byte, *SharedDetails, error) {
	out, err := e.AppendWith(dst, b, p) // TODO(lead): the shared part
	return out, nil, err
}

// EncodeShared is Encode with AppendShared's shared details file.
func EncodeShared(b *Bundle, p Protection) ([]byte, *SharedDetails, error) {
	return NewEncoder().AppendShared(nil, b, p)
}

// SharedDigest is the digest of the shared details file the bundle's
// details continue in; ok is false when the bundle holds all of them.
func (x *Index) SharedDigest() (d [32]byte, ok bool) {
	return d, false // TODO(lead)
}

// AttachShared gives x its shared details file: data must be the file
// SharedDigest names (its magic, version and digest are checked).
// Bundle, and so explanations and lookup-time merges, need it when
// SharedDigest reports one.
func (x *Index) AttachShared(data []byte) error {
	return errors.New("format: this bundle has no shared details") // TODO(lead)
}

// VerifySharedDetails reads the shared details file in r to its end and
// checks its magic, version and digest, returning the digest (which its
// name must give).
func VerifySharedDetails(r io.ReaderAt) ([32]byte, error) {
	return [32]byte{}, ErrNotBundle // TODO(lead)
}
