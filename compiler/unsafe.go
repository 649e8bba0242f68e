package compiler

// The package's one use of unsafe.

import "unsafe"

// sameString reports whether a and b are the same string: the same bytes
// in the same memory, not only equal. Go has no safe way to ask, and
// firstFound needs it: a key's value must be its first contribution's own
// (as it does for arrays and hashes, by address). It only compares the
// strings' data pointers, never dereferences or makes one.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}
