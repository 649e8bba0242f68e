package format

import (
	"fmt"
	"testing"
)

// TestKeyHashPinned pins the index hash: it is part of format version 1,
// and changing it makes every written bundle unreadable.
func TestKeyHashPinned(t *testing.T) {
	got := ""
	for _, k := range []string{"", "a", "ntp::servers", "12345678", "profile::base::ntp::servers", "héllo wörld"} {
		got += fmt.Sprintf("%q %#016x\n", k, keyHash(k))
	}
	// Also computed from SPEC.md's description by an independent Python
	// implementation.
	const want = `"" 0x55ba897d2af3577c
"a" 0x7454a5dd70bd2301
"ntp::servers" 0x715e0b2a6525f862
"12345678" 0xc6cb8c4174b6dd4e
"profile::base::ntp::servers" 0x7d036fff99a9d0e7
"héllo wörld" 0xd3628005ccc5350e
`
	if got != want {
		t.Errorf("keyHash changed; got:\n%s", got)
	}
}

func TestSlotCount(t *testing.T) {
	for _, tt := range []struct{ n, want int }{{0, 0}, {1, 2}, {2, 4}, {3, 8}, {4, 8}, {5, 16}, {1000, 2048}} {
		if got := slotCount(tt.n); got != tt.want {
			t.Errorf("slotCount(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

func TestReaderIntegers(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"\x00", 0}, {"\x7f", 127}, {"\xff", -1}, {"\xe0", -32},
		{"\xcc\xff", 255}, {"\xcd\x01\x00", 256}, {"\xce\x00\x01\x00\x00", 65536},
		{"\xcf\x7f\xff\xff\xff\xff\xff\xff\xff", 1<<63 - 1},
		{"\xd0\x80", -128}, {"\xd1\x80\x00", -32768}, {"\xd2\x80\x00\x00\x00", -1 << 31},
		{"\xd3\x80\x00\x00\x00\x00\x00\x00\x00", -1 << 63},
	}
	for _, tt := range tests {
		r := &reader{s: tt.in}
		got, err := r.integer()
		if err != nil || got != tt.want || r.left() != 0 {
			t.Errorf("integer(%x) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "\xcc", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xa1a", "\xc0"} {
		r := &reader{s: in}
		if _, err := r.integer(); err == nil {
			t.Errorf("integer(%x) succeeded", in)
		}
	}
}
