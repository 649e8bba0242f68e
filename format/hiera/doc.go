// Package hiera holds Puppet Hiera 5's lookup semantics over format values:
// how the values a key has in the data files of a node's hierarchies
// combine into the one value `puppet lookup` returns, and how a dotted key
// digs into it.
//
// It is shared by the compiler, which pre-merges every key at compile time,
// and the agent runtime, which merges again from the recorded contributions
// when a lookup asks for a different merge. It lives under format/ because
// the runtime may import nothing but format/... and msgpack, so it depends
// on the standard library and format's packages only.
//
// Everything here reproduces Puppet 7's Ruby code path by path, including
// its quirks and error messages:
//
//   - MergeStrategy#lookup and its nesting over layers, levels and
//     locations (Resolve, ResolveDefault);
//   - the first, unique, hash and deep strategies, with their type
//     assertions (MergeValues; package ptype words their messages), deep
//     being the deep_merge gem 1.1.1;
//   - LookupKey's key splitting and SubLookup's digging (ParseKey, Key.Dig).
//
// MergeStrategy.strategy's parsing of a merge option, which only the
// compiler meets (bundles hold merges parsed), is package
// format/hiera/lookupopts (ParseMerge).
//
// Values are never modified; results may share structure with the inputs
// and must be treated as read-only.
package hiera
