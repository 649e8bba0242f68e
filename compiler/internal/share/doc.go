// Package share is the compiler's sharing of work across nodes: an
// optimisation that never changes a byte (compiler.Input.NoSharing turns
// it off, Worker.Off, and the compiler's tests prove both give the same
// bundles). A fleet has far fewer distinct hierarchy slices than nodes, so
// each compiling goroutine (a Worker) keeps what one node computed for
// the next ones, and takes it only where it provably holds.
//
// The package knows nothing of Hiera's rules or of the compiler's types.
// It sees a node through Node, which the compiler implements
// (compiler/share.go): the node describes its data files and key
// signatures, compiles what is not reused, reads a variable or a nested
// lookup again to check a kept result, and replays warnings. The
// compiler's stages call back through a few hooks of Run (Record, Nested,
// Warned, Quiet), and the keys stage is Run.Keys.
//
// What is where:
//
//	worker.go    Worker: the caches of one compiling goroutine
//	node.go      Node, the compiler as sharing sees it; Run, one node's
//	             sharing, and its hooks
//	results.go   Result: a key's result kept with the reads it made of its
//	             node (Dep, dep.go), reused where each gives the same answer
//	sig.go       key signatures: where a key's data lies, which results of
//	             other nodes are candidates
//	slices.go    slices: the bookkeeping of nodes that reach the same files
//	             (Table), and the keys whose result holds for all of them
//	templates.go keys that read the node's name: a template of what one
//	             node read, for the nodes whose other variables are the same
//	keys.go      the keys stage with sharing (Run.Keys), and the memory of
//	             the last node's keys
//	levels.go    a hierarchy level's expansion (ExpandLevel) and
//	             lookup_options results (Options), for nodes whose reads or
//	             files are the same
//	vars.go      which variables are per-node, learnt from the nodes
//	             compiled; SortRun
//	order.go     the order nodes are compiled in: a slice's nodes one after
//	             the other, on one worker (Order, Runs)
//	keylist.go   sorted key lists, merged once per worker (Union)
//
// The compiler keeps one part of sharing: reading a template's
// contributions again for another node (Node.FromTemplate,
// compiler/template.go), which re-runs the interpolation plans of the
// strings naming the node.
package share
