// Package encode writes bundles: the format (package format, specified in
// format/SPEC.md) of the newest version, with signing and sealing
// (Protection) and shared details files (Encoder.AppendShared).
//
// It is the compiler's half of the format: package format reads bundles,
// and is what agents link through package runtime; this package is left
// out of their build (runtime's TestDeps), and what both halves must agree
// on byte for byte is in format/internal/wire.
//
// # Where things are
//
// An Encoder (encode.go) writes a bundle's body in passes over its keys
// (encodeBody: checkKeys, readKeys, internValues, contributionRefs), then
// the sections around its value table (appendSections: the error table,
// the key table of keytable.go, the details of details.go, the options
// of options.go), and AppendWith puts the header, digest and signature
// around it (seal.go). What it remembers between bundles, and each pass
// of its own, is a part of its own, each with its state:
//
//   - interner (intern.go): the values. Every distinct value gets a node
//     id, in the global table (across bundles) or the local one (this
//     bundle); the bundle's value table is written from the ids (entry).
//   - recTable (recs.go): the variants of keys' contributions met before,
//     with their values' ids and their encoding, so that a key the
//     compiler shared between nodes costs a lookup.
//   - memo (memo.go): the keys of the last bundle and what was found for
//     them, so that a key identical to the last bundle's costs a few
//     compares, and one built anew for the node finds the children it
//     shares with the last node's (likeOf, likeBound).
//   - sharing (shared.go): AppendShared's shared details file: which keys'
//     details go to it (planKey, planShared), the recent files, and the
//     Encoder that writes them (newSub); a sharedFile's view (view.go) is
//     the values its records imply, which start the value table of every
//     bundle that names it.
//   - errTable (errtable.go) and detailTables (details.go): one bundle's
//     errors, merges and lookup_options sources, each once.
//
// Every use of unsafe is in unsafe.go; the msgpack writers are in write.go.
package encode
