package compiler

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
)

// TestLoadFactsByteOrderMark pins how a facts file starting with a UTF-8
// byte order mark is read: as puppet lookup --facts reads it, a YAML file
// without the mark (every fact kept, none renamed), a JSON file not at all.
// The byte-order-mark conformance case checks the YAML side against Puppet.
func TestLoadFactsByteOrderMark(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	tests := []struct {
		file, src string
		want      []string // fact names, in order
		err       string   // a substring of the one diagnostic
	}{
		{file: "n.yaml", src: bom + "os: linux\nrole: web\nteam:\n  name: ops\n", want: []string{"os", "role", "team"}},
		{file: "n.yml", src: bom + "- os\n", err: "is an array whose element 1 is a string"},
		{file: "n.json", src: bom + `{"os": "linux",` + "\n" + `"role": "web"}`, err: "unexpected token"},
		{file: "n.json", src: `{"os": "linux", "role": "web"}`, want: []string{"os", "role"}},
	}
	for _, tc := range tests {
		fsys := fstest.MapFS{tc.file: {Data: []byte(tc.src)}}
		n, ds := LoadFacts(fsys, tc.file)
		if tc.err != "" {
			if len(ds) != 1 || !strings.Contains(ds[0].Message, tc.err) {
				t.Errorf("%s %q: got %v, want one error containing %q", tc.file, tc.src, ds, tc.err)
			}
			continue
		}
		if len(ds) != 0 {
			t.Errorf("%s %q: %v", tc.file, tc.src, ds)
			continue
		}
		var got []string
		for k := range n.Facts.All() {
			got = append(got, k.(string))
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s %q: facts (-want +got):\n%s", tc.file, tc.src, d)
		}
	}
}

// TestSanitizeFacts: null fact values, at any depth, become "" (Puppet's
// fact sanitizing); facts holding none are taken as they are.
func TestSanitizeFacts(t *testing.T) {
	hash := func(kv ...any) *format.Hash {
		h := format.NewHash(len(kv) / 2)
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name      string
		in, want  *format.Hash
		unchanged bool // the same hash comes back
	}{
		{"none", hash("os", hash("family", "Debian"), "ips", []any{"a", int64(1)}), hash("os", hash("family", "Debian"), "ips", []any{"a", int64(1)}), true},
		{"top", hash("a", nil, "b", "x"), hash("a", "", "b", "x"), false},
		{"nested", hash("os", hash("release", hash("minor", nil))), hash("os", hash("release", hash("minor", ""))), false},
		{"in an array", hash("l", []any{"x", nil}), hash("l", []any{"x", ""}), false},
		{"a nil hash", hash("h", (*format.Hash)(nil)), hash("h", format.NewHash(0)), false},
		{"no facts", nil, format.NewHash(0), false},
	}
	for _, tc := range tests {
		got := sanitizeFacts(tc.in)
		if got == nil || !format.Identical(got, tc.want) {
			t.Errorf("%s: sanitizeFacts = %v, want %v", tc.name, got, tc.want)
		}
		if (got == tc.in) != tc.unchanged {
			t.Errorf("%s: the same hash back: %v, want %v", tc.name, got == tc.in, tc.unchanged)
		}
	}
}
