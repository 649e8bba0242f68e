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
// stages in order; Result.Stages times each one. A node's state is a
// nodeRun, made of a part per stage, each a type whose methods are its
// file's (lookup.go lists them). Where each of Hiera's rules lives:
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
//	hierarchy.go     nodeLayers: each layer's hierarchy expanded for a node
//	                 into data files
//	glob.go          glob and globs levels (Ruby's Dir.glob)
//	outside.go       absolute paths on the server's disk, Input.Mounts
//	files.go         data files, loaded once and shared by every node
//	options.go       nodeOptions: lookup_options, assembled per node,
//	                 matched to keys
//	interpolate.go   interpolator: %{...} in paths and data; lookup(),
//	                 alias(), scope()
//	lookup.go        nodeRun (a node's state) and its nested lookups over
//	                 the global, environment and module layers; lookupStack,
//	                 recursion detection; convert_to, warnings
//	emit.go          one key at the top level: its locations,
//	                 contributions, merge and error placed
//	limits.go        bounds on the work one node's data can ask for
//
// Merge strategies, dotted keys and convert_to's conversions live in
// format/hiera, which the runtime shares, so compile-time and lookup-time
// merges cannot disagree; reading lookup_options' merge and convert_to
// settings, which only the compiler does, in format/hiera/lookupopts.
// Data files are parsed by internal/dataload. Errors and warnings, from
// dataload and package facts to the CLI, are one type,
// diagnostics.Diagnostic (package compiler/diagnostics).
//
// # Sharing work across nodes
//
// A fleet has far fewer distinct hierarchy slices than nodes, so each
// worker reuses results across the nodes it compiles. It is an
// optimisation that never changes a byte: Input.NoSharing turns it off
// (slower, the same bundles), and share_test.go and
// benchmarks/bundles_golden_test.go prove the two equal. All of it is in
// the files named reuse*.go and template.go, besides order.go, which only
// chooses the order nodes are compiled in. Two types hold it: the worker,
// whose caches outlive a node, and nodeShare, sharing as one node sees it
// (nodeRun.share), whose methods are those of the files below that act for
// a node:
//
//	reuse.go         the worker (its caches) and a key's result kept with
//	                 what it read from its node (dep), checked on the next
//	reuse_keys.go    nodeShare; the keys stage with sharing
//	                 (compileKeysShared)
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
// The semantic stages reach the sharing only through a few hooks, each
// written n.share.… or as a call of one of the worker's sharing methods
// (seam_test.go holds them to this list):
//
//	compiler.go      worker.startRun and sortRun: the nodes a worker takes
//	                 at once, in order.go's order
//	interpolate.go   share.record: a variable or a nested lookup a key read;
//	                 worker.seeVar: a variable's value, for order.go
//	lookup.go        share.nested: the reads a nested lookup covers (meta,
//	                 lookup); share.keyWarns and share.quiet: a key's
//	                 warnings, kept to replay where its result is reused
//	                 (emitWarning), silenced while a result is checked (warn)
//	emit.go          compileKey's pre and rc: what other nodes of a slice
//	                 found out of a key, its options and contributions
//	node.go          share.compileKeysShared: the keys stage (compileKeys);
//	                 share.own: the node's files released (releaseOwn)
//	hierarchy.go     share.expandLevelShared: a level's expansion
//	options.go       worker.options and optionsSig: lookup_options results
//
// Besides, the stages use the worker's buffers and memoised answers of pure
// functions (parseExpr, testedList, namesNode, union: sorted key lists
// interned), which change no result. Reading a stage without them leaves
// Hiera's rule as Puppet writes it.
package compiler
