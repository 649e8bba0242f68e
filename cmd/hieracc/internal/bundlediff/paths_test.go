package bundlediff

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Every format names files as the repository has them once MapPaths has
// mapped them (compile --env . at the repository's root: "env/" goes).
func TestMapPaths(t *testing.T) {
	r := fleetReport(t)
	r.MapPaths(func(p string) string { return strings.TrimPrefix(p, "env/") })
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return WriteText(b, r, Options{}) },
		"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, r, Options{}) },
		"json":     func(b *bytes.Buffer) error { return WriteJSON(b, r, Options{}) },
		"github":   func(b *bytes.Buffer) error { return WriteGitHub(b, r, Options{}) },
		"html":     func(b *bytes.Buffer) error { return WriteHTML(b, r, Options{}) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "env/") {
			i := strings.Index(b.String(), "env/")
			t.Errorf("%s names a compiler path: …%s…", name, b.String()[max(0, i-40):min(b.Len(), i+40)])
		}
		if !strings.Contains(b.String(), "data/common.yaml") {
			t.Errorf("%s names no data file", name)
		}
	}
	// Sides shared by entries and groups are mapped once.
	r = fleetReport(t)
	r.MapPaths(func(p string) string { return "x/" + p })
	var b bytes.Buffer
	WriteJSON(&b, r, Options{})
	if strings.Contains(b.String(), "x/x/") {
		t.Error("a path was mapped twice")
	}
}

// Each side's files are mapped by its own display (OLD and NEW compiled
// from folders at different places), and only by it.
func TestMapSidePaths(t *testing.T) {
	r := fleetReport(t)
	r.MapSidePaths(func(p string) string { return "old/" + p }, func(p string) string { return "new/" + p })
	var b bytes.Buffer
	if err := WriteJSON(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Changes []struct {
			Old, New *struct {
				Sources []struct{ File string }
				Error   *struct{ File string }
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, c := range doc.Changes {
		for prefix, s := range map[string]*struct {
			Sources []struct{ File string }
			Error   *struct{ File string }
		}{"old/": c.Old, "new/": c.New} {
			if s == nil {
				continue
			}
			for _, src := range s.Sources {
				files++
				if !strings.HasPrefix(src.File, prefix) || strings.HasPrefix(src.File, prefix+"old/") || strings.HasPrefix(src.File, prefix+"new/") {
					t.Errorf("a source of the %s side: %q", prefix, src.File)
				}
			}
			if s.Error != nil && s.Error.File != "" && !strings.HasPrefix(s.Error.File, prefix) {
				t.Errorf("an error of the %s side: %q", prefix, s.Error.File)
			}
		}
	}
	if files == 0 {
		t.Fatal("no file in the report")
	}
	// A nil display leaves its side alone.
	r = fleetReport(t)
	r.MapSidePaths(nil, func(p string) string { return "new/" + p })
	b.Reset()
	WriteJSON(&b, r, Options{})
	if !strings.Contains(b.String(), `"file": "new/`) || !strings.Contains(b.String(), `"file": "env/`) {
		t.Error("MapSidePaths(nil, new): want NEW's files mapped and OLD's as they were")
	}
}

// In a GitHub workflow, markdown links each source line to its file at the
// revision of its side.
func TestMarkdownLinks(t *testing.T) {
	r := fleetReport(t)
	r.MapPaths(func(p string) string { return strings.TrimPrefix(p, "env/") })
	env := map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/control", "GITHUB_SHA": "ffff"}
	links := LinksFromEnv(func(k string) string { return env[k] }, r)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r, Options{Links: links}); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "fleet.links.md.golden"), b.String())
	if LinksFromEnv(func(string) string { return "" }, r) != nil {
		t.Error("links outside a workflow")
	}
	for _, tc := range []struct {
		old  bool
		file string
		line int
		want string
	}{
		{false, "data/common.yaml", 3, "https://github.com/acme/control/blob/" + r.NewRevision + "/data/common.yaml#L3"},
		{true, "data/nodes/a b#1.yaml", 0, "https://github.com/acme/control/blob/" + r.OldRevision + "/data/nodes/a%20b%231.yaml"},
		{false, "/etc/puppetlabs/code/hiera.yaml", 1, ""},
		{false, "../elsewhere/common.yaml", 1, ""},
	} {
		if got := links.url(tc.old, tc.file, tc.line); got != tc.want {
			t.Errorf("url(%v, %q, %d) = %q, want %q", tc.old, tc.file, tc.line, got, tc.want)
		}
	}
}
