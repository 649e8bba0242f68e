// Package facts reads node facts from where users keep them, and says
// which node each set belongs to. It knows every shape facts come in:
//
//   - a plain facts hash (facter -j or -y, puppet facts show, facterdb's
//     *.facts), whose certname is its file's name;
//   - puppet facts find's JSON or YAML ({name, values, timestamp,
//     expiration}), whose certname is its name; the YAML form is the
//     Puppet server's facts cache too (!ruby/object:Puppet::Node::Facts);
//   - PuppetDB exports of several nodes: /pdb/query/v4/factsets,
//     /pdb/query/v4/facts (a row per fact), /pdb/query/v4/inventory, and
//     what `puppet query` and puppetdb_query give for the same queries;
//     and a `replace facts` command's payload.
//
// The shape is detected per document, from its content, never guessed:
// a document that is almost one of these (a wrapper without values, an
// array that is not an export, facts under another key) is an error, as
// is a certname that two places give, or that a document and its file's
// name disagree on. Nothing is executed: Ruby tags in YAML are read as
// data.
//
// The stages, in order: load.go finds the files a list of paths names
// (reporting those it does not read) and reads them, parse.go parses one
// file as its extension says, records.go detects its shape and turns it
// into nodes (with trusted.go's rule for a recorded $trusted), and
// load.go's Unique refuses a certname from two places; override.go
// applies --fact-override. Package puppetdb fetches the same records from
// PuppetDB.
//
// # Where hieracc differs from Puppet
//
//   - puppet lookup --facts takes any hash for the facts: given puppet facts
//     find's output, its four wrapper fields become the facts. hieracc reads
//     the facts inside, and refuses the near misses.
//   - In a Puppet::Node::Facts YAML, Puppet 7's cache reader refuses the
//     Ruby Time that old Puppets wrote as values' _timestamp ("Tried to load
//     unspecified class: Time"), and keeps !ruby/sym keys as Symbols, which
//     no $facts['name'] reaches. hieracc drops _timestamp unread, as
//     Facts#initialize_from_hash would: the string key _timestamp, and the
//     symbol (`!ruby/sym _timestamp`, `:_timestamp`, as Puppet 3 wrote it)
//     when it holds a Time; it reads other symbol keys as strings.
//   - puppet facts find output and PuppetDB records may hold fields besides
//     those hieracc knows (Puppet's Facts.from_data_hash ignores them;
//     PuppetDB adds fields over versions): they are ignored, and the facts
//     read. A document with both name and certname beside its facts is
//     refused, never read as a plain facts hash.
//   - PuppetDB's trusted fact is $trusted, not a fact: on a server, $facts
//     never holds it.
package facts

import (
	"github.com/hieracc/hieracc/format"
)

// Format names the shape a node's facts came in. Its value is what
// messages and --explain show.
type Format string

// The formats Parse detects.
const (
	Plain     Format = "facts hash"                     // facter -j/-y, puppet facts show, facterdb
	FactsFind Format = "puppet facts find"              // {name, values, timestamp, expiration}
	NodeFacts Format = "Puppet::Node::Facts YAML"       // puppet facts find --render-as yaml; the server's facts cache
	Factsets  Format = "PuppetDB factsets"              // /pdb/query/v4/factsets
	FactRows  Format = "PuppetDB facts"                 // /pdb/query/v4/facts: a row per fact
	Inventory Format = "PuppetDB inventory"             // /pdb/query/v4/inventory, puppet query inventory[...]
	Command   Format = "PuppetDB replace facts command" // the command's payload: {certname, values}
)

// Node is one node's facts, as a source gives them.
type Node struct {
	Certname string
	Facts    *format.Hash
	// Trusted is $trusted as the source recorded it (PuppetDB keeps each
	// node's trusted hash, with its certificate extensions); nil when the
	// source has none, and $trusted is then derived from the certname.
	Trusted *format.Hash
	// Environment is the node's environment as the source recorded it;
	// "" when it has none.
	Environment string
	Format      Format
	// Pos is where the facts came from: its File is a file as the
	// caller named it, or a URL; Line and Column, when not 0, where the
	// node's record starts in it.
	format.Pos
}
