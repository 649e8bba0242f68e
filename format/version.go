package format

// Format versions by feature, as Go's internal/pkgbits does: each version
// number's meaning is fixed once released (SPEC.md, "Compatibility"), and
// code asks whether a version has a feature, has(v, f), rather than
// comparing numbers. A new version adds its features at the end of the
// list, with the version that introduced them in introduced.
type feature int

const (
	// Version 2.
	fKeyFlags feature = iota // a key's flags: secret, sensitive, converts; a key's convert_to in its details

	// Version 3.
	fAsked         // the asked flag and details (dotted lookups); where a key's merge comes from
	fOriginalPaths // a location's original (uninterpolated) path

	// Version 4.
	fSignature // a signature after the body
	fSeal      // the header's seal and sealed keys
	fOptions   // the body's options section
	fDetails4  // the details as merges, sources and contributions by reference

	// Version 5.
	fKeyTable      // keys as one bin of varints; no stored index
	fSharedDetails // details continued in a shared details file; bound contributions
	fValueVarints  // value table sections as bins of varints

	// Version 6.
	fView // a view section before the values; key values as distances

	// Version 7.
	fSourceRevision // the header's source revision: the commit compiled

	numFeatures
)

// introduced is the version that introduced each feature.
var introduced = [numFeatures]int{
	fKeyFlags:       2,
	fAsked:          3,
	fOriginalPaths:  3,
	fSignature:      4,
	fSeal:           4,
	fOptions:        4,
	fDetails4:       4,
	fKeyTable:       5,
	fSharedDetails:  5,
	fValueVarints:   5,
	fView:           6,
	fSourceRevision: 7,
}

// has reports whether format version v has feature f.
func has(v int, f feature) bool { return v >= introduced[f] }

// RecordsMergeFrom reports whether bundles of format version v record
// which lookup_options entry set each key's merge (Key.MergeFrom): without
// it, a key with no MergeFrom may still have had one.
func RecordsMergeFrom(v int) bool { return has(v, fAsked) }
