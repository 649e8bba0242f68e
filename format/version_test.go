package format

import "testing"

// TestFeaturesIntroduced checks that every feature names the version that
// introduced it, one this package writes or reads, in the order of the
// list (a new version's features go at its end).
func TestFeaturesIntroduced(t *testing.T) {
	last := 2
	for f := range numFeatures {
		v := introduced[f]
		if v < 2 || v > Version {
			t.Errorf("feature %d: introduced in version %d, not one of 2 to %d", f, v, Version)
		}
		if v < last {
			t.Errorf("feature %d: introduced in version %d, listed after a feature of version %d", f, v, last)
		}
		last = max(last, v)
		if has(v-1, f) || !has(v, f) || !has(Version, f) {
			t.Errorf("feature %d: has disagrees with version %d", f, v)
		}
	}
}
