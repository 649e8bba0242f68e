package format

import (
	"errors"

	"github.com/hieracc/hieracc/format/internal/wire"
	"github.com/hieracc/hieracc/format/trust"
)

// Version is the format version the encoder (format/encode) writes.
// Decoders read every version up to it; a version number's meaning never
// changes once released (see SPEC.md, "Compatibility").
const Version = 7

// Key flags (format version 2): a bit set, the last field of a key.
const (
	keySecret    = wire.KeySecret
	keySensitive = wire.KeySensitive
	keyConverts  = wire.KeyConverts
	keyAsked     = wire.KeyAsked
	keySealed    = wire.KeySealed
)

// magic opens every bundle: the msgpack encoding of the string
// "hieracc-bundle" (fixstr, 14 bytes).
const magic = wire.Magic

// Limits a decoder enforces (and the encoder respects, so that everything
// written can be read back). They bound the work a hostile file can cause.
const (
	// MaxDepth is the deepest nesting of arrays and hashes in a value. It
	// matches yaml.v3's own limit, so no loaded data file exceeds it.
	MaxDepth = 10000
	// MaxNodes bounds the size of one value once shared subtrees are
	// expanded, so a small file cannot describe a value that takes hours
	// to walk.
	MaxNodes = 1 << 24
	// maxHeader bounds the header (magic to CRC), chiefly its strings.
	maxHeader = wire.MaxHeader
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
