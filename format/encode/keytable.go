package encode

import (
	"encoding/binary"
	"math/bits"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/internal/wire"
)

// appendKeyTable appends the key table of keys (without the enclosing
// bin header) to w, e.mem.keyTab[:0]: refs holds each key's value and error
// entries (two per key, -1 for none), blobs each key's sealed blob (nil
// for a plain key; blobs is nil when none is) and memo, by key, its key
// of the same name in the last bundle (keyMemo.named, memo.go).
func (e *Encoder) appendKeyTable(w []byte, keys []format.Key, refs []int32, blobs [][]byte, memo []keyMemo) []byte {
	w = binary.AppendUvarint(w, uint64(len(keys)))
	// The last value entry of a key with the shared bit, and of one
	// without (version 6: a bundle's value table starts with the values of
	// its shared file's records, those of the keys with the shared bit,
	// mostly; see view.go).
	last := [2]int64{-1, -1}
	for i := range keys {
		at := len(w)
		if p := memo[i].named; i == 0 && p == 0 || i > 0 && p > 0 && memo[i-1].named == p-1 {
			// The name and the one before it are the last bundle's: so
			// are their shared bytes, copied without reading the names.
			pk := &e.mem.prior[p]
			w = append(w, e.mem.lastTab[pk.nameAt:pk.nameAt+pk.nameLen]...)
		} else {
			name, prev := keys[i].Name, ""
			if i > 0 {
				prev = keys[i-1].Name
			}
			shared := commonPrefix(prev, name)
			w = binary.AppendUvarint(w, uint64(shared))
			w = binary.AppendUvarint(w, uint64(len(name)-shared))
			w = append(w, name[shared:]...)
		}
		// A key the memo knows plain (its name, value and contributions
		// alone, memo.go) has no flags: for most keys, the key table
		// reads nothing of the Key itself.
		var flags uint64
		if i < len(e.mem.cur) {
			c := &e.mem.cur[i]
			c.nameAt, c.nameLen = uint32(at), uint32(len(w)-at)
			if c.more >= 0 { // not plain
				flags = keyFlags(&keys[i])
			}
		} else {
			flags = keyFlags(&keys[i])
		}
		var bits uint64
		if e.share.inShared(i) {
			bits = wire.TagShared
		}
		var payload uint64
		switch {
		case blobs != nil && blobs[i] != nil:
			flags |= wire.KeySealed
			bits |= wire.KindSealed
			payload = uint64(len(blobs[i]))
		case refs[2*i] >= 0:
			// The entry, as its distance from the last key's value
			// entry (zigzag): keys' values are added to the table in key
			// order, so it is mostly small.
			c := bits & wire.TagShared >> 2
			d := int64(refs[2*i]) - last[c]
			payload = uint64(d<<1) ^ uint64(d>>63)
			last[c] = int64(refs[2*i])
		default:
			bits |= wire.KindError
			payload = uint64(refs[2*i+1])
		}
		if flags == 0 {
			w = binary.AppendUvarint(w, payload<<3|bits)
		} else {
			w = binary.AppendUvarint(w, payload<<3|wire.KindFlagged)
			w = binary.AppendUvarint(w, flags<<3|bits)
		}
		if blobs != nil && blobs[i] != nil {
			w = append(w, blobs[i]...)
		}
	}
	return w
}

// commonPrefix is the number of leading bytes a and b share.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := wire.Le64(a[i:]) ^ wire.Le64(b[i:]); x != 0 {
			// The first byte that differs is the lowest nonzero one.
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
