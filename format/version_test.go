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

// TestRecordsMergeFrom: versions 1 and 2 do not record where a key's
// merge comes from; version 3 on do.
func TestRecordsMergeFrom(t *testing.T) {
	for v, want := range map[int]bool{1: false, 2: false, 3: true, Version: true} {
		if got := RecordsMergeFrom(v); got != want {
			t.Errorf("RecordsMergeFrom(%d) = %v, want %v", v, got, want)
		}
	}
}
