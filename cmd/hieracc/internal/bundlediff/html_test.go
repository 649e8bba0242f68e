package bundlediff

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format"
)

// writers are every format.
var writers = map[string]func(io.Writer, *Report, Options) error{
	"text": WriteText, "markdown": WriteMarkdown, "json": WriteJSON, "github": WriteGitHub, "html": WriteHTML,
}

// The HTML report is one page that needs nothing else: no address it
// would load from, no script, style sheet, font or image of its own.
func TestHTMLSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, fleetReport(t), Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, re := range []string{`<script[^>]+src=`, `<link\b`, `@import`, `url\(`, `<img\b`, `<iframe\b`, `src="http`} {
		if m := regexp.MustCompile(re).FindString(page); m != "" {
			t.Errorf("the page loads something: %s", m)
		}
	}
}

// No format shows a secret's value, the HTML report included.
func TestSecretsInEveryFormat(t *testing.T) {
	const plain = "hunter2-the-decrypted-password"
	k := func(v string) format.Key {
		kk := key("app::db_password", v)
		kk.Secret = true
		return kk
	}
	r, err := Compare(writeDir(t, node("web01", k(plain))), writeDir(t, node("web01", k(plain+"-rotated"))), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range writers {
		var b bytes.Buffer
		if err := write(&b, r, Options{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "hunter2") {
			t.Errorf("%s shows a secret's value", name)
		}
		if !strings.Contains(b.String(), "app::db_password") {
			t.Errorf("%s does not say the secret key changed", name)
		}
	}
}

// The HTML report in a real browser (headless Chromium, when installed:
// Debian's chromium, or the browser HIERACC_CHROMIUM names): the page
// loads with no script error, shows every change, and its filters work.
// HIERACC_ARTIFACTS names a folder to keep the page and its screenshot in;
// by default they go to the test's temporary folder.
func TestHTMLInBrowser(t *testing.T) {
	browser := os.Getenv("HIERACC_CHROMIUM")
	if browser == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				browser = p
				break
			}
		}
	}
	if browser == "" {
		t.Skip("no headless Chromium: apt-get install chromium (or set HIERACC_CHROMIUM) to test the HTML report in a browser")
	}
	out := os.Getenv("HIERACC_ARTIFACTS")
	if out == "" {
		out = t.TempDir()
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	r := fleetReport(t)
	r.MapPaths(func(p string) string { return strings.TrimPrefix(p, "env/") })
	env := map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/control"}
	var b bytes.Buffer
	if err := WriteHTML(&b, r, Options{Links: LinksFromEnv(func(k string) string { return env[k] }, r)}); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(out, "report.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	profile := t.TempDir()
	run := func(query string, extra ...string) (dom, log string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		u := (&url.URL{Scheme: "file", Path: page, RawQuery: query}).String()
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
			"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"}, extra...)
		cmd := exec.CommandContext(ctx, browser, append(args, u)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", browser, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}

	dom, log := run("", "--dump-dom")
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console: %s", line)
		}
	}
	body := regexp.MustCompile(`<body[^>]*>`).FindString(dom)
	if !strings.Contains(body, `data-ready="1"`) {
		t.Fatalf("the page's script did not finish: %s\n%s", body, log)
	}
	if strings.Contains(body, "data-errors") {
		t.Errorf("the page reports errors: %s", body)
	}
	if want := fmt.Sprintf(`data-shown="%d"`, len(r.Entries)); !strings.Contains(body, want) {
		t.Errorf("the page shows %s, want every change (%d)", body, len(r.Entries))
	}
	for i, e := range r.Entries {
		if !strings.Contains(dom, fmt.Sprintf(`id="change-%d"`, i)) {
			t.Errorf("change %d (%s %s) missing", i, e.Key, e.Path)
		}
	}

	// Filters: by node glob, by key glob.
	for _, tc := range []struct{ query, node, key string }{
		{query: "node=app01.*", node: "app01.*"},
		{query: "key=ntp::*", key: "ntp::*"},
		{query: "key=k1*&node=db*", node: "db*", key: "k1*"},
	} {
		want := 0
		for _, e := range r.Entries {
			keyOK := tc.key == "" || matchGlob(tc.key, subject(e.Change))
			nodeOK := tc.node == ""
			for _, n := range e.Nodes {
				nodeOK = nodeOK || matchGlob(tc.node, n)
			}
			if keyOK && nodeOK {
				want++
			}
		}
		if want == 0 || want == len(r.Entries) {
			t.Fatalf("%s: a filter test that filters nothing (%d)", tc.query, want)
		}
		q, _ := url.ParseQuery(tc.query)
		dom, _ := run(q.Encode(), "--dump-dom")
		if body := regexp.MustCompile(`<body[^>]*>`).FindString(dom); !strings.Contains(body, fmt.Sprintf(`data-shown="%d"`, want)) {
			t.Errorf("%s: the page shows %s, want %d changes", tc.query, body, want)
		}
	}

	shot := filepath.Join(out, "report.png")
	run("", "--screenshot="+shot, "--window-size=1400,1800", "--hide-scrollbars")
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot %s: %v", shot, err)
	}
	t.Logf("page and screenshot: %s, %s", page, shot)
}

func matchGlob(g, s string) bool { ok, _ := path.Match(g, s); return ok }
