package rubybackend

import "testing"

// FuzzParseAnswer: whatever the helper writes (it runs the repository's
// Ruby code), reading it is an answer or an error, never a panic; an
// answer read is written back and read again the same.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"hash":{"h":[["a",{"i":"1"}],["b",{"sensitive":[{"f":"1.5"},null]}]]},"invalid":{"c":"bad"}}`,
		`{"values":[["k",{"h":[[{"i":"2"},true]]}]],"invalid":{}}`,
		`{"error":"Unable to find 'data_hash' function named 'x'"}`,
		`{"hash":[1]}`, `{"values":[[1,2]]}`, `nul`,
	} {
		f.Add([]byte(s), s[2] == 'v')
	}
	f.Fuzz(func(t *testing.T, line []byte, lookupKey bool) {
		kind := DataHash
		if lookupKey {
			kind = LookupKey
		}
		a, err := parseAnswer(line, kind)
		if err != nil {
			return
		}
		text := AnswerText(a, kind)
		b, err := parseAnswer([]byte(text), kind)
		if err != nil {
			t.Fatalf("%s: read back: %v", text, err)
		}
		if again := AnswerText(b, kind); again != text {
			t.Fatalf("round trip changed the answer:\n%s\n%s", text, again)
		}
	})
}
