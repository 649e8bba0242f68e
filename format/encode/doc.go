// Package encode writes bundles: the format (package format, specified in
// format/SPEC.md) of the newest version, with signing and sealing
// (Protection) and shared details files (Encoder.AppendShared).
//
// It is the compiler's half of the format: package format reads bundles,
// and is what agents link through package runtime; this package is left
// out of their build (runtime's TestDeps), and what both halves must agree
// on byte for byte is in format/internal/wire.
package encode
