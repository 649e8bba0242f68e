package bundlediff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A list replaced on a fleet is one change per distinct (old, new) pair of
// lists, whatever its elements did, with the element-level changes inside.
func TestWholeArray(t *testing.T) {
	servers := func(v ...any) []any { return v }
	oldA, newA := servers("0.pool.ntp.org", "1.pool.ntp.org", "2.pool.ntp.org"), servers("ntp1.example.com", "ntp2.example.com")
	oldB, newB := servers("0.pool.ntp.org", "1.pool.ntp.org", "2.pool.ntp.org", "ntp.dmz"), servers("ntp1.example.com", "ntp2.example.com", "ntp.dmz")
	same := servers("a", "b")
	dirOld := writeDir(t,
		node("web01", key("h", hash("x", int64(1), "y", int64(2))), key("list", same), key("ntp::servers", oldA), key("pkgs", servers("vim", "git"))),
		node("web02", key("h", hash("x", int64(1), "y", int64(2))), key("list", same), key("ntp::servers", oldA), key("pkgs", servers("vim", "git"))),
		node("dmz01", key("list", same), key("ntp::servers", oldB)),
	)
	dirNew := writeDir(t,
		node("web01", key("h", hash("y", int64(2), "x", int64(1))), key("list", same), key("ntp::servers", newA), key("pkgs", servers("git", "vim"))),
		node("web02", key("h", hash("y", int64(2), "x", int64(1))), key("list", same), key("ntp::servers", newA), key("pkgs", servers("git", "vim"))),
		node("dmz01", key("list", same), key("ntp::servers", newB)),
	)
	r, err := Compare(dirOld, dirNew, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Key, Path string
		Kind      Kind
		Old, New  any
		Parts     int
		Nodes     []string
	}
	var got []entry
	for _, e := range r.Entries {
		g := entry{Key: e.Key, Path: e.Path, Kind: e.Kind, Parts: len(e.Parts), Nodes: e.Nodes}
		if e.Old != nil && e.Old.Keys == nil {
			g.Old = e.Old.Value
		}
		if e.New != nil && e.New.Keys == nil {
			g.New = e.New.Value
		}
		got = append(got, g)
	}
	want := []entry{
		{Key: "h", Kind: Reordered, Nodes: []string{"web01", "web02"}},
		{Key: "ntp::servers", Kind: Changed, Old: oldA, New: newA, Parts: 3, Nodes: []string{"web01", "web02"}},
		{Key: "ntp::servers", Kind: Changed, Old: oldB, New: newB, Parts: 3, Nodes: []string{"dmz01"}},
		{Key: "pkgs", Kind: Reordered, Old: servers("vim", "git"), New: servers("git", "vim"), Parts: 2, Nodes: []string{"web01", "web02"}},
	}
	if d := cmp.Diff(want, got, cmpOpts); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	if d := describe(r.Entries[3].Change); d != "order changed (same elements)" {
		t.Errorf("order-only change described as %q", d)
	}

	// --ignore-order-changes leaves the order-only changes out.
	r, err = Compare(dirOld, dirNew, Filter{IgnoreOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range r.Entries {
		keys = append(keys, e.Key)
	}
	if d := cmp.Diff([]string{"ntp::servers", "ntp::servers"}, keys); d != "" {
		t.Errorf("with IgnoreOrder, keys changed (-want +got):\n%s", d)
	}
	if r.Summary.Changed != 3 {
		t.Errorf("with IgnoreOrder, %d nodes changed, want 3", r.Summary.Changed)
	}
}

// A side's revision is the one all its bundles share, else unknown.
func TestRevisions(t *testing.T) {
	var r revisions
	r.note(true, "aaa")
	r.note(true, "aaa")
	r.note(false, "bbb")
	r.note(false, "")
	if o, n := r.get(); o != "aaa" || n != "" {
		t.Errorf("revisions %q, %q; want aaa and none (NEW's bundles disagree)", o, n)
	}
}
