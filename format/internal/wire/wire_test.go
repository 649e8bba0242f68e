package wire

import (
	"fmt"
	"testing"
)

// TestKeyHashPinned pins the index hash: it is part of format version 1,
// and changing it makes every written bundle unreadable.
func TestKeyHashPinned(t *testing.T) {
	got := ""
	for _, k := range []string{"", "a", "ntp::servers", "12345678", "profile::base::ntp::servers", "héllo wörld"} {
		got += fmt.Sprintf("%q %#016x\n", k, KeyHash(k))
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
		if got := SlotCount(tt.n); got != tt.want {
			t.Errorf("SlotCount(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}
