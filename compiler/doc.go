// Package compiler turns a Puppet control repo and node facts into fully
// resolved Hiera data: for every node, every key its hierarchy reaches,
// resolved and merged exactly as `puppet lookup` (Puppet 7) would, plus the
// per-location contributions that explain it. The result is a format.Bundle
// per node.
//
// # Map of the compiler
//
// Compile (compiler.go) reads every layer's hiera.yaml once, then compiles
// each node by running node.go's nodeStages, a table of the per-node
// stages in order; Result.Stages times each one. Where each of Hiera's
// rules lives:
//
//	compiler.go      Input, Result, Compile: configurations once, then the
//	                 nodes on parallel workers
//	config.go        hiera.yaml version 5: read and validate each layer's
//	                 configuration (Puppet's HieraConfigV5)
//	config_legacy.go hiera.yaml versions 3 and 4
//	backends.go      levels whose function is Ruby code (rubybackends.go:
//	                 run with Puppet, Input.RubyBackends)
//	eyaml.go         eyaml levels: keys, ENC[...] values decrypted at load
//	node.go          one node: nodeStages, the keys stage (compileKeys),
//	                 the bundle's header and revision
//	scope.go         LoadFacts, a node's facts; its top scope (facts,
//	                 trusted, server_facts)
//	hierarchy.go     a layer's hierarchy expanded for a node into data files
//	glob.go          glob and globs levels (Ruby's Dir.glob)
//	outside.go       absolute paths on the server's disk, Input.Mounts
//	files.go         data files, loaded once and shared by every node
//	options.go       lookup_options: assembled per node, matched to keys
//	interpolate.go   %{...} in paths and data; lookup(), alias(), scope()
//	lookup.go        nodeRun (a node's state); nested lookups over the
//	                 global, environment and module layers, recursion
//	                 detection, convert_to, warnings
//	emit.go          one key at the top level: its locations,
//	                 contributions, merge and error placed
//	limits.go        bounds on the work one node's data can ask for
//
// Merge strategies, dotted keys and convert_to's conversions live in
// format/hiera, which the runtime shares, so compile-time and lookup-time
// merges cannot disagree. Data files are parsed by internal/dataload.
// Errors and warnings, from dataload and package facts to the CLI, are
// one type, diagnostics.Diagnostic (package compiler/diagnostics).
//
// # Sharing work across nodes
//
// A fleet has far fewer distinct hierarchy slices than nodes, so each
// worker reuses results across the nodes it compiles. It is an
// optimisation that never changes a byte: Input.NoSharing turns it off
// (slower, the same bundles), and share_test.go and
// benchmarks/bundles_golden_test.go prove the two equal. All of it is in
// the files named reuse*.go and template.go, besides order.go, which only
// chooses the order nodes are compiled in:
//
//	reuse.go         the worker (its caches) and a key's result kept with
//	                 what it read from its node (dep), checked on the next
//	reuse_keys.go    the keys stage with sharing (compileKeysShared), and
//	                 nodeShare, what sharing keeps of a node
//	reuse_slices.go  slices: the bookkeeping of nodes that reach the same
//	                 files, and the keys whose result holds for all of them
//	template.go      keys that read the node's name: all they read but for
//	                 the strings naming it
//	reuse_levels.go  a hierarchy level's expansion, for nodes whose reads
//	                 give the same answers
//	reuse_options.go lookup_options results, for nodes whose options come
//	                 from the same files
//	order.go         the nodes of a slice one after the other, on one worker
//
// The semantic stages reach the sharing only through a few hooks: record
// (interpolate.go: a variable or nested lookup a key read; lookup.go's
// nested marks the reads a nested lookup covers), emitWarning and warn
// (lookup.go: a key's warnings, kept to replay where its result is reused,
// and silenced while a result is checked), compileKey's pre and rc
// (emit.go: what other nodes of a slice found out of a key, its options
// and contributions), and the calls that dispatch to the files above
// (compileKeys, expandLevelShared, worker.options). Reading a stage
// without them leaves Hiera's rule as Puppet writes it.
package compiler
