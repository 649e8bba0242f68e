package encode

import (
	"encoding/binary"
	"math"

	"github.com/hieracc/hieracc/format/internal/wire"
)

// The msgpack writers below use the shortest encodings, as every msgpack
// library does by default (and as version 1 was first written, with
// github.com/vmihailenco/msgpack/v5): their output is pinned by
// testdata/v1.bundle and TestEncoderMatchesReference.

func appendUint(w []byte, n uint64) []byte {
	switch {
	case n <= 0x7f:
		return append(w, byte(n))
	case n <= math.MaxUint8:
		return append(w, wire.Uint8, byte(n))
	case n <= math.MaxUint16:
		return append(w, wire.Uint16, byte(n>>8), byte(n))
	case n <= math.MaxUint32:
		return append(w, wire.Uint32, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return binary.BigEndian.AppendUint64(append(w, wire.Uint64), n)
}

func appendInt(w []byte, n int64) []byte {
	switch {
	case n >= 0:
		return appendUint(w, uint64(n))
	case n >= -32:
		return append(w, byte(n)) // negative fixint
	case n >= math.MinInt8:
		return append(w, wire.Int8, byte(n))
	case n >= math.MinInt16:
		return append(w, wire.Int16, byte(n>>8), byte(n))
	case n >= math.MinInt32:
		return append(w, wire.Int32, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return binary.BigEndian.AppendUint64(append(w, wire.Int64), uint64(n))
}

// appendRef appends a reference, or nil for -1.
func appendRef(w []byte, i int32) []byte {
	if i < 0 {
		return append(w, wire.Nil)
	}
	return appendUint(w, uint64(i))
}

func appendFloat(w []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(append(w, wire.Float64), math.Float64bits(f))
}

func appendBool(w []byte, b bool) []byte {
	if b {
		return append(w, wire.True)
	}
	return append(w, wire.False)
}

func appendFixed32(w []byte, n uint32) []byte {
	return binary.BigEndian.AppendUint32(append(w, wire.Uint32), n)
}

// appendLen appends a length with the codes for 8 (if any), 16 and 32 bits.
func appendLen(w []byte, n int, c8, c16, c32 byte) []byte {
	switch {
	case n <= math.MaxUint8 && c8 != 0:
		return append(w, c8, byte(n))
	case n <= math.MaxUint16:
		return append(w, c16, byte(n>>8), byte(n))
	}
	return binary.BigEndian.AppendUint32(append(w, c32), uint32(n))
}

func appendString(w []byte, s string) []byte {
	if n := len(s); n < 32 {
		w = append(w, 0xa0|byte(n))
	} else {
		w = appendLen(w, n, wire.Str8, wire.Str16, wire.Str32)
	}
	return append(w, s...)
}

func appendBinLen(w []byte, n int) []byte { return appendLen(w, n, wire.Bin8, wire.Bin16, wire.Bin32) }

func appendBin(w []byte, b []byte) []byte { return append(appendBinLen(w, len(b)), b...) }

func appendArrayLen(w []byte, n int) []byte {
	if n < 16 {
		return append(w, 0x90|byte(n))
	}
	return appendLen(w, n, 0, wire.Array16, wire.Array32)
}

func appendMapLen(w []byte, n int) []byte {
	if n < 16 {
		return append(w, 0x80|byte(n))
	}
	return appendLen(w, n, 0, wire.Map16, wire.Map32)
}

// appendValuesHead appends the head of a version 5 value table of n
// entries taking size bytes: a bin of the count (a varint) and the
// entries, up to the entries.
func appendValuesHead(w []byte, n, size int) []byte {
	w = appendBinLen(w, uvarintLen(uint64(n))+size)
	return binary.AppendUvarint(w, uint64(n))
}

// valuesHeadSize is the length appendValuesHead writes.
func valuesHeadSize(n, size int) int {
	b := uvarintLen(uint64(n)) + size
	h := 5
	switch {
	case b <= math.MaxUint8:
		h = 2
	case b <= math.MaxUint16:
		h = 3
	}
	return h + uvarintLen(uint64(n))
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}
