package conformancetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopkg.in/yaml.v3"
)

// TestDiffSeesTypesAndOrder: what Puppet printed and what the expected
// value says differ when a number's type or a hash's key order does.
func TestDiffSeesTypesAndOrder(t *testing.T) {
	want := func(src string) any {
		var ck Check
		if err := yaml.Unmarshal([]byte("value: "+src), &ck); err != nil {
			t.Fatal(err)
		}
		v, err := ck.Want()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		yaml, json string
		same       bool
	}{
		{`{"a": 1, "b": [1.5, "x", null, true]}`, `{"a":1,"b":[1.5,"x",null,true]}`, true},
		{`{"a": 1, "b": 2}`, `{"b":2,"a":1}`, false},
		{`1`, `1.0`, false},
		{`"1"`, `1`, false},
		{`[]`, `{}`, false},
	}
	for _, tc := range tests {
		got, err := DecodeJSON(tc.json)
		if err != nil {
			t.Fatal(err)
		}
		if d := Diff(want(tc.yaml), got); (d == "") != tc.same {
			t.Errorf("Diff(%s, %s) = %q, want same=%v", tc.yaml, tc.json, d, tc.same)
		}
	}
}

func TestMergeFlags(t *testing.T) {
	var ck Check
	src := `merge: {strategy: deep, knockout_prefix: "--", sort_merged_arrays: true}`
	if err := yaml.Unmarshal([]byte(src), &ck); err != nil {
		t.Fatal(err)
	}
	flags, err := ck.MergeFlags()
	if err != nil || len(flags) != 4 || flags[2] != "--knock-out-prefix=--" {
		t.Errorf("MergeFlags = %q, %v", flags, err)
	}
	m, err := ck.LookupMerge()
	if err != nil || m.Strategy != "deep" || m.KnockoutPrefix != "--" || !m.SortMergedArrays || m.MergeHashArrays {
		t.Errorf("LookupMerge = %+v, %v", m, err)
	}
}

// TestReadFlags: a flag names a file of the case, or, for a flag that
// names none, gives its value as written.
func TestReadFlags(t *testing.T) {
	dir := t.TempDir()
	src := "--pkcs7-private-key keys/private.pem\n--ruby-backends puppet\n--keys keys.txt\n"
	if err := os.WriteFile(filepath.Join(dir, "hieracc-flags"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFlags(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Flag{
		{Name: "--pkcs7-private-key", Path: filepath.Join(dir, "keys/private.pem"), Value: "keys/private.pem"},
		{Name: "--ruby-backends", Value: "puppet"},
		{Name: "--keys", Path: filepath.Join(dir, "keys.txt"), Value: "keys.txt"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ReadFlags (-want +got):\n%s", d)
	}
	if got[1].Arg() != "puppet" || got[2].Arg() != filepath.Join(dir, "keys.txt") {
		t.Errorf("Arg: %q, %q", got[1].Arg(), got[2].Arg())
	}
}

// TestMissingLinks: a case runs where the links its "symlinks" file lists
// are links, and is skipped where a checkout made them plain files.
func TestMissingLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "symlinks"), []byte("a.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/opt/hieracc-test-nonexistent/a.yaml", filepath.Join(dir, "a.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if why := MissingLinks(dir); why != "" {
		t.Errorf("with the link: %s", why)
	}
	if err := os.Remove(filepath.Join(dir, "a.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("/opt/hieracc-test-nonexistent/a.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why := MissingLinks(dir); why == "" {
		t.Error("a plain file where the link was: not reported")
	}
	if why := MissingLinks(t.TempDir()); why != "" {
		t.Errorf("a case without links: %s", why)
	}
}
