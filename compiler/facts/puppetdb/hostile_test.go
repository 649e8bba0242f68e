package puppetdb

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// factsetsJSON is a page of factsets for the certnames.
func factsetsJSON(names ...string) []byte {
	rows := []any{}
	for _, n := range names {
		rows = append(rows, map[string]any{"certname": n, "environment": "production",
			"facts": map[string]any{"data": []any{map[string]any{"name": "role", "value": "web"}}}})
	}
	b, _ := json.Marshal(rows)
	return b
}

// fleet is the certnames n01 ... nN.
func fleet(n int) []string {
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("n%02d", i+1))
	}
	return names
}

// TestFetchPagingIgnored: a PuppetDB (or a proxy before it) that ignores
// the query's limit, or its offset, is found out on the second page at
// the latest, not asked for pages forever.
func TestFetchPagingIgnored(t *testing.T) {
	all := fleet(25)
	for _, tc := range []struct {
		name string
		page func(limit, offset int) []string
		want string
	}{
		{"limit and offset ignored", func(int, int) []string { return all }, "ignores the query's limit"},
		{"offset ignored", func(limit, _ int) []string { return all[:limit] }, "ignores the query's offset"},
		{"offset ignored, limit capped lower", func(int, int) []string { return all[:5] }, "ignores the query's offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				var body struct{ Limit, Offset int }
				raw, _ := io.ReadAll(r.Body)
				json.Unmarshal(raw, &body)
				w.Write(factsetsJSON(tc.page(body.Limit, body.Offset)...))
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			nodes, _, err := Fetch(ctx, Config{URL: srv.URL, PageSize: 5})
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(nodes) > 0 {
				t.Errorf("%d nodes, err %v; want an error: %s", len(nodes), err, tc.want)
			}
			if n := requests.Load(); n > 2 {
				t.Errorf("%d requests, want at most 2", n)
			}
		})
	}
	// A server that honours both: every node once.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Limit, Offset int }
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &body)
		w.Write(factsetsJSON(all[min(body.Offset, len(all)):min(body.Offset+body.Limit, len(all))]...))
	}))
	defer srv.Close()
	nodes, probs, err := Fetch(context.Background(), Config{URL: srv.URL, PageSize: 5})
	if err != nil || len(probs) > 0 || len(nodes) != len(all) {
		t.Errorf("paging honoured: %d nodes, err %v, problems %v; want %d nodes", len(nodes), err, probs, len(all))
	}
}

// TestFetchQueryIgnored: factsets of nodes the query did not choose are
// an error, not compiled.
func TestFetchQueryIgnored(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pdb/query/v4" {
			w.Write([]byte(`[{"certname": "n01"}]`))
			return
		}
		w.Write(factsetsJSON(fleet(3)...))
	}))
	defer srv.Close()
	_, _, err := Fetch(context.Background(), Config{URL: srv.URL, Query: "inventory[certname] {}"})
	if err == nil || !strings.Contains(err.Error(), "n02, which was not asked for") {
		t.Errorf("err %v, want the factset not asked for", err)
	}
}

// TestFetchRedirects: a redirect is followed within the server --puppetdb
// names (a proxy's other path), never to another port, host or scheme.
func TestFetchRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write(factsetsJSON("evil01"))
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/away/"):
			http.Redirect(w, r, other.URL+strings.TrimPrefix(r.URL.Path, "/away"), http.StatusTemporaryRedirect)
		case strings.HasPrefix(r.URL.Path, "/moved/"):
			http.Redirect(w, r, "/real/"+strings.TrimPrefix(r.URL.Path, "/moved/"), http.StatusPermanentRedirect)
		case strings.HasPrefix(r.URL.Path, "/real/"):
			raw, _ := io.ReadAll(r.Body)
			if !strings.Contains(string(raw), "certname") { // the query came along
				http.Error(w, "no query", http.StatusBadRequest)
				return
			}
			w.Write(factsetsJSON("web01"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	nodes, _, err := Fetch(context.Background(), Config{URL: srv.URL + "/moved"})
	if err != nil || len(nodes) != 1 || nodes[0].Certname != "web01" {
		t.Errorf("a redirect on the same server: %d nodes, err %v; want web01", len(nodes), err)
	}
	nodes, _, err = Fetch(context.Background(), Config{URL: srv.URL + "/away"})
	if err == nil || !strings.Contains(err.Error(), "another server") || len(nodes) > 0 {
		t.Errorf("a redirect to another port: %d nodes, err %v; want an error", len(nodes), err)
	}
	if n := elsewhere.Load(); n > 0 {
		t.Errorf("the other server was asked %d times", n)
	}
	from, _ := url.Parse("http://puppetdb:8080/pdb")
	for _, tc := range []struct {
		to string
		ok bool
	}{
		{"http://puppetdb:8080/other", true},
		{"http://puppetdb:80/pdb", false},
		{"https://puppetdb:8080/pdb", false},
		{"http://proxy:8080/pdb", false},
	} {
		to, _ := url.Parse(tc.to)
		if err := sameOrigin(&http.Request{URL: to}, []*http.Request{{URL: from}}); (err == nil) != tc.ok {
			t.Errorf("redirect to %s: %v, want allowed %v", tc.to, err, tc.ok)
		}
	}
	to, _ := url.Parse("http://puppetdb/")
	from, _ = url.Parse("http://puppetdb:80/")
	if err := sameOrigin(&http.Request{URL: to}, []*http.Request{{URL: from}}); err != nil {
		t.Errorf("the scheme's port, given and implied: %v", err)
	}
}

// TestFetchPassword: the password of --puppetdb's URL is in no message
// and no position, whatever fails.
func TestFetchPassword(t *testing.T) {
	const pw = "s3cr3t-pw"
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, p, _ := r.BasicAuth()
		auth.Store(p)
		switch r.URL.Path {
		case "/fail/pdb/query/v4/factsets":
			http.Error(w, "no", http.StatusInternalServerError)
		case "/html/pdb/query/v4/factsets":
			w.Write([]byte("<html>"))
		case "/rows/pdb/query/v4/factsets":
			w.Write([]byte(`[{"certname": "a", "name": "os", "value": "x"}]`))
		case "/bad/pdb/query/v4/factsets":
			w.Write([]byte(`[{"certname": "web01", "environment": "production", "facts": {"data": [{"name": "role", "value": "web"}]}}, {"certname": 7}]`))
		default:
			w.Write(factsetsJSON("web01"))
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	u.User = url.UserPassword("ci", pw)
	with := func(path string) string { return u.String() + path }

	nodes, probs, err := Fetch(context.Background(), Config{URL: with("")})
	if err != nil || len(nodes) != 1 || len(probs) != 0 {
		t.Fatalf("%d nodes, %v problems, err %v", len(nodes), probs, err)
	}
	if got, _ := auth.Load().(string); got != pw {
		t.Errorf("the server got password %q, want the URL's", got)
	}
	texts := []string{nodes[0].File, nodes[0].Pos.String()}
	_, probs, err = Fetch(context.Background(), Config{URL: with("/bad")})
	if err != nil || len(probs) != 1 {
		t.Fatalf("%v problems, err %v", probs, err)
	}
	texts = append(texts, probs[0].Pos.String(), probs[0].Message)
	for _, tc := range []Config{
		{URL: with("/fail")},
		{URL: with("/html")},
		{URL: with("/rows")},
		{URL: with("/fail"), Query: "inventory[certname] {}"},
		{URL: "http://ci:" + pw + "@127.0.0.1:1"},
		{URL: "http://ci:" + pw + "@puppetdb:port/"},
		{URL: "ftp://ci:" + pw + "@puppetdb/"},
		{URL: "http://127.0.0.1:1/" + pw + "@puppetdb/"},
		{URL: with(""), CACert: "nosuch.pem"},
	} {
		_, _, err := Fetch(context.Background(), tc)
		if err == nil {
			t.Errorf("%s: no error", tc.URL)
			continue
		}
		texts = append(texts, err.Error())
	}
	for _, s := range texts {
		if strings.Contains(s, pw) {
			t.Errorf("the password in %q", s)
		}
	}
	for raw, want := range map[string]string{
		"http://ci:" + pw + "@puppetdb:8080/x": "http://ci:xxxxx@puppetdb:8080/x",
		"http://ci:" + pw + "@puppetdb:port/x": "http://xxxxx@puppetdb:port/x",
		"http://ci:12/" + pw + "@puppetdb/x":   "http://xxxxx@puppetdb/x", // an unescaped "/" in the password
		"http://puppetdb:8080":                 "http://puppetdb:8080",
	} {
		if got := redact(raw); got != want {
			t.Errorf("redact(%q) = %q, want %q", raw, got, want)
		}
	}
}
