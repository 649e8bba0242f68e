// Package format is hieracc's bundle: the compiled, pre-merged Hiera data of
// one node, and its versioned msgpack wire encoding (see SPEC.md).
//
// It also holds the value model every stage shares (Value, Hash). The
// compiler produces a Bundle, package format/encode writes it, and the
// runtime reads it back with this package; neither the compiler nor the
// runtime depends on the other, and the runtime does not link the writer.
//
// From format version 4, encode.EncodeWith signs a bundle and seals its
// secret keys to the node's certificate (encode.Protection);
// Index.VerifySignature and Index.Unseal check and open them. The
// cryptography is package format/trust's (format/trust/sign's for the
// writer's half).
package format

// Layer names one of Hiera's three data layers, in the order Puppet searches
// them.
type Layer uint8

const (
	LayerGlobal      Layer = iota // $confdir/hiera.yaml
	LayerEnvironment              // <environment>/hiera.yaml
	LayerModule                   // <environment>/modules/<name>/hiera.yaml
)

func (l Layer) String() string {
	switch l {
	case LayerGlobal:
		return "global"
	case LayerEnvironment:
		return "environment"
	case LayerModule:
		return "module"
	}
	return "unknown"
}

// Bundle is everything an agent needs to answer lookups for one node.
type Bundle struct {
	Node        string // the node's certname
	Environment string // Puppet environment name, e.g. "production"
	Revision    string // identifies the inputs compiled (chosen by the compiler)
	// SourceRevision names the source compiled (a git commit, say), for
	// people; "" when unknown. Not an input: the same data compiled from
	// another commit is the same bundle but for it. (Format version 7.)
	SourceRevision string

	// The hierarchies as resolved for this node. Their shape decides how
	// lookup-time merges nest (see format/hiera.Resolve).
	Global  Hierarchy
	Env     Hierarchy
	Modules []Module // sorted by Name

	// NodeError, when set, fails every lookup on this node: Puppet collects
	// lookup_options from every level before any lookup, so one unloadable
	// data file breaks them all.
	NodeError *Error

	Keys []Key // sorted by Name (byte order), no duplicates

	// Options are the lookup_options entries whose merge fails keys the
	// bundle does not hold, by scope (see OptionScope): sorted by Module,
	// then Default (false first), unique. (Format version 4.)
	Options []OptionScope
}

// Hierarchy is one layer's hierarchy, expanded for the node.
type Hierarchy struct {
	// Present is false when the layer has no data provider (no hiera.yaml):
	// it then answers every key with "not found".
	Present bool
	Levels  []Level
}

// Level is one hierarchy level.
type Level struct {
	Name      string
	Locations []Location // in search order; may be empty (mapped_paths over [])
}

// Location is one data file a level names for this node.
type Location struct {
	Path   string // as shown to users: relative to the layer's root (e.g. "data/common.yaml")
	Exists bool
	// Original is what the hierarchy wrote for it, Puppet's "Original
	// path": the path or mapped_paths template before interpolation
	// ("roles/%{facts.role}.yaml"), or for a glob the pattern as
	// interpolated, datadir included. "" in bundles of format versions 1 and 2.
	Original string
}

// Module is one module's layer for this node.
type Module struct {
	Name      string
	Hierarchy Hierarchy
	// Default is the module's default_hierarchy, consulted only when no
	// regular layer has the key; nil when the module has none.
	Default *Hierarchy
	// Err, when set, fails every lookup of a key in this module's namespace
	// (a broken hiera.yaml, or lookup_options outside the namespace).
	Err *Error
}

// Merge is a merge strategy with its options, as given in lookup_options or
// at lookup time. The zero value is Puppet's default: first found.
type Merge struct {
	Strategy         Strategy
	KnockoutPrefix   string // deep only
	SortMergedArrays bool   // deep only
	MergeHashArrays  bool   // deep only
}

// Strategy names a merge strategy as lookup_options and puppet lookup
// --merge spell it. The empty Strategy, Puppet's default, and MergeFirst
// mean the same: test with IsFirst. A bundle records the name as given.
type Strategy string

// The merge strategies.
const (
	MergeFirst  Strategy = "first"  // the highest-priority value
	MergeUnique Strategy = "unique" // arrays and scalars of every level, flattened, without duplicates
	MergeHash   Strategy = "hash"   // hashes of every level, higher-priority keys winning
	MergeDeep   Strategy = "deep"   // hashes merged recursively, with deep_merge's options
)

// IsFirst reports whether s is first found: MergeFirst or the empty default.
func (s Strategy) IsFirst() bool { return s == "" || s == MergeFirst }

// Key is one key's compiled result and the evidence it was built from.
type Key struct {
	Name string

	// Merge is the strategy lookup_options configure for the key.
	Merge Merge
	// MergeFrom is the lookup_options entry that configured Merge, and
	// where it is written; nil when no entry matches the key (or in a
	// bundle of format version 1 or 2).
	MergeFrom *OptionsEntry
	// Value is the key's value under Merge; meaningless when Err is set.
	Value Value
	// Err is the recorded failure of the configured lookup, with Puppet's
	// message. A lookup-time merge recomputes from the contributions and
	// may succeed where this failed (or fail where this succeeded).
	Err *Error

	// Contributions are the values each location holds for the key,
	// interpolated for this node, in priority order (highest first).
	Contributions []Contribution

	// DefaultMerge and Defaults are the same for the module's
	// default_hierarchy; used only when Contributions is empty.
	DefaultMerge Merge
	Defaults     []Contribution

	// Secret marks a key whose value or contributions hold text
	// decrypted from hiera-eyaml's ENC[...] (directly, merged, or through
	// interpolation, lookup() and alias()): tools show where it came from
	// and whether it changed, never its text, unless asked. (Format
	// version 2.)
	Secret bool
	// ConvertTo is the key's lookup_options convert_to, applied to the
	// result of every lookup of the key (after merging and digging), as
	// Puppet's new() would: nil for none, else the type name and its
	// arguments (strings, integers, booleans). Value is already
	// converted, except for Sensitive, which a reader applies: Value then
	// holds what the Sensitive wraps. (Format version 2.)
	ConvertTo []Value
	// Asked is nil, unless the key's own data looks the key up (directly
	// or through other keys; say n: {b: "%{lookup('n')}"}). Puppet's
	// recursion guard holds a key as asked, so a dotted lookup of such a
	// key ("n.port") reads its data with "n.port" on the guard, not "n",
	// and may read other values than Contributions (computed with "n"):
	// Asked holds what a dotted lookup reads instead. (Format version 3.)
	Asked []Asked

	// Ciphertext is set by decoders on a key sealed to the node (format
	// version 4): its value, error and details as encrypted, which
	// changes exactly when they do. The encoder ignores it: it seals the
	// Secret and Sensitive keys when asked (encode.Protection).
	Ciphertext string
	// Sealed is set by decoders on a sealed key that was not unsealed
	// (no private key, Index.Unseal): Value, Err, Contributions and the
	// rest are empty. The encoder refuses such a key.
	Sealed bool
}

// Asked is what the locations hold for a key looked up by a dotted text
// (see Key.Asked).
type Asked struct {
	// Text is the dotted key as asked, for a text the key's data itself
	// looks up; "" stands for every other dotted text. A key's Asked are
	// sorted by Text, unique, and the first is "". In the "" entry,
	// recursion chains ("Recursive lookup detected in [a, b]") leave out
	// the key as asked, which a reader inserts first ("[n.port, a, b]").
	Text          string
	Contributions []Contribution
	Defaults      []Contribution
}

// AskedAs returns the entry of k.Asked for a dotted lookup of text, nil
// when k has none.
func (k *Key) AskedAs(text string) *Asked {
	if len(k.Asked) == 0 {
		return nil
	}
	lo, hi := 1, len(k.Asked)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if k.Asked[m].Text < text {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(k.Asked) && k.Asked[lo].Text == text {
		return &k.Asked[lo]
	}
	return &k.Asked[0]
}

// OptionsEntry is a lookup_options entry that applies to a key: its name
// (the key itself, or a regexp starting with ^) and the data file and
// level whose entry won (the highest-priority one: levels and layers
// combine lookup_options with a hash merge, so a whole entry replaces a
// lower one). Its line and column are those of the entry, or, when they are
// unknown (a JSON file), of its file's lookup_options key.
type OptionsEntry struct {
	Entry string
	Pos
	Level string
}

// Sensitive reports whether the key's lookups return a Sensitive value.
func (k *Key) Sensitive() bool { return len(k.ConvertTo) > 0 && k.ConvertTo[0] == "Sensitive" }

// Contribution is one location's value for a key. Its Line and Column
// name no file: the location does (runtime/explain gives the whole
// format.Pos).
type Contribution struct {
	Layer    Layer
	Level    int // index into the layer's Hierarchy.Levels
	Location int // index into that level's Locations
	Line     int // position of the key in the data file (1-based; 0 if unknown)
	Column   int
	Value    Value
	Err      *Error // interpolating this value failed; Value is then nil
	// Bound: the contribution is this node's alone: it comes from a data
	// file whose path names the node (its certname), or its value was
	// interpolated. A bound contribution is always written in the node's
	// bundle; the rest of a key's details may be written once, in a
	// shared details file that every bundle holding the same details
	// refers to (see SharedDetails).
	Bound bool
}

// Error is a failure recorded at compile time, reported again at lookup time.
type Error struct {
	Message string // Puppet's message for the failure
	Pos            // where it arose; its File may be empty
	Level   string // hierarchy level name; may be empty
}

func (e *Error) Error() string { return e.Message }
