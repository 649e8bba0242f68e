// Package wire holds what the bundle reader (package format) and the
// bundle writer (package format/encode) must agree on byte for byte: the
// msgpack type codes, the magic strings, the bits of a key's head and
// details, the key hash's mixing and the reference encoding of version 5's
// value table. It is internal to format: neither side's API, and small, so
// that what agents link (format, through runtime) stays small.
package wire

import (
	"hash/crc32"
	"math/bits"
)

// Msgpack type codes used by the format.
const (
	Nil     = 0xc0
	False   = 0xc2
	True    = 0xc3
	Bin8    = 0xc4
	Bin16   = 0xc5
	Bin32   = 0xc6
	Float32 = 0xca
	Float64 = 0xcb
	Uint8   = 0xcc
	Uint16  = 0xcd
	Uint32  = 0xce
	Uint64  = 0xcf
	Int8    = 0xd0
	Int16   = 0xd1
	Int32   = 0xd2
	Int64   = 0xd3
	Str8    = 0xd9
	Str16   = 0xda
	Str32   = 0xdb
	Array16 = 0xdc
	Array32 = 0xdd
	Map16   = 0xde
	Map32   = 0xdf
)

// Magic opens every bundle: the msgpack encoding of the string
// "hieracc-bundle" (fixstr, 14 bytes).
const Magic = "\xaehieracc-bundle"

// SharedMagic opens every shared details file: the msgpack encoding of the
// string "hieracc-details" (fixstr, 15 bytes).
const SharedMagic = "\xafhieracc-details"

// SharedFileVersion is the version a shared details file carries: that of
// the first bundle format with shared details files, which reads it.
const SharedFileVersion = 5

// MaxHeader bounds a bundle's header (magic to CRC), chiefly its strings.
const MaxHeader = 1 << 16

// Castagnoli is the CRC table of the header's checksum.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SignatureContext opens the message a version 4 signature signs; the
// bytes from the start of the bundle to the end of its header follow.
const SignatureContext = "hieracc bundle v4 signature\x00"

// SignedMessage is the message a version 4 signature of header signs.
func SignedMessage(header string) []byte {
	return append([]byte(SignatureContext), header...)
}

// Key flags (format version 2): a bit set, the last field of a key.
const (
	KeySecret    = 1 << 0
	KeySensitive = 1 << 1
	KeyConverts  = 1 << 2
	KeyAsked     = 1 << 3 // the key's details hold Asked
	KeySealed    = 1 << 4 // version 4: the key's value is a sealed blob, its details nil
)

// A key's head in version 5's key table is its payload × 8 + the shared
// bit (TagShared: its details are its record in the shared details file)
// + its kind, which says what the payload is:
const (
	KindValue  = 0 // its value entry, as a zigzag distance from the last key's
	KindError  = 1 // its error's index
	KindSealed = 2 // the length of its sealed blob, whose bytes follow
	// KindFlagged: the key has flags; a second varint gives them, the
	// shared bit and the kind, as flags × 8 + shared × 4 + kind.
	KindFlagged = 3
	TagShared   = 4
)

// Bits of a key's shape (version 4): each set bit adds one field to the
// key's details, in this order, after the shape and the contributions.
const (
	ShapeDefaults     = 1 << iota // defaults contributions
	ShapeMerge                    // merge: index into merges
	ShapeDefaultMerge             // default merge: index into merges
	ShapeConvertTo                // convertTo
	ShapeMergeFrom                // mergeFrom
	ShapeAsked                    // asked
	ShapeKnown        = 1<<iota - 1
)

// Constants of the key hash (KeyHash) (from wyhash; any odd, well-mixed constants
// would do, but they are part of format version 1 now).
const (
	HashP0 = 0xa0761d6478bd642f
	HashP1 = 0xe7037ed1a0b428db
	HashP2 = 0x8ebc6af09c88c6e3
)

// Le64 is the little-endian uint64 of s's first eight bytes.
func Le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Mix is the key hash's mixing step.
func Mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// KidRef is how version 5 writes a reference from entry own to an earlier
// entry k: 2k, or 2d+1 for its distance back d = own-1-k, whichever is
// smaller (the distance when equal). Children mostly sit just before
// their parent, hash keys ("ensure", "port") where first used.
func KidRef(own, k int) uint64 {
	if d := own - 1 - k; d <= k {
		return 2*uint64(d) + 1
	}
	return 2 * uint64(k)
}

// KeyHash is the hash of the index section (SPEC.md, "Index"). It reads
// eight bytes per step, so it costs a few nanoseconds for typical keys.
func KeyHash(key string) uint64 {
	s, n := key, len(key)
	h := uint64(n) ^ HashP0
	for len(s) >= 8 {
		h = Mix(Le64(s)^HashP1, h^HashP2)
		s = s[8:]
	}
	var w uint64
	switch {
	case len(s) > 0 && n >= 8:
		// The last eight bytes of the key, overlapping the previous word:
		// one load instead of a loop.
		w = Le64(key[n-8:])
	default:
		for i := len(s) - 1; i >= 0; i-- {
			w = w<<8 | uint64(s[i])
		}
	}
	return Mix(w^HashP1, h^HashP2)
}

// SlotCount is the size of the index for n keys: the least power of two
// at least 2n (so linear probing stays short), 0 for no keys.
func SlotCount(n int) int {
	if n == 0 {
		return 0
	}
	s := 1
	for s < 2*n {
		s <<= 1
	}
	return s
}
