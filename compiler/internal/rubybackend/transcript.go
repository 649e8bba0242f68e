package rubybackend

// Recorded transcripts: a Recorder keeps every request a compile made and
// the answer it got; a Replay answers the same requests from them without
// Ruby, so that tests pin what real Puppet answered on any machine.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A Recorder passes requests to B and records them with their answers.
type Recorder struct {
	B       Backend
	mu      sync.Mutex
	entries map[string]string // request → answer, as JSON lines
}

// Call asks B and records the exchange.
func (r *Recorder) Call(ctx context.Context, req Request) (Answer, error) {
	a, err := r.B.Call(ctx, req)
	if err != nil {
		return a, err
	}
	q, ans := requestKey(req), answerJSON(a, req.Kind)
	r.mu.Lock()
	if r.entries == nil {
		r.entries = map[string]string{}
	}
	r.entries[q] = ans
	r.mu.Unlock()
	return a, nil
}

// Transcript is what was recorded: a request line and its answer line
// each, in the order of the requests' text, so that the same compile
// always records the same bytes.
func (r *Recorder) Transcript() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.entries))
	for k := range r.entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	for _, k := range keys {
		b.WriteString(k + "\n" + r.entries[k] + "\n")
	}
	return b.Bytes()
}

// A Replay answers the requests of a transcript.
type Replay struct {
	answers map[string]string
}

// NewReplay reads a transcript that Recorder.Transcript wrote.
func NewReplay(transcript []byte) (*Replay, error) {
	lines := strings.Split(strings.TrimSuffix(string(transcript), "\n"), "\n")
	if len(lines)%2 != 0 {
		return nil, fmt.Errorf("transcript: %d lines, want a request and an answer each", len(lines))
	}
	r := &Replay{answers: map[string]string{}}
	for i := 0; i+1 < len(lines); i += 2 {
		r.answers[lines[i]] = lines[i+1]
	}
	return r, nil
}

// Call answers req as recorded; a request never recorded is an error.
func (r *Replay) Call(_ context.Context, req Request) (Answer, error) {
	q := requestKey(req)
	ans, ok := r.answers[q]
	if !ok {
		return Answer{}, fmt.Errorf("no recorded answer for %s", q)
	}
	return parseAnswer([]byte(ans), req.Kind)
}

// requestKey is req's text in a transcript (JSON with sorted keys).
func requestKey(req Request) string {
	b, _ := json.Marshal(wireRequest(req, func(p string) string { return p }))
	return string(b)
}

// answerJSON is a's text in a transcript: the helper's answer, which
// parseAnswer reads back.
func answerJSON(a Answer, kind string) string {
	var m map[string]any
	switch {
	case a.Err != "" || a.Data == nil:
		m = map[string]any{"error": a.Err}
	case kind == DataHash:
		pairs := make([][2]any, 0, a.Data.Len())
		for k, v := range a.Data.All() {
			ks, _ := k.(string)
			pairs = append(pairs, [2]any{encodeValue(k), wrap(v, a.Secret[ks])})
		}
		m = map[string]any{"hash": map[string]any{"h": pairs}, "invalid": a.Invalid}
	default:
		values := make([][2]any, 0, a.Data.Len())
		for k, v := range a.Data.All() {
			ks, _ := k.(string)
			values = append(values, [2]any{ks, wrap(v, a.Secret[ks])})
		}
		m = map[string]any{"values": values, "invalid": a.Invalid}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func wrap(v any, sensitive bool) any {
	if sensitive {
		return map[string]any{"sensitive": encodeValue(v)}
	}
	return encodeValue(v)
}

// AnswerText is a's text in a transcript, which the compiler digests
// into a bundle's revision.
func AnswerText(a Answer, kind string) string { return answerJSON(a, kind) }
