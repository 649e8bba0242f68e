package dataload

import (
	"strings"
	"testing"
)

// TestShortWords: tokenize's shortcut for a short ASCII line starting
// like a boolean or null (shortWord) gives what Psych's regular
// expressions give: every word of up to 4 characters from letters of
// "null", "yes", "true", "on", "no", "false", "off" in either case (and
// a few others), and every casing of those words, alone or followed by a
// blank, "\r" or a digit.
func TestShortWords(t *testing.T) {
	viaRegexps := func(s string) any {
		if len([]rune(s)) > 5 || reNotBoolML.MatchString(s) {
			return s
		}
		switch {
		case s == "~" || reNullML.MatchString(s):
			return nil
		case reTrueML.MatchString(s):
			return true
		case reFalseML.MatchString(s):
			return false
		}
		return s
	}
	check := func(s string) {
		t.Helper()
		if got, want := shortWord(s), viaRegexps(s); got != want {
			t.Errorf("shortWord(%q) = %#v, want %#v", s, got, want)
		}
	}
	const alphabet = "yYtTnNoOfFeEsSuUlLrRaA \r1."
	var words func(prefix string, n int)
	words = func(prefix string, n int) {
		check(prefix)
		if n == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			words(prefix+alphabet[i:i+1], n-1)
		}
	}
	for _, c := range "ytonfYTONF" {
		words(string(c), 3)
	}
	for _, w := range []string{"null", "yes", "true", "on", "no", "false", "off"} {
		for mask := 0; mask < 1<<len(w); mask++ {
			b := []byte(w)
			for i := range b {
				if mask&(1<<i) != 0 {
					b[i] = strings.ToUpper(string(b[i]))[0]
				}
			}
			for _, tail := range []string{"", " ", "\r", "1", "\t"} {
				if s := string(b) + tail; len(s) <= 5 {
					check(s)
				}
			}
		}
	}
}
