package encode

import "testing"

// TestCommonPrefix checks commonPrefix against a byte-by-byte count, the
// first difference at every place of strings of up to 20 bytes.
func TestCommonPrefix(t *testing.T) {
	base := "profile::nginx::vhost"
	for n := range 21 {
		a := base[:n]
		for m := 0; m <= n; m++ {
			for d := 0; d <= m; d++ {
				b := []byte(base[:m])
				if d < m {
					b[d] ^= 0x40 // first difference at d
				}
				want := 0
				for want < min(len(a), len(b)) && a[want] == b[want] {
					want++
				}
				if got := commonPrefix(a, string(b)); got != want {
					t.Errorf("commonPrefix(%q, %q) = %d, want %d", a, b, got, want)
				}
				if got := commonPrefix(string(b), a); got != want {
					t.Errorf("commonPrefix(%q, %q) = %d, want %d", b, a, got, want)
				}
			}
		}
	}
}
