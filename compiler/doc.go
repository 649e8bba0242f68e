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
//	worker.go        a compiling goroutine's state, which outlives a node:
//	                 buffers, memos of pure functions, its sharing
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
// benchmarks/bundles_golden_test.go prove the two equal. Its logic is
// package compiler/internal/share, which knows nothing of the compiler's
// types: the worker's caches (share.Worker), the results kept with what
// they read from their node and the checks that they hold on another
// (share.Dep), slices and their tables, level expansions and
// lookup_options results reused, the order nodes are compiled in, and the
// keys stage with sharing (share.Run.Keys). It sees a node only through
// share.Node, which two files implement:
//
//	share.go         nodeShare (nodeRun.share): the node as sharing sees
//	                 it (its files, key signatures, compiling a key, reading
//	                 a variable or a lookup again), the hooks below, and
//	                 the nodes' values that order their compile
//	template.go      keys that read the node's name (share's templates):
//	                 a template's contributions read again for another
//	                 node, re-running the interpolation plans of the
//	                 strings that name it (interpolate.go's internals)
//
// The semantic stages reach the sharing only through these hooks
// (seam_test.go holds them to this list):
//
//	compiler.go      compileRuns, worker.sortRun, share.ResortAt and the
//	                 worker's share (Off, ReuseKeys, StartRun, KeepKeys):
//	                 the nodes a worker takes at once, in their order, and
//	                 the memory of the last node's keys
//	interpolate.go   n.share.Record: a variable or a nested lookup a key
//	                 read (share.Dep); w.share.SeeVar: a variable's value,
//	                 to learn which are per-node
//	lookup.go        n.share.start; n.share.Nested: the reads a nested
//	                 lookup covers (meta, lookup); n.share.Warned and
//	                 n.share.Quiet: a key's warnings, kept to replay where
//	                 its result is reused (emitWarning), silenced while a
//	                 result is checked (warn)
//	node.go          n.share.Keys: the keys stage (compileKeys), unless
//	                 w.share.Off; n.share.own: the node's files released
//	                 (releaseOwn); w.share.Union: sorted key lists, cached
//	hierarchy.go     n.share.expandLevel: a level's expansion
//	options.go       n.share.options: lookup_options results
//	worker.go        the worker's share (share.Worker)
//
// Besides, compileKey takes a slot's options and locations (keyPre, the
// locations) and a template's contributions (readContribs), and the
// stages use the worker's buffers and memoised answers of pure functions
// (parseExpr, testedList, namesNode), which change no result. Reading a
// stage without them leaves Hiera's rule as Puppet writes it.
package compiler
