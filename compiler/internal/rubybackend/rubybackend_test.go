package rubybackend

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
)

func hash(kv ...any) *format.Hash {
	h := format.NewHash(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// show renders a value with its types, for comparisons.
func show(v any) string {
	b, _ := json.Marshal(encodeValue(v))
	return string(b)
}

// TestValuesRoundTrip: what the compiler sends comes back the same, types
// and key order included.
func TestValuesRoundTrip(t *testing.T) {
	for _, v := range []any{
		nil, "s", true, int64(-12), 1.0, 1.5e300, math.Inf(1), math.Inf(-1),
		[]any{int64(1), "1", 1.0, nil},
		hash("b", int64(1), "a", hash(int64(2), "two", 1.5, false, nil, "nil", true, "t")),
	} {
		b, _ := json.Marshal(encodeValue(v))
		got, sens, err := decodeValue(b)
		if err != nil || sens {
			t.Fatalf("%s: %v (sensitive %v)", b, err, sens)
		}
		if show(got) != show(v) {
			t.Errorf("round trip of %s gave %s", show(v), show(got))
		}
	}
	nan, _, err := decodeValue([]byte(`{"f":"NaN"}`))
	if f, ok := nan.(float64); err != nil || !ok || !math.IsNaN(f) {
		t.Errorf("NaN: %v %v", nan, err)
	}
}

// TestDecodeRefuses: what is not a value is an error, never a guess.
func TestDecodeRefuses(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	for _, src := range []string{
		`{"i":"1.5"}`, `{"i":"99999999999999999999"}`, `{"f":"x"}`, `{"x":1}`, `{"i":"1","f":"1"}`,
		`{"h":[["a"]]}`, `{"h":[[["a"],1]]}`, `{"h":[[{"h":[]},1]]}`, `1`, deep,
	} {
		if v, _, err := decodeValue([]byte(src)); err == nil {
			t.Errorf("%.40s: got %s, want an error", src, show(v))
		}
	}
	v, sens, err := decodeValue([]byte(`{"h":[["a",{"sensitive":"pw"}]]}`))
	if err != nil || !sens || show(v) != `{"h":[["a","pw"]]}` {
		t.Errorf("sensitive: %s %v %v", show(v), sens, err)
	}
}

// fake answers from a table.
type fake map[string]Answer

func (f fake) Call(_ context.Context, req Request) (Answer, error) { return f[req.Function], nil }

// TestReplayAnswersAsRecorded: a transcript replays every answer, and
// refuses a request it does not hold.
func TestReplayAnswersAsRecorded(t *testing.T) {
	answers := fake{
		"dh":  {Data: hash("a", int64(1), "pw", "s3cret", "bad", nil), Invalid: map[string]string{"bad": "Value for key 'bad' has wrong type"}, Secret: map[string]bool{"pw": true}},
		"lk":  {Data: hash("k", []any{"x"}), Invalid: map[string]string{}, Secret: map[string]bool{}},
		"err": {Err: "Unable to find 'data_hash' function named 'err'"},
	}
	reqs := []Request{
		{Kind: DataHash, Function: "dh", Level: "L", Path: "env/data/x.kv", Node: "web01", Facts: hash("dc", "ams"), Options: hash("o", "%{facts.dc}")},
		{Kind: LookupKey, Function: "lk", Level: "L", URI: "cmdb://ams", Node: "web01", Keys: []string{"lookup_options", "k", "j"}},
		{Kind: DataHash, Function: "err", Level: "L", Node: "db01"},
	}
	rec := &Recorder{B: answers}
	want := make([]Answer, len(reqs))
	for i, r := range reqs {
		a, err := rec.Call(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = a
	}
	replay, err := NewReplay(rec.Transcript())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		got, err := replay.Call(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if AnswerText(got, r.Kind) != AnswerText(want[i], r.Kind) {
			t.Errorf("%s: replayed %s, want %s", r.Function, AnswerText(got, r.Kind), AnswerText(want[i], r.Kind))
		}
	}
	other := reqs[0]
	other.Node = "db01"
	if _, err := replay.Call(context.Background(), other); err == nil || !strings.Contains(err.Error(), "no recorded answer") {
		t.Errorf("a request never recorded: %v", err)
	}
}

// script writes an executable shell script standing for Ruby.
func script(t *testing.T, body string) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	p := filepath.Join(t.TempDir(), "ruby")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHelperFailures: a helper that crashes, hangs or answers nonsense
// fails the calls clearly, and the calls after it too.
func TestHelperFailures(t *testing.T) {
	ready := `read l; echo '{"ready":"7.23.0"}'; `
	tests := []struct {
		name, body string
		start      string // error of Start ("" = starts)
		call       string // error of Call
	}{
		{"crash at start", "exit 3", "the Ruby helper exited", ""},
		{"no puppet", `read l; echo '{"error":"cannot load Puppet: cannot load such file -- puppet"}'`, "cannot load Puppet", ""},
		{"crash", ready + "read l; exit 3", "", "the Ruby helper exited (exit status 3)"},
		{"hang", ready + "read l; sleep 30", "", "did not answer within 300ms"},
		{"nonsense", ready + "read l; echo '{\"hash\":[1]}'; sleep 30", "", "answered nonsense"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Start(context.Background(), Config{Ruby: script(t, tc.body), Timeout: 300 * time.Millisecond})
			if tc.start != "" {
				if err == nil || !strings.Contains(err.Error(), tc.start) {
					t.Fatalf("Start: %v, want an error containing %q", err, tc.start)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			req := Request{Kind: DataHash, Function: "f", Node: "n"}
			for i := 0; i < 2; i++ { // the call that fails, and the next
				if _, err := p.Call(context.Background(), req); err == nil || !strings.Contains(err.Error(), tc.call) {
					t.Fatalf("call %d: %v, want an error containing %q", i, err, tc.call)
				}
			}
		})
	}
}

// TestPathsMapped: locations go to the helper as disk paths, and the disk
// paths in Puppet's messages come back as the compiler's.
func TestPathsMapped(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "requests")
	body := `read l; echo '{"ready":"7"}'; read l; echo "$l" > ` + log + `; echo '{"error":"Value returned from data_hash function '"'f'"', when using location '"'/srv/code/env/data/x.kv'"', has wrong type"}'`
	p, err := Start(context.Background(), Config{Ruby: script(t, body), Roots: []Root{{FS: "env", Disk: "/srv/code/env"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, err := p.Call(context.Background(), Request{Kind: DataHash, Function: "f", Path: "env/data/x.kv", Node: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Value returned from data_hash function 'f', when using location 'env/data/x.kv', has wrong type"; a.Err != want {
		t.Errorf("message %q, want %q", a.Err, want)
	}
	sent, _ := os.ReadFile(log)
	var got map[string]any
	if err := json.Unmarshal(sent, &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]any{"path": "/srv/code/env/data/x.kv"}, got["location"]); d != "" {
		t.Errorf("location sent (-want +got):\n%s", d)
	}
}
