package serve

import (
	"context"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// screenshotEnv names the folder where TestWebView keeps its screenshots
// (test artifacts: CI uploads them; never committed).
const screenshotEnv = "HIERACC_SCREENSHOTS"

// TestWebViewOffline: the web view loads nothing from elsewhere.
func TestWebViewOffline(t *testing.T) {
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|@import|url\(\s*["']?(https?:)?//|fetch\(\s*["'](https?:)?//`)
	n := 0
	err := fs.WalkDir(webRoot, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := fs.ReadFile(webRoot, p)
		if err != nil {
			return err
		}
		if m := external.Find(data); m != nil {
			t.Errorf("%s loads from elsewhere: %s", p, m)
		}
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("web files: %d read, %v", n, err)
	}
}

// chromium finds Debian's chromium (apt-get install -y chromium) or
// another Chrome.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestWebView drives the web view in a real browser (headless chromium)
// and checks what a person sees: search, a node's keys with where each
// came from, who gets what, two nodes side by side; a secret never.
func TestWebView(t *testing.T) {
	exe := chromium()
	if exe == "" {
		t.Skip("no chromium or Chrome installed (apt-get install -y chromium): the web view is not tested in a browser")
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	dir := t.TempDir()
	web01 := bundleOf("web01.example.net", "r1", "db::password", "hunter2", "ntp::servers", []any{"a", "b"}, "role", "web")
	web01.Keys[0].Secret = true
	compileInto(t, dir, 0,
		web01,
		bundleOf("web02.example.net", "r1", "ntp::servers", []any{"a", "b"}, "role", "web"),
		bundleOf("db01.example.net", "r1", "ntp::servers", []any{"c"}, "role", "db"),
	)
	ts := httptest.NewServer(newServer(t, dir).Handler())
	defer ts.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(1200, 900))
	actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first run starts the browser, for as long as ctx lives.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	shots := os.Getenv(screenshotEnv)
	if shots != "" {
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg) // 100: PNG
			if err != nil {
				return err
			}
			if len(png) == 0 {
				t.Errorf("%s: empty screenshot", name)
			}
			if shots == "" {
				return nil
			}
			return os.WriteFile(filepath.Join(shots, "webview-"+name+".png"), png, 0o644)
		})
	}
	text := func(sel string) string {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}
	visit := func(hash, waitFor, name string) string {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/"+hash), chromedp.WaitVisible(chromedp.CSS(waitFor)), shot(name)); err != nil {
			t.Fatalf("%s: %v", hash, err)
		}
		return text("main")
	}
	must := func(page, got string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: a person does not see %q:\n%s", page, w, got)
			}
		}
		if strings.Contains(got, "hunter2") {
			t.Errorf("%s shows a secret:\n%s", page, got)
		}
	}

	// Search: typing narrows the nodes and keys.
	visit("#/", "#nodes li", "search")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#q"), "db"), chromedp.Sleep(200*time.Millisecond), shot("search-db")); err != nil {
		t.Fatal(err)
	}
	got := text("main")
	must("search db", got, "Nodes (1)", "db01.example.net", "Keys (1)", "db::password")
	if strings.Contains(got, "web01.example.net") {
		t.Errorf("search for db still lists web01:\n%s", got)
	}

	// A node's keys, values and where each came from.
	got = visit("#/node/web01.example.net", "#node-keys", "node")
	must("node", got, "ntp::servers", "- a\n- b", "role\tweb\t", "Common", "data/common.yaml:7", "db::password", "secret: not shown")

	// Who gets what.
	got = visit("#/key/ntp::servers", "#groups", "key")
	must("who gets what", got, "- a\n- b\t2\t", "- c\t1\t", "web01.example.net", "web02.example.net", "db01.example.net")

	// Two nodes side by side.
	got = visit("#/compare/web01.example.net/db01.example.net", "#compare", "compare")
	must("compare", got, "3 of 3 keys differ", "role\tweb\tdb")

	// An error is shown, not a blank page.
	got = visit("#/node/nobody", "#error", "error")
	must("error", got, "no bundle for node nobody")
}
