package bundlediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hieracc/hieracc/format"
)

// githubCommentLimit is the most characters GitHub takes in a comment.
const githubCommentLimit = 65536

// scaleFleet compares OLD and NEW bundles of 10,000 nodes: 5,000
// web*.fra1.example.net, 4,000 web*.ams2.example.net and 1,000
// db*.fra1.example.net. A change to common data touches every node, a
// role's type change the 9,000 web nodes, and the db nodes get an error
// and a 5,000-character value.
func scaleFleet() *Report {
	var names []string
	for i := range 5000 {
		names = append(names, fmt.Sprintf("web%04d.fra1.example.net", i))
	}
	for i := range 4000 {
		names = append(names, fmt.Sprintf("web%04d.ams2.example.net", i))
	}
	for i := range 1000 {
		names = append(names, fmt.Sprintf("db%04d.fra1.example.net", i))
	}
	long := strings.Repeat("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI", 130)
	bundle := func(name string, changed bool) *format.Bundle {
		shell, port, motd, keys := "/usr/sbin/nologin", any(int64(443)), key("motd", "Welcome"), key("ssh::keys", long)
		if changed {
			shell, port = "/bin/false", "443"
			if strings.HasPrefix(name, "db") {
				motd = failed("motd", "Evaluation Error: Unknown variable: '::role'")
				keys = key("ssh::keys", long+" changed")
			}
		}
		users := hash("backup", hash("uid", int64(34), "shell", shell))
		ks := []format.Key{deep("accounts::users", users, at(lvCommon, 43, users)), motd}
		if strings.HasPrefix(name, "web") {
			ks = append(ks, key("nginx::port", port, at(lvRole, 4, port)))
		} else {
			ks = append(ks, keys)
		}
		return node(name, ks...)
	}
	// Diffed in memory: 20,000 bundles on disk take half a minute on a
	// busy machine, and Compare's reading is tested elsewhere.
	slices.Sort(names) // as Compare lists them
	results := make([][]Change, len(names))
	for i, n := range names {
		results[i] = diffBundles(bundle(n, false), bundle(n, true), &Filter{})
	}
	r := group(names, results, nil, nil)
	r.Old, r.New = "bundles-main", "bundles-pr"
	return r
}

// TestFleetScale: a change touching 10,000 nodes reads once, with patterns
// of the nodes' names, in text; the markdown report fits a GitHub comment
// and shows every distinct change (4), with or without full node lists; JSON
// lists every node.
func TestFleetScale(t *testing.T) {
	r := scaleFleet()
	if len(r.Entries) != 4 {
		t.Fatalf("%d entries, want 4", len(r.Entries))
	}
	heads := map[string]string{ // each distinct change, and how its nodes read
		"accounts::users /backup/shell: changed":        "on 10000 nodes: web*.fra1.example.net (all 5000), web*.ams2.example.net (all 4000), db*.fra1.example.net (all 1000)",
		"motd: error appeared":                          "on 1000 nodes: db*.fra1.example.net (all 1000)",
		"nginx::port: type changed (Integer to String)": "on 9000 nodes: web*.fra1.example.net (all 5000), web*.ams2.example.net (all 4000)",
		"ssh::keys: changed":                            "on 1000 nodes: db*.fra1.example.net (all 1000)",
	}

	var text bytes.Buffer
	if err := WriteText(&text, r, Options{}); err != nil {
		t.Fatal(err)
	}
	for head, nodes := range heads {
		on, list, _ := strings.Cut(nodes, ": ")
		nodes = wrapList("  "+on+": ", strings.Split(list, ", ")) // as text wraps it
		if n := strings.Count(text.String(), "\n"+head+"\n"+nodes+"\n"); n != 1 {
			t.Errorf("text shows %q with %q %d times, want once", head, nodes, n)
		}
	}
	if !strings.Contains(text.String(), "10000 nodes compared: 10000 changed, 0 unchanged, 0 only in OLD, 0 only in NEW; 4 keys changed; errors: 1 appeared (1000 nodes with new errors)\n") {
		t.Errorf("text summary missing or wrong:\n%s", text.String()[:min(text.Len(), 500)])
	}
	if text.Len() > 20000 {
		t.Errorf("text report of 5 changes is %d bytes", text.Len())
	}

	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprintf("markdown full=%v", full), func(t *testing.T) {
			var md bytes.Buffer
			if err := WriteMarkdown(&md, r, Options{FullNodes: full}); err != nil {
				t.Fatal(err)
			}
			s := md.String()
			if n := utf8.RuneCountInString(s); n >= githubCommentLimit || md.Len() > mdMaxBytes {
				t.Errorf("markdown is %d characters, %d bytes: over the limit", n, md.Len())
			}
			for _, want := range []string{
				"| 10000 nodes: `web*.fra1.example.net` (all 5000), `web*.ams2.example.net` (all 4000), `db*.fra1.example.net` (all 1000) | `accounts::users` | `/backup/shell` | changed |",
				"| 1000 nodes: `db*.fra1.example.net` (all 1000) | `motd` |  | error appeared |",
				"| 9000 nodes: `web*.fra1.example.net` (all 5000), `web*.ams2.example.net` (all 4000) | `nginx::port` |  | type changed (Integer to String) |",
				"| 1000 nodes: `db*.fra1.example.net` (all 1000) | `ssh::keys` |  | changed |",
			} {
				if !strings.Contains(s, want) {
					t.Errorf("markdown lacks the row %q", want)
				}
			}
			if strings.Contains(s, "not shown") {
				t.Errorf("markdown left changes out")
			}
			if !strings.Contains(s, "…") {
				t.Errorf("the 5,000-character value was not cut")
			}
			cutLists := strings.Contains(s, "Cut to fit a pull-request comment: node lists")
			if cutLists != full {
				t.Errorf("says it cut node lists: %v, want %v", cutLists, full)
			}
		})
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, r, Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Changes []struct {
			Key   string   `json:"key"`
			Path  string   `json:"path"`
			Nodes []string `json:"nodes"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Changes) != 4 || len(doc.Changes[0].Nodes) != 10000 {
		t.Errorf("JSON: %d changes, the first of %d nodes; want 4, the first of 10000", len(doc.Changes), len(doc.Changes[0].Nodes))
	}
}

// TestMarkdownLimit: when even the shortest rows do not fit, rows are left
// out, counted, and the comment says so; it never goes past the limit.
func TestMarkdownLimit(t *testing.T) {
	var common []string
	var results [][]Change
	long := strings.Repeat("x", 150)
	for i := range 3000 {
		common = append(common, fmt.Sprintf("n%04d.example.net", i))
		results = append(results, []Change{{Key: "k", Kind: Changed,
			Old: &Side{Value: long, Sources: []Source{src(lvNode, 3, common[i])}},
			New: &Side{Value: long + fmt.Sprint(i), Sources: []Source{src(lvNode, 3, common[i])}}}})
	}
	r := group(common, results, nil, nil)
	for _, n := range []int{30, 300, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rr := *r
			rr.Entries = r.Entries[:n]
			var b bytes.Buffer
			WriteMarkdown(&b, &rr, Options{})
			s := b.String()
			if b.Len() > mdMaxBytes {
				t.Errorf("markdown is %d bytes, over %d", b.Len(), mdMaxBytes)
			}
			rows := strings.Count(s, " | `k` |  | changed | ")
			cutSaid := strings.Contains(s, "_Cut to fit a pull-request comment: ")
			notShown := strings.Contains(s, fmt.Sprintf("; %d more changes not shown.", n-rows))
			switch {
			case n == 30 && (rows != n || cutSaid):
				t.Errorf("30 short changes: %d rows, cut %v; want all, uncut", rows, cutSaid)
			case n == 300 && (rows != n || !cutSaid || notShown):
				t.Errorf("300 changes: %d rows, cut said %v; want all rows, shortened, and said so", rows, cutSaid)
			case n == 3000 && (rows == 0 || rows == n || !notShown):
				t.Errorf("3000 changes: %d rows shown, or the rest not counted:\n%s", rows, s[len(s)-300:])
			}
		})
	}
}

// TestMarkdownLimitHostile: keys, paths, error messages and node names
// that cannot be shortened still give a comment under the limit that
// counts what it left out.
func TestMarkdownLimitHostile(t *testing.T) {
	var common []string
	var results [][]Change
	for i := range 200 {
		n := fmt.Sprintf("%s%03d.example.net", strings.Repeat("n", 200), i)
		common = append(common, n)
		results = append(results, []Change{
			{Key: fmt.Sprintf("%s%03d", strings.Repeat("k", 2000), i), Path: "/" + strings.Repeat("p", 3000), Kind: Added,
				New: &Side{Value: strings.Repeat("v|`*", 3000)}},
			{Key: "err", Kind: ErrorChanged, New: &Side{Err: &format.Error{Message: strings.Repeat("boom ", 2000) + n}}},
		})
	}
	r := group(common, results, []string{strings.Repeat("o", 5000)}, nil)
	r.Old, r.New = strings.Repeat("old/", 100), strings.Repeat("new/", 100)
	var b bytes.Buffer
	WriteMarkdown(&b, r, Options{FullNodes: true})
	s := b.String()
	if b.Len() > mdMaxBytes {
		t.Errorf("markdown is %d bytes, over %d", b.Len(), mdMaxBytes)
	}
	rows := strings.Count(s, "\n| 1 node")
	if want := fmt.Sprintf("; %d more changes not shown.", len(r.Entries)-rows); rows == len(r.Entries) || !strings.Contains(s, want) {
		t.Errorf("%d of %d rows shown; the note does not say %q", rows, len(r.Entries), want)
	}
}
