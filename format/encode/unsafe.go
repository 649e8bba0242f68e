package encode

import (
	"unsafe"

	"github.com/hieracc/hieracc/format"
)

// Every use of unsafe in the encoder is here. The encoder recognises what
// it met before by memory rather than by content: the compiler hands the
// same values, strings and slices to many nodes' bundles and never changes
// them (format.Bundle's rule: values are shared and must not be
// modified), so the same address means the same content, and finding a
// value met before costs a pointer comparison instead of hashing and
// comparing it. That is most of a warm Encoder's speed (intern.go,
// memo.go); no value is ever read or written through these addresses.

// addr is p's address, for hashing it: it keeps nothing alive.
func addr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// stringData is the first byte of s's memory (nil for ""): holding it
// keeps that memory, so that it is never reused for another string.
func stringData(s string) *byte { return unsafe.StringData(s) }

// sliceData is the first element of s's array (nil for a nil slice).
func sliceData[T any](s []T) *T { return unsafe.SliceData(s) }

// sliceOf is the slice of the n elements from p, as a slice's array and
// length were kept (priorKey.contribs, nc).
func sliceOf[T any](p *T, n int) []T { return unsafe.Slice(p, n) }

// sameString reports whether a and b are the same bytes in memory.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// sameIface reports whether a and b hold the same type and data word: the
// same value, since what an interface's data word points to is never
// modified (scalars) or must not be (containers).
func sameIface(a, b any) bool {
	return *(*[2]unsafe.Pointer)(unsafe.Pointer(&a)) == *(*[2]unsafe.Pointer)(unsafe.Pointer(&b))
}

// sameSlice reports whether a and b are the same elements in memory.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// sameBits reports whether a and b hold the same bytes: the same key,
// its pointers and all.
func sameBits(a, b *format.Key) bool {
	const n = unsafe.Sizeof(format.Key{})
	return *(*[n]byte)(unsafe.Pointer(a)) == *(*[n]byte)(unsafe.Pointer(b))
}
