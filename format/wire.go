package format

import (
	"errors"
	"math/bits"

	"github.com/hieracc/hieracc/format/trust"
)

// Version is the format version Encode writes. Decoders read every version
// up to it; a version number's meaning never changes once released (see
// SPEC.md, "Compatibility").
const Version = 7

// Key flags (format version 2): a bit set, the last field of a key.
const (
	keySecret    = 1 << 0
	keySensitive = 1 << 1
	keyConverts  = 1 << 2
	keyAsked     = 1 << 3 // the key's details hold Asked
	keySealed    = 1 << 4 // version 4: the key's value is a sealed blob, its details nil
)

// magic opens every bundle: the msgpack encoding of the string
// "hieracc-bundle" (fixstr, 14 bytes).
const magic = "\xaehieracc-bundle"

// Limits a decoder enforces (and Encode respects, so that everything written
// can be read back). They bound the work a hostile file can cause.
const (
	// MaxDepth is the deepest nesting of arrays and hashes in a value. It
	// matches yaml.v3's own limit, so no loaded data file exceeds it.
	MaxDepth = 10000
	// MaxNodes bounds the size of one value once shared subtrees are
	// expanded, so a small file cannot describe a value that takes hours
	// to walk.
	MaxNodes = 1 << 24
	// maxHeader bounds the header (magic to CRC), chiefly its strings.
	maxHeader = 1 << 16
	// maxSignature bounds version 4's signature, chiefly its certificates.
	maxSignature = 1 << 20
)

// Errors a decoder returns, wrapped with details; test with errors.Is.
var (
	ErrNotBundle = errors.New("not a hieracc bundle")
	ErrVersion   = errors.New("unsupported bundle format version")
	ErrCorrupt   = errors.New("corrupt bundle")
)

// Header is the start of an encoded bundle, readable without the body.
type Header struct {
	Version     int
	Digest      [32]byte // SHA-256 of the body: equal digests, equal data
	Node        string
	Environment string
	Revision    string
	// SourceRevision names the source the bundle was compiled from, as
	// the compiler was told (compile --source-revision: a git commit,
	// say); "" when unknown, and in bundles before version 7.
	SourceRevision string
	// Size is the length of the encoding from its first byte to the end
	// of the body: the whole file up to version 3; version 4's signature
	// follows.
	Size int64
	// Seal is version 4's seal: the node's secrets are encrypted to the
	// certificate it names; its Scheme is "" when they are not.
	Seal trust.Seal
}

// Constants of the key hash (from wyhash; any odd, well-mixed constants
// would do, but they are part of format version 1 now).
const (
	hashP0 = 0xa0761d6478bd642f
	hashP1 = 0xe7037ed1a0b428db
	hashP2 = 0x8ebc6af09c88c6e3
)

// keyHash is the hash of the index section (SPEC.md, "Index"). It reads
// eight bytes per step, so it costs a few nanoseconds for typical keys.
func keyHash(key string) uint64 {
	s, n := key, len(key)
	h := uint64(n) ^ hashP0
	for len(s) >= 8 {
		h = mix(le64(s)^hashP1, h^hashP2)
		s = s[8:]
	}
	var w uint64
	switch {
	case len(s) > 0 && n >= 8:
		// The last eight bytes of the key, overlapping the previous word:
		// one load instead of a loop.
		w = le64(key[n-8:])
	default:
		for i := len(s) - 1; i >= 0; i-- {
			w = w<<8 | uint64(s[i])
		}
	}
	return mix(w^hashP1, h^hashP2)
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// slotCount is the size of the index for n keys: the least power of two
// at least 2n (so linear probing stays short), 0 for no keys.
func slotCount(n int) int {
	if n == 0 {
		return 0
	}
	s := 1
	for s < 2*n {
		s <<= 1
	}
	return s
}
