package lookupopts

import (
	"testing"
)

func TestNearest(t *testing.T) {
	deep := []string{"strategy", "knockout_prefix", "merge_debug", "merge_hash_arrays", "sort_merged_arrays"}
	tests := []struct {
		in         string
		candidates []string
		want       string
	}{
		{"deeep", strategyNames, "deep"},
		{"Deep", strategyNames, "deep"},
		{"DEEP", strategyNames, "deep"},
		{"dep", strategyNames, "deep"},
		{"frist", strategyNames, "first"},
		{"unqiue", strategyNames, "unique"},
		{"deep", strategyNames, ""}, // known: not a misspelling
		{"bogus", strategyNames, ""},
		{"", strategyNames, ""},
		{"x", strategyNames, ""},
		{"true", strategyNames, ""},
		{"reverse_deep", strategyNames, ""},
		{"sort_merge_arrays", deep, "sort_merged_arrays"},
		{"sort-merged-arrays", deep, "sort_merged_arrays"},
		{"merge_hash_array", deep, "merge_hash_arrays"},
		{"knockoutprefix", deep, "knockout_prefix"},
		{"knock_out_prefix", deep, "knockout_prefix"},
		{"sort", deep, "sort_merged_arrays"},
		{"merge", deep, "merge_debug"}, // a prefix of two: the nearer
		{"preserve_unmergeables", deep, ""},
		{"srt", deep, ""},
	}
	for _, tc := range tests {
		if got := nearest(tc.in, tc.candidates); got != tc.want {
			t.Errorf("nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"deep", "deep", 0},
		{"deeep", "deep", 1}, {"hsah", "hash", 1}, {"ca", "abc", 3},
		{"kitten", "sitting", 3}, {"ünïque", "unique", 2},
	}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
