// Package rubybackend runs a control repo's custom Hiera 5 backend
// functions (data_hash, lookup_key, data_dig written in Ruby: a Vault or
// Terraform backend, a CMDB) with the installed Puppet, for
// `hieracc compile --ruby-backends=puppet`.
//
// One Ruby process serves a whole compile: Start runs helper.rb (embedded)
// with the Ruby of the `puppet` found on PATH, and Call asks it, in a line
// of JSON, for one level's answer at one location for one node. The
// helper builds the node's top scope as `puppet lookup --node` does and
// calls the function through Puppet's own data provider of the level's
// kind, so that loading, options, the context and validation are
// Puppet's; its answer comes back as data (a data_hash's hash, or the
// values of the keys asked of a lookup_key or data_dig function) and the
// compiler treats it as it treats a data file's.
//
// Where hieracc differs from Puppet:
//   - a lookup_key or data_dig function is asked only the keys the
//     compiler names (Request.Keys), each once per node and location;
//   - a data_dig function is asked a dotted key's first segment only (the
//     compiler digs into the answer), as Puppet asks a lookup_key function;
//   - values a function returns that are Puppet's rich data but not plain
//     data (a Timestamp, a Type) fail their key with Puppet's validation
//     message; a Sensitive is unwrapped and its key marked (Answer.Secret),
//     which the compiler seals.
//
// Nothing the helper writes reaches hieracc's logs but Puppet's messages
// in answers: its stderr (and what functions print) is discarded.
package rubybackend

import (
	"context"

	"github.com/hieracc/hieracc/format"
)

// The kinds of functions, as hiera.yaml names them.
const (
	DataHash  = "data_hash"
	LookupKey = "lookup_key"
	DataDig   = "data_dig"
)

// A Request asks a level's function for its answer at one location, for
// one node. Paths are the compiler's (slash paths inside its input FS);
// the Process maps them to the disk.
type Request struct {
	Kind     string // DataHash, LookupKey or DataDig
	Function string // the function's name
	Level    string // the hierarchy level's name
	Module   string // the module whose hiera.yaml names the level; "" for the environment's
	// Options are the level's options as written (the helper interpolates
	// them as Puppet does); nil when none.
	Options *format.Hash
	// Path or URI is the location (at most one is set; neither for a
	// level that names no location). Original is the location as written.
	Path, URI, Original string

	Node                        string
	Facts, Trusted, ServerFacts *format.Hash
	// Keys are the keys asked of a lookup_key or data_dig function.
	Keys []string
}

// An Answer is a function's answer at one location.
type Answer struct {
	// Data is the data_hash's hash, or the keys a lookup_key or data_dig
	// function found, in the order asked.
	Data *format.Hash
	// Invalid maps a key to Puppet's failure for it: a value that is not
	// data, a function that raised for that key.
	Invalid map[string]string
	// Secret marks the keys whose value held a Sensitive.
	Secret map[string]bool
	// Err, when set, fails the location: Puppet's message (a function
	// not found, a data_hash that raised or returned no hash).
	Err string
}

// A Backend answers requests. Process is the real one; Replay answers
// from a recorded transcript. Call is safe for concurrent use.
type Backend interface {
	Call(ctx context.Context, req Request) (Answer, error)
}
