package puppetdb

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/format"
)

// replay serves the answers a real PuppetDB gave (testdata/recorded),
// for the requests hieracc sends, and counts the requests.
func replay(t *testing.T, requests *[]string) *httptest.Server {
	t.Helper()
	file := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "recorded", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		*requests = append(*requests, r.Method+" "+r.URL.Path+" "+string(raw))
		var body map[string]any
		if r.Method != http.MethodPost || json.Unmarshal(raw, &body) != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/pdb/query/v4":
			if body["query"] == `inventory[certname] { environment = "trusted" }` {
				w.Write(file("query.json"))
				return
			}
			msg, _, _ := strings.Cut(string(file("bad-query.txt")), "\nHTTP")
			http.Error(w, msg, http.StatusBadRequest)
		case "/pdb/query/v4/factsets":
			switch {
			case body["query"] != nil:
				w.Write(file("factsets-query.json"))
			case body["offset"] == 0.0:
				w.Write(file("factsets-page1.json"))
			case body["offset"] == 10.0:
				w.Write(file("factsets-page2.json"))
			default:
				w.Write(file("factsets-page3.json"))
			}
		default:
			http.NotFound(w, r)
		}
	}))
}

type got struct {
	Certname, Env, Pdb string
	Role               any
	Extensions         string
}

func summarize(ns []facts.Node) []got {
	var out []got
	for _, n := range ns {
		role, _ := n.Facts.Get("role")
		g := got{Certname: n.Certname, Env: n.Environment, Pdb: string(n.Format), Role: role}
		if n.Facts.Has("trusted") {
			g.Extensions = "trusted left among the facts"
		} else if n.Trusted != nil {
			ext, _ := n.Trusted.Get("extensions")
			if h, ok := ext.(*format.Hash); ok {
				for k, v := range h.All() {
					g.Extensions += k.(string) + "=" + v.(string) + " "
				}
			}
		}
		out = append(out, g)
	}
	return out
}

func TestFetchQuery(t *testing.T) {
	var reqs []string
	srv := replay(t, &reqs)
	defer srv.Close()
	nodes, probs, err := Fetch(context.Background(), Config{URL: srv.URL, Query: `inventory[certname] { environment = "trusted" }`})
	if err != nil || len(probs) > 0 {
		t.Fatalf("err %v, problems %v", err, probs)
	}
	want := []got{
		{"app01", "trusted", "PuppetDB factsets", "app", ""},
		{"db01.example.com", "trusted", "PuppetDB factsets", "db", "pp_role=db "},
		{"lb01.example.com", "trusted", "PuppetDB factsets", "lb", ""},
		{"web01.example.com", "trusted", "PuppetDB factsets", "not-web", "pp_role=web pp_environment=staging "},
	}
	if d := cmp.Diff(want, summarize(nodes)); d != "" {
		t.Errorf("nodes (-want +got):\n%s", d)
	}
	if len(reqs) != 2 || !strings.Contains(reqs[1], `"query":["in","certname",["array",["app01","db01.example.com","lb01.example.com","web01.example.com"]]]`) {
		t.Errorf("requests:\n%s", strings.Join(reqs, "\n"))
	}
	if !strings.HasPrefix(nodes[0].File, srv.URL+"/pdb/query/v4/factsets") {
		t.Errorf("File %q", nodes[0].File)
	}
}

func TestFetchAllByPages(t *testing.T) {
	var reqs []string
	srv := replay(t, &reqs)
	defer srv.Close()
	nodes, probs, err := Fetch(context.Background(), Config{URL: srv.URL + "/", PageSize: 10})
	if err != nil || len(probs) > 0 {
		t.Fatalf("err %v, problems %v", err, probs)
	}
	var names []string
	for _, n := range nodes {
		names = append(names, n.Certname+"@"+n.Environment)
		if n.Trusted == nil {
			t.Errorf("%s: no trusted hash", n.Certname)
		}
	}
	want := []string{"app01@trusted", "bastion01.example.com@production", "cache01.example.com@production", "ci01.example.org@production",
		"db01.example.com@trusted", "db01.example.net@production", "db02.example.net@production", "dns01.example.net@production",
		"lb01.example.com@trusted", "mon01.example.org@production", "web01.example.com@trusted", "web02.example.com@production"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("nodes (-want +got):\n%s", d)
	}
	// The second page is short: no third request.
	if len(reqs) != 2 {
		t.Errorf("%d requests, want 2:\n%s", len(reqs), strings.Join(reqs, "\n"))
	}
}

func TestFetchErrors(t *testing.T) {
	var reqs []string
	srv := replay(t, &reqs)
	defer srv.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pdb/query/v4":
			w.Write([]byte(`[{"name": "x"}]`))
		default:
			w.Write([]byte(`[{"certname": "a", "name": "os", "value": "x"}]`))
		}
	}))
	defer garbage.Close()
	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }))
	defer notJSON.Close()
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"a query PuppetDB refuses", Config{URL: srv.URL, Query: "inventory[certname] { no_such_field = 1 }"},
			"400 Bad Request: 'no_such_field' is not a queryable object for inventory"},
		{"not a URL", Config{URL: "puppetdb:8081"}, "want a URL like https://"},
		{"results without certname", Config{URL: garbage.URL, Query: "facts[name] {}"}, "result 1 has no certname"},
		{"rows, not factsets", Config{URL: garbage.URL}, "answered with PuppetDB facts, not factsets"},
		{"not JSON", Config{URL: notJSON.URL}, "the response is not JSON"},
		{"nobody there", Config{URL: "http://127.0.0.1:1"}, "connection refused"},
		{"key without cert", Config{URL: srv.URL, Key: "k.pem"}, "--puppetdb-cert and --puppetdb-key go together"},
		{"missing CA file", Config{URL: srv.URL, CACert: "nosuch.pem"}, "--puppetdb-cacert"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, _, err := Fetch(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want one containing %q", err, tt.want)
			}
			if len(nodes) > 0 {
				t.Errorf("nodes despite the error")
			}
		})
	}
}
