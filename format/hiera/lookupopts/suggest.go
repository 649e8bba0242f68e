package lookupopts

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Suggestions for misspelled merge options. Puppet 3 ignored a misspelled
// deep merge option silently; Puppet 7 rejects it, but only says what is
// wrong. Messages keep Puppet's text as their start (tests of the
// conformance corpus look for it) and append a hint: "Unknown merge
// strategy: 'deeep' (did you mean 'deep'?)".

// strategyNames are the merge strategies a hint may suggest: those hieracc
// supports, in the order they are tried on a tie.
var strategyNames = []string{"first", "unique", "hash", "deep", "default", "unconstrained_deep"}

// hintError is an error of Puppet's with a hint of hieracc's appended.
type hintError struct {
	puppet string // Puppet's message, unchanged
	hint   string // " (did you mean 'deep'?)"
}

func (e *hintError) Error() string { return e.puppet + e.hint }

// PuppetMessage is err's message without the hint hieracc appended to it:
// Puppet's own text, which the conformance corpus compares.
func PuppetMessage(err error) string {
	var h *hintError
	if errors.As(err, &h) {
		return h.puppet
	}
	return err.Error()
}

// withHint appends hint to err's message; err is returned as it is when
// there is no hint.
func withHint(err error, hint string) error {
	if err == nil || hint == "" {
		return err
	}
	return &hintError{puppet: err.Error(), hint: hint}
}

// misspelling is a name that is not known, and the known name it is
// nearest to.
type misspelling struct{ got, want string }

// didYouMean words hints for misspellings: " (did you mean 'deep'?)" for
// one, " (did you mean 'a' for 'x', 'b' for 'y'?)" for several, "" for none.
func didYouMean(ms []misspelling) string {
	switch len(ms) {
	case 0:
		return ""
	case 1:
		return " (did you mean '" + ms[0].want + "'?)"
	}
	var b strings.Builder
	b.WriteString(" (did you mean ")
	for i, m := range ms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + m.want + "' for '" + m.got + "'")
	}
	b.WriteString("?)")
	return b.String()
}

// Nearest returns the candidate s is most likely a misspelling of, or "",
// for "did you mean" hints elsewhere (hiera.yaml's data_hash names, say).
func Nearest(s string, candidates []string) string { return nearest(s, candidates) }

// nearest returns the candidate s is most likely a misspelling of, or ""
// when none is near: the same name but for case, '-' for '_', a
// transposition, a letter too many or too few, ... (an edit distance of at
// most a third of the candidate's length), or a prefix of at least four
// letters ("sort" for "sort_merged_arrays").
func nearest(s string, candidates []string) string {
	if s == "" || utf8.RuneCountInString(s) > 64 {
		return ""
	}
	norm := func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "-", "_") }
	ns := norm(s)
	best, bestDist := "", -1
	for _, c := range candidates {
		if c == s {
			return "" // not a misspelling
		}
		nc := norm(c)
		d := editDistance(ns, nc)
		limit := max(1, utf8.RuneCountInString(c)/3)
		if d > limit && !(len(ns) >= 4 && strings.HasPrefix(nc, ns)) {
			continue
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of adjacent
// runes each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows: i-2, i-1, i.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
