package format

import (
	"fmt"
	"math"

	"github.com/hieracc/hieracc/format/internal/wire"
)

// reader reads msgpack from a string, so that decoded strings are slices of
// one copy of the input instead of an allocation each. Every length is
// checked against the bytes left before anything is allocated for it.
type reader struct {
	s    string
	off  int
	base int64 // offset of s in the file, for messages
}

// msgpack type codes used here (package wire has them, for the writer too).
const (
	mNil     = wire.Nil
	mFalse   = wire.False
	mTrue    = wire.True
	mBin8    = wire.Bin8
	mBin16   = wire.Bin16
	mBin32   = wire.Bin32
	mFloat32 = wire.Float32
	mFloat64 = wire.Float64
	mUint8   = wire.Uint8
	mUint16  = wire.Uint16
	mUint32  = wire.Uint32
	mUint64  = wire.Uint64
	mInt8    = wire.Int8
	mInt16   = wire.Int16
	mInt32   = wire.Int32
	mInt64   = wire.Int64
	mStr8    = wire.Str8
	mStr16   = wire.Str16
	mStr32   = wire.Str32
	mArray16 = wire.Array16
	mArray32 = wire.Array32
	mMap16   = wire.Map16
	mMap32   = wire.Map32
)

func (r *reader) errorf(format string, args ...any) error {
	return fmt.Errorf("format: %w: offset %d: %s", ErrCorrupt, r.base+int64(r.off), fmt.Sprintf(format, args...))
}

func (r *reader) left() int { return len(r.s) - r.off }

func (r *reader) peek() (byte, error) {
	if r.off >= len(r.s) {
		return 0, r.errorf("truncated")
	}
	return r.s[r.off], nil
}

func (r *reader) byte() (byte, error) {
	c, err := r.peek()
	if err == nil {
		r.off++
	}
	return c, err
}

// be reads an n-byte big-endian number.
func (r *reader) be(n int) (uint64, error) {
	if r.left() < n {
		return 0, r.errorf("truncated")
	}
	var v uint64
	for i := range n {
		v = v<<8 | uint64(r.s[r.off+i])
	}
	r.off += n
	return v, nil
}

func codeName(c byte) string {
	switch {
	case c <= 0x7f || c >= 0xe0, c >= mUint8 && c <= mInt64:
		return "integer"
	case c >= 0x80 && c <= 0x8f, c == mMap16, c == mMap32:
		return "map"
	case c >= 0x90 && c <= 0x9f, c == mArray16, c == mArray32:
		return "array"
	case c >= 0xa0 && c <= 0xbf, c >= mStr8 && c <= mStr32:
		return "string"
	case c == mNil:
		return "nil"
	case c == mFalse, c == mTrue:
		return "boolean"
	case c >= mBin8 && c <= mBin32:
		return "binary"
	case c == mFloat32, c == mFloat64:
		return "float"
	}
	return fmt.Sprintf("type 0x%02x", c)
}

// length reads the length after a code with 1, 2 or 4 length bytes and
// checks that at least min(length*per, ...) bytes remain.
func (r *reader) length(n, per int) (int, error) {
	v, err := r.be(n)
	if err != nil {
		return 0, err
	}
	if v > uint64(r.left()/per) {
		return 0, r.errorf("length %d exceeds the %d bytes left", v, r.left())
	}
	return int(v), nil
}

// arrayLen reads an array header. Every element takes at least one byte,
// so a count larger than the bytes left is rejected before allocation.
func (r *reader) arrayLen() (int, error) {
	c, err := r.byte()
	if err != nil {
		return 0, err
	}
	switch {
	case c >= 0x90 && c <= 0x9f:
		n := int(c & 0x0f)
		if n > r.left() {
			return 0, r.errorf("array of %d exceeds the %d bytes left", n, r.left())
		}
		return n, nil
	case c == mArray16:
		return r.length(2, 1)
	case c == mArray32:
		return r.length(4, 1)
	}
	r.off--
	return 0, r.errorf("want array, found %s", codeName(c))
}

// arrayOf reads an array header and checks its length is n.
func (r *reader) arrayOf(n int, what string) error {
	got, err := r.arrayLen()
	if err != nil {
		return err
	}
	if got != n {
		return r.errorf("%s has %d fields, want %d", what, got, n)
	}
	return nil
}

func (r *reader) mapLen() (int, error) {
	c, err := r.byte()
	if err != nil {
		return 0, err
	}
	switch {
	case c >= 0x80 && c <= 0x8f:
		n := int(c & 0x0f)
		if 2*n > r.left() {
			return 0, r.errorf("map of %d exceeds the %d bytes left", n, r.left())
		}
		return n, nil
	case c == mMap16:
		return r.length(2, 2)
	case c == mMap32:
		return r.length(4, 2)
	}
	r.off--
	return 0, r.errorf("want map, found %s", codeName(c))
}

func (r *reader) take(n int) (string, error) {
	if n > r.left() {
		return "", r.errorf("length %d exceeds the %d bytes left", n, r.left())
	}
	s := r.s[r.off : r.off+n]
	r.off += n
	return s, nil
}

func (r *reader) str() (string, error) {
	c, err := r.byte()
	if err != nil {
		return "", err
	}
	var n uint64
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = uint64(c & 0x1f)
	case c >= mStr8 && c <= mStr32:
		n, err = r.be(1 << (c - mStr8))
	default:
		r.off--
		return "", r.errorf("want string, found %s", codeName(c))
	}
	if err != nil {
		return "", err
	}
	if n > uint64(r.left()) {
		return "", r.errorf("string of %d bytes exceeds the %d bytes left", n, r.left())
	}
	return r.take(int(n))
}

func (r *reader) bin() (string, error) {
	c, err := r.byte()
	if err != nil {
		return "", err
	}
	if c < mBin8 || c > mBin32 {
		r.off--
		return "", r.errorf("want binary, found %s", codeName(c))
	}
	n, err := r.be(1 << (c - mBin8))
	if err != nil {
		return "", err
	}
	if n > uint64(r.left()) {
		return "", r.errorf("binary of %d bytes exceeds the %d bytes left", n, r.left())
	}
	return r.take(int(n))
}

func (r *reader) boolean() (bool, error) {
	c, err := r.byte()
	if err != nil {
		return false, err
	}
	switch c {
	case mFalse:
		return false, nil
	case mTrue:
		return true, nil
	}
	r.off--
	return false, r.errorf("want boolean, found %s", codeName(c))
}

// nilNext consumes a nil if one is next.
func (r *reader) nilNext() bool {
	if r.off < len(r.s) && r.s[r.off] == mNil {
		r.off++
		return true
	}
	return false
}

// integer reads any msgpack integer that fits in an int64: writers use the
// shortest encoding, so a value's encoded width carries no meaning.
func (r *reader) integer() (int64, error) {
	c, err := r.byte()
	if err != nil {
		return 0, err
	}
	switch {
	case c <= 0x7f:
		return int64(c), nil
	case c >= 0xe0:
		return int64(int8(c)), nil
	case c >= mUint8 && c <= mUint64:
		v, err := r.be(1 << (c - mUint8))
		if err != nil {
			return 0, err
		}
		if v > math.MaxInt64 {
			return 0, r.errorf("integer %d overflows int64", v)
		}
		return int64(v), nil
	case c >= mInt8 && c <= mInt64:
		n := 1 << (c - mInt8)
		v, err := r.be(n)
		if err != nil {
			return 0, err
		}
		shift := 64 - 8*n // sign-extend
		return int64(v<<shift) >> shift, nil
	}
	r.off--
	return 0, r.errorf("want integer, found %s", codeName(c))
}

// count reads a non-negative integer no larger than max.
func (r *reader) count(max int, what string) (int, error) {
	v, err := r.integer()
	if err != nil {
		return 0, err
	}
	if v < 0 || v > int64(max) {
		return 0, r.errorf("%s %d out of range [0, %d]", what, v, max)
	}
	return int(v), nil
}

// ref reads a reference to one of n table entries (what names the table).
func (r *reader) ref(n int, what string) (int, error) {
	if n == 0 {
		return 0, r.errorf("%s reference, but there are none", what)
	}
	v, err := r.integer()
	if err != nil {
		return 0, err
	}
	if v < 0 || v >= int64(n) {
		return 0, r.errorf("%s reference %d out of range [0, %d]", what, v, n-1)
	}
	return int(v), nil
}

// optRef reads nil (-1) or a reference.
func (r *reader) optRef(n int, what string) (int, error) {
	if r.nilNext() {
		return -1, nil
	}
	return r.ref(n, what)
}

// done checks that nothing follows the last value.
func (r *reader) done(what string) error {
	if r.left() != 0 {
		return r.errorf("%d unexpected bytes after %s", r.left(), what)
	}
	return nil
}

// skip passes over one msgpack value of any type, without recursion.
func (r *reader) skip() error {
	for pending := 1; pending > 0; pending-- {
		c, err := r.byte()
		if err != nil {
			return err
		}
		var n uint64 // bytes to pass
		switch {
		case c <= 0x7f || c >= 0xe0 || c == mNil || c == mFalse || c == mTrue:
		case c >= 0x80 && c <= 0x8f:
			pending += 2 * int(c&0x0f)
		case c >= 0x90 && c <= 0x9f:
			pending += int(c & 0x0f)
		case c >= 0xa0 && c <= 0xbf:
			n = uint64(c & 0x1f)
		case c >= mBin8 && c <= mBin32:
			if n, err = r.be(1 << (c - mBin8)); err != nil {
				return err
			}
		case c >= mStr8 && c <= mStr32:
			if n, err = r.be(1 << (c - mStr8)); err != nil {
				return err
			}
		case c == mFloat32:
			n = 4
		case c == mFloat64:
			n = 8
		case c >= mUint8 && c <= mUint64:
			n = 1 << (c - mUint8)
		case c >= mInt8 && c <= mInt64:
			n = 1 << (c - mInt8)
		case c == mArray16 || c == mArray32:
			m, err := r.length(2<<(c-mArray16), 1)
			if err != nil {
				return err
			}
			pending += m
		case c == mMap16 || c == mMap32:
			m, err := r.length(2<<(c-mMap16), 2)
			if err != nil {
				return err
			}
			pending += 2 * m
		default:
			r.off--
			return r.errorf("value of unsupported %s", codeName(c))
		}
		if n > uint64(r.left()) {
			return r.errorf("length %d exceeds the %d bytes left", n, r.left())
		}
		r.off += int(n)
	}
	return nil
}
