package serve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
	"github.com/hieracc/hieracc/runtime/reload"
	rendering "github.com/hieracc/hieracc/runtime/render"
)

// bundleOf is node's bundle: keys as given (name, value pairs), from
// common.yaml.
func bundleOf(node, rev string, kv ...any) *format.Bundle {
	b := &format.Bundle{
		Node: node, Environment: "production", Revision: rev,
		Env: format.Hierarchy{Present: true, Levels: []format.Level{
			{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}},
		}},
	}
	for i := 0; i < len(kv); i += 2 {
		v := kv[i+1]
		b.Keys = append(b.Keys, format.Key{Name: kv[i].(string), Value: v, Contributions: []format.Contribution{
			{Layer: format.LayerEnvironment, Level: 0, Line: 3 + i, Column: 1, Value: v}}})
	}
	return b
}

// compileInto writes bundles into dir as build.Run commits them: the
// state file removed first, each bundle renamed into place (pause between
// renames), the state file written last.
func compileInto(t testing.TB, dir string, pause time.Duration, bundles ...*format.Bundle) {
	t.Helper()
	state := filepath.Join(dir, build.StateFile)
	if err := os.Remove(state); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, b := range bundles {
		data, err := encode.Encode(b)
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dir, ".tmp-"+b.Node)
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, b.Node+".bundle")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(pause)
	}
	tmp := state + ".tmp"
	if err := os.WriteFile(tmp, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, state); err != nil {
		t.Fatal(err)
	}
}

func newServer(t testing.TB, dir string, readers ...string) *Server {
	t.Helper()
	s, err := New(Config{Dir: dir, Poll: 10 * time.Millisecond, Cache: 4, Readers: readers})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func get(t testing.TB, c *http.Client, url string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

func fleet(t testing.TB) string {
	dir := t.TempDir()
	compileInto(t, dir, 0,
		bundleOf("web01.example.net", "r1", "ntp::servers", []any{"a", "b"}, "role", "web"),
		bundleOf("web02.example.net", "r1", "ntp::servers", []any{"a", "b"}, "role", "web"),
		bundleOf("db01.example.net", "r1", "ntp::servers", []any{"c"}, "role", "db"),
	)
	return dir
}

func TestAPI(t *testing.T) {
	s := newServer(t, fleet(t))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	c := ts.Client()

	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/v1/nodes", 200, `{"nodes":["db01.example.net","web01.example.net","web02.example.net"],"revision":"r1","source_revision":""}`},
		{"/v1/nodes/web01.example.net/keys/ntp::servers", 200, `{"node":"web01.example.net","key":"ntp::servers","value":["a","b"]}`},
		{"/v1/nodes/web01.example.net/keys/role", 200, `{"node":"web01.example.net","key":"role","value":"web"}`},
		{"/v1/nodes/web01.example.net/keys/nope", 404, `{"error":"Function lookup() did not find a value for the name 'nope'"}`},
		{"/v1/nodes/web01.example.net/keys/role?explain=1", 200, `{"node":"web01.example.net","key":"role","value":"web","explanation":{"merge":"first","sources":[{"layer":"environment","level":"Common","file":"data/common.yaml","line":5,"column":1,"value":"web"}]}}`},
		{"/v1/nodes/nobody/keys/role", 404, `{"error":"no bundle for node nobody"}`},
		{"/v1/nodes/nobody/bundle", 404, `{"error":"no bundle for node nobody"}`},
		{"/v1/nodes/web01.example.net/details", 404, `{"error":"the bundle of node web01.example.net holds all of its details: it has no shared details file"}`},
		{"/v1/nodes/..%2Fx/keys/role", 400, `{"error":"\"../x\" is not a certname"}`},
		{"/v1/nope", 404, `{"error":"no such path: /v1/nope"}`},
		{"/v1/keys", 200, `{"keys":["ntp::servers","role"]}`},
		{"/v1/keys/ntp::servers", 200, `{"key":"ntp::servers","groups":[` +
			`{"value":["a","b"],"count":2,"nodes":["web01.example.net","web02.example.net"],"patterns":["web01.example.net","web02.example.net"]},` +
			`{"value":["c"],"count":1,"nodes":["db01.example.net"],"patterns":["db01.example.net"]}]}`},
		{"/v1/keys/role?render=yaml", 200, `{"key":"role","groups":[` +
			`{"value":"web","yaml":"web","count":2,"nodes":["web01.example.net","web02.example.net"],"patterns":["web01.example.net","web02.example.net"]},` +
			`{"value":"db","yaml":"db","count":1,"nodes":["db01.example.net"],"patterns":["db01.example.net"]}]}`},
		{"/v1/compare/web01.example.net/db01.example.net?render=yaml", 200, `{"a":"web01.example.net","b":"db01.example.net","keys":[` +
			`{"key":"ntp::servers","a":{"value":["a","b"],"yaml":"- a\n- b"},"b":{"value":["c"],"yaml":"- c"},"same":false},` +
			`{"key":"role","a":{"value":"web","yaml":"web"},"b":{"value":"db","yaml":"db"},"same":false}]}`},
		{"/v1/keys/nope", 200, `{"key":"nope","groups":[{"error":"Function lookup() did not find a value for the name 'nope'","count":3,"nodes":["db01.example.net","web01.example.net","web02.example.net"],"patterns":["db01.example.net","web01.example.net","web02.example.net"]}]}`},
		{"/v1/compare/web01.example.net/db01.example.net", 200, `{"a":"web01.example.net","b":"db01.example.net","keys":[` +
			`{"key":"ntp::servers","a":{"value":["a","b"]},"b":{"value":["c"]},"same":false},` +
			`{"key":"role","a":{"value":"web"},"b":{"value":"db"},"same":false}]}`},
	}
	for _, tt := range tests {
		status, hdr, body := get(t, c, ts.URL+tt.path)
		if status != tt.status {
			t.Errorf("GET %s: status %d, want %d (%s)", tt.path, status, tt.status, body)
		}
		if ct := hdr.Get("Content-Type"); ct != "application/json" {
			t.Errorf("GET %s: Content-Type %q", tt.path, ct)
		}
		var got, want any
		if err := json.Unmarshal(body, &got); err != nil {
			t.Errorf("GET %s: %v\n%s", tt.path, err, body)
			continue
		}
		if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("GET %s (-want +got):\n%s", tt.path, d)
		}
	}
}

// TestKeyValueAsLookupRenders pins "value" to lookup --render-as json's
// rendering, key order and all.
func TestKeyValueAsLookupRenders(t *testing.T) {
	dir := t.TempDir()
	h := format.NewHash(2)
	h.Set("z", int64(1))
	h.Set("a", 1.5)
	compileInto(t, dir, 0, bundleOf("n1", "r1", "h", h))
	ts := httptest.NewServer(newServer(t, dir).Handler())
	defer ts.Close()
	_, _, body := get(t, ts.Client(), ts.URL+"/v1/nodes/n1/keys/h")
	want, err := rendering.As(h, rendering.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var a struct{ Value json.RawMessage }
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	if got := string(a.Value); got != string(want[:len(want)-1]) {
		t.Errorf("value %s, want %s", got, want)
	}
}

func TestSecretsNotShown(t *testing.T) {
	dir := t.TempDir()
	b := bundleOf("n1", "r1", "password", "hunter2", "plain", "x")
	b.Keys[0].Secret = true
	compileInto(t, dir, 0, b)
	ts := httptest.NewServer(newServer(t, dir).Handler())
	defer ts.Close()
	for _, p := range []string{"/v1/nodes/n1/keys/password", "/v1/nodes/n1/keys/password?explain=1", "/v1/nodes/n1/keys", "/v1/keys/password", "/v1/compare/n1/n1"} {
		status, _, body := get(t, ts.Client(), ts.URL+p)
		if status != 200 {
			t.Errorf("GET %s: %d %s", p, status, body)
		}
		if s := string(body); contains(s, "hunter2") || !contains(s, `"secret":true`) {
			t.Errorf("GET %s shows the secret or does not say it is one:\n%s", p, s)
		}
	}
}

func contains(s, sub string) bool {
	return len(s) >= len(sub) && (s == sub || len(sub) == 0 || indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestBundleETag(t *testing.T) {
	dir := fleet(t)
	s := newServer(t, dir)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	c := ts.Client()
	url := ts.URL + "/v1/nodes/web01.example.net/bundle"
	status, hdr, body := get(t, c, url)
	if status != 200 {
		t.Fatalf("GET bundle: %d %s", status, body)
	}
	b, err := runtime.OpenBytes(body, runtime.Trust{Node: "web01.example.net"})
	if err != nil {
		t.Fatal(err)
	}
	tag := hdr.Get("ETag")
	if want := etag(b.Header().Digest); tag != want {
		t.Fatalf("ETag %s, want the digest %s", tag, want)
	}
	if status, _, body := get(t, c, url, "If-None-Match", tag); status != 304 || len(body) != 0 {
		t.Fatalf("If-None-Match the ETag: %d %q, want 304", status, body)
	}

	// A long poll is answered when a compile changes the bundle.
	done := make(chan int)
	go func() {
		st, _, _ := get(t, c, url, "If-None-Match", tag, "Prefer", "wait=20")
		done <- st
	}()
	time.Sleep(50 * time.Millisecond)
	compileInto(t, dir, 0, bundleOf("web01.example.net", "r2", "role", "new"))
	go s.Watch(t.Context())
	select {
	case st := <-done:
		if st != 200 {
			t.Fatalf("long poll ended with %d, want 200", st)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("long poll not answered after the bundle changed")
	}
	if status, _, _ := get(t, c, url, "If-None-Match", tag); status != 200 {
		t.Fatalf("old ETag after a compile: %d, want 200", status)
	}
}

// TestRecompileUnderLoad: clients asking for a key across the fleet while
// compiles replace every bundle in turn always get one compile's answer:
// one group, every node in it.
func TestRecompileUnderLoad(t *testing.T) {
	dir := t.TempDir()
	const n = 12
	gen := func(g int) []*format.Bundle {
		var bs []*format.Bundle
		for i := range n {
			bs = append(bs, bundleOf(fmt.Sprintf("n%02d", i), fmt.Sprint("r", g), "gen", int64(g)))
		}
		return bs
	}
	compileInto(t, dir, 0, gen(0)...)
	s := newServer(t, dir)
	go s.Watch(t.Context())
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	var answers, mixed atomic.Int32
	seen := sync.Map{}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				status, _, body := get(t, ts.Client(), ts.URL+"/v1/keys/gen")
				if status != 200 {
					t.Errorf("status %d: %s", status, body)
					return
				}
				var a struct{ Groups []group }
				if err := json.Unmarshal(body, &a); err != nil {
					t.Error(err)
					return
				}
				answers.Add(1)
				if len(a.Groups) != 1 || a.Groups[0].Count != n {
					mixed.Add(1)
					t.Errorf("mixed answer: %s", body)
				} else {
					seen.Store(string(a.Groups[0].Value), true)
				}
			}
		}()
	}
	for g := 1; g <= 5; g++ {
		compileInto(t, dir, 3*time.Millisecond, gen(g)...)
		time.Sleep(30 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	generations := 0
	seen.Range(func(_, _ any) bool { generations++; return true })
	t.Logf("%d answers, %d generations seen, %d mixed", answers.Load(), generations, mixed.Load())
	if generations < 2 {
		t.Errorf("only %d generation(s) seen: the server did not follow the compiles", generations)
	}
	// The last compile is served.
	_, _, body := get(t, ts.Client(), ts.URL+"/v1/nodes/n00/keys/gen")
	if want := `"value":5`; !contains(string(body), want) {
		t.Errorf("after the compiles, n00's gen: %s; want %s", body, want)
	}
}

// pki is a CA and certificates it issues, as Puppet's.
type pki struct {
	ca     *x509.Certificate
	key    *ecdsa.PrivateKey
	pool   *x509.CertPool
	serial int64
}

func newPKI(t *testing.T) *pki {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Puppet CA: test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &pki{ca: ca, key: key, pool: pool, serial: 1}
}

func (p *pki) issue(t *testing.T, name string, server bool) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p.serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}}
	if server {
		tmpl.DNSNames = []string{"localhost"}
		tmpl.IPAddresses = nil
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestClientCertificates: a node's certificate reads its own bundle and
// keys, never another node's, nor the fleet-wide views; a reader's
// (--allow) reads everything.
func TestClientCertificates(t *testing.T) {
	p := newPKI(t)
	s := newServer(t, fleet(t), "ci.example.net")
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.pool,
		Certificates: []tls.Certificate{p.issue(t, "localhost", true)}}
	ts.StartTLS()
	defer ts.Close()
	client := func(name string) *http.Client {
		return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs: p.pool, ServerName: "localhost", Certificates: []tls.Certificate{p.issue(t, name, false)}}}}
	}
	web01, ci := client("web01.example.net"), client("ci.example.net")
	tests := []struct {
		c      *http.Client
		path   string
		status int
	}{
		{web01, "/v1/nodes/web01.example.net/bundle", 200},
		{web01, "/v1/nodes/web01.example.net/keys/role", 200},
		{web01, "/v1/nodes/db01.example.net/bundle", 403},
		{web01, "/v1/nodes/db01.example.net/keys/role", 403},
		{web01, "/v1/nodes/db01.example.net/keys", 403},
		{web01, "/v1/nodes/db01.example.net/details", 403},
		{web01, "/v1/compare/web01.example.net/db01.example.net", 403},
		{web01, "/v1/nodes", 403},
		{web01, "/v1/keys", 403},
		{web01, "/v1/keys/role", 403},
		{ci, "/v1/nodes/db01.example.net/bundle", 200},
		{ci, "/v1/nodes/web01.example.net/keys/role", 200},
		{ci, "/v1/keys/role", 200},
		{ci, "/v1/nodes", 200},
	}
	for _, tt := range tests {
		status, _, body := get(t, tt.c, ts.URL+tt.path)
		if status != tt.status {
			t.Errorf("GET %s: %d, want %d (%s)", tt.path, status, tt.status, body)
		}
		if tt.status == 403 && contains(string(body), `"db`) && contains(string(body), "value") {
			t.Errorf("GET %s: a refusal shows data: %s", tt.path, body)
		}
	}
	// Without a certificate, the handshake fails.
	noCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.pool, ServerName: "localhost"}}}
	if resp, err := noCert.Get(ts.URL + "/v1/nodes"); err == nil {
		resp.Body.Close()
		t.Fatalf("a client without a certificate got %s", resp.Status)
	}

	// The agent's reloader fetches its own bundle with its certificate.
	r, err := reload.NewHTTP(ts.URL+"/v1/nodes/web01.example.net/bundle", "", web01, runtime.Trust{Node: "web01.example.net"})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := r.Bundle().Lookup("role"); err != nil || v != "web" {
		t.Fatalf("role = %v, %v", v, err)
	}
	if _, err := reload.NewHTTP(ts.URL+"/v1/nodes/db01.example.net/bundle", "", web01, runtime.Trust{Node: "db01.example.net"}); err == nil {
		t.Fatal("web01's certificate fetched db01's bundle")
	}
}

func TestOps(t *testing.T) {
	s := newServer(t, fleet(t))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	if status, _, body := get(t, ts.Client(), ts.URL+"/healthz"); status != 200 || !contains(string(body), `"nodes":3`) {
		t.Errorf("/healthz: %d %s", status, body)
	}
	get(t, ts.Client(), ts.URL+"/v1/nodes/web01.example.net/keys/role")
	_, hdr, body := get(t, ts.Client(), ts.URL+"/metrics")
	for _, want := range []string{
		`hieracc_serve_requests_total{route="/v1/nodes/{node}/keys/{key}",code="200"} 1`,
		`hieracc_serve_request_duration_seconds_count{route="/v1/nodes/{node}/keys/{key}"} 1`,
		`hieracc_serve_revision_info{revision="r1",source_revision=""} 1`,
		`hieracc_serve_reloads_total{result="ok"} 0`,
		`hieracc_serve_nodes 3`,
	} {
		if !contains(string(body), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
	if ct := hdr.Get("Content-Type"); !contains(ct, "text/plain") {
		t.Errorf("/metrics Content-Type %q", ct)
	}
}

// TestHTTPReloaderSharedDetails: an agent's reloader fetches its bundle
// and the shared details file the bundle names relative to its URL, and
// explains from them; restarted with the server down, from its copies.
func TestHTTPReloaderSharedDetails(t *testing.T) {
	dir := t.TempDir()
	data, sd, err := encode.EncodeShared(bundleOf("web01", "r1", "role", "web"), encode.Protection{})
	if err != nil {
		t.Fatal(err)
	}
	if sd == nil {
		t.Fatal("the bundle has no shared details file: the test tests nothing")
	}
	if err := os.MkdirAll(filepath.Join(dir, format.SharedDetailsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(format.SharedDetailsName(sd.Digest))), sd.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "web01.bundle"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(newServer(t, dir).Handler())
	cache := filepath.Join(t.TempDir(), "web01.bundle")
	explainRole := func(r *reload.HTTP) {
		t.Helper()
		e, err := explain.Key(r.Bundle(), "role")
		if err != nil {
			t.Fatalf("Explain: %v", err)
		}
		if len(e.Sources) != 1 || e.Sources[0].File != "data/common.yaml" {
			t.Fatalf("sources %+v", e.Sources)
		}
	}
	r, err := reload.NewHTTP(ts.URL+"/v1/nodes/web01/bundle", cache, nil, runtime.Trust{Node: "web01"})
	if err != nil {
		t.Fatal(err)
	}
	explainRole(r)
	status, hdr, body := get(t, ts.Client(), ts.URL+"/v1/nodes/web01/details")
	if status != 200 || string(body) != string(sd.Data) || hdr.Get("ETag") != etag(sd.Digest) {
		t.Fatalf("GET details: %d, ETag %s, %d bytes", status, hdr.Get("ETag"), len(body))
	}
	ts.Close()
	r2, err := reload.NewHTTP(ts.URL+"/v1/nodes/web01/bundle", cache, nil, runtime.Trust{Node: "web01"})
	if err != nil {
		t.Fatalf("restart with the server down: %v", err)
	}
	explainRole(r2)
}

// TestShards: a folder of the shards' folders is served as their union,
// and a shard compiled again is picked up.
func TestShards(t *testing.T) {
	dir := t.TempDir()
	shard := func(k int, gen string, nodes ...string) {
		t.Helper()
		d := filepath.Join(dir, fmt.Sprintf("shard%d", k))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		var bs []*format.Bundle
		for _, n := range nodes {
			bs = append(bs, bundleOf(n, gen, "gen", gen))
		}
		compileInto(t, d, 0, bs...)
		state := filepath.Join(d, build.StateFileOf(build.Shard{K: k, N: 2}))
		if err := os.Rename(filepath.Join(d, build.StateFile), state); err != nil {
			t.Fatal(err)
		}
	}
	shard(1, "g1", "a1", "a2")
	shard(2, "g1", "b1")
	s := newServer(t, dir)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	if _, _, body := get(t, ts.Client(), ts.URL+"/v1/nodes"); !contains(string(body), `"nodes":["a1","a2","b1"]`) {
		t.Fatalf("nodes: %s", body)
	}
	shard(2, "g2", "b1")
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	if _, _, body := get(t, ts.Client(), ts.URL+"/v1/nodes/b1/keys/gen"); !contains(string(body), `"value":"g2"`) {
		t.Fatalf("b1 after its shard's compile: %s", body)
	}
}

// TestStopEndsLongPolls: Stop answers a long poll at once, so that a
// shutdown does not wait for it.
func TestStopEndsLongPolls(t *testing.T) {
	s := newServer(t, fleet(t))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	url := ts.URL + "/v1/nodes/web01.example.net/bundle"
	_, hdr, _ := get(t, ts.Client(), url)
	done := make(chan int)
	go func() {
		st, _, _ := get(t, ts.Client(), url, "If-None-Match", hdr.Get("ETag"), "Prefer", "wait=30")
		done <- st
	}()
	time.Sleep(100 * time.Millisecond)
	s.Stop()
	select {
	case st := <-done:
		if st != 304 {
			t.Fatalf("long poll ended by Stop: %d, want 304", st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not end the long poll")
	}
}

// TestStartDuringCompile: a folder without state files that holds a
// running compile's temporary file is waited for; a dead compile's is
// not.
func TestStartDuringCompile(t *testing.T) {
	dir := t.TempDir()
	compileInto(t, dir, 0, bundleOf("n1", "r1", "gen", "old"), bundleOf("n2", "r1", "gen", "old"))
	// The compile (this process) has removed the state and renamed n1.
	os.Remove(filepath.Join(dir, build.StateFile))
	temp := filepath.Join(dir, fmt.Sprintf(".n2.bundle.tmp-%d-1", os.Getpid()))
	if err := os.WriteFile(temp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	finish := func() {
		// As build.Run: the renames, the staging removed, the state written.
		time.Sleep(200 * time.Millisecond)
		compileInto(t, dir, 0, bundleOf("n1", "r2", "gen", "new"), bundleOf("n2", "r2", "gen", "new"))
		os.Remove(temp)
	}
	done := make(chan struct{})
	go func() { finish(); close(done) }()
	s := newServer(t, dir)
	if got := s.cur.Load().revision; got != "r2" {
		t.Fatalf("started on revision %q, want the compile's, r2", got)
	}
	<-done

	// A dead process's temporary file: served at once.
	dead := filepath.Join(dir, ".n2.bundle.tmp-999999999-1")
	if err := os.WriteFile(dead, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, build.StateFile))
	start := time.Now()
	newServer(t, dir)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a dead compile's temporary file held the start for %v", d)
	}
}

// TestLookupDecodesOneKey: a key lookup reads the bundle's bytes and
// decodes that key only (the cache holds no bundle decoded whole), an
// explanation decodes the bundle, and both answer from the same bundle.
func TestLookupDecodesOneKey(t *testing.T) {
	s := newServer(t, fleet(t))
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	const node = "web01.example.net"
	cached := func() *opened {
		return s.cache.get(s.cur.Load().digests[node])
	}
	if code, _, body := get(t, ts.Client(), ts.URL+"/v1/nodes/"+node+"/keys/role"); code != 200 || string(body) != `{"node":"web01.example.net","key":"role","value":"web"}`+"\n" {
		t.Fatalf("lookup = %d %s", code, body)
	}
	if o := cached(); o == nil || o.p == nil || o.b != nil {
		t.Fatalf("after a lookup, the cache holds %+v, want the bundle's bytes only", o)
	}
	if code, _, body := get(t, ts.Client(), ts.URL+"/v1/nodes/"+node+"/keys/role?explain=1"); code != 200 {
		t.Fatalf("explain = %d %s", code, body)
	}
	if o := cached(); o == nil || o.b == nil || o.b.Header() != o.p.Header() {
		t.Fatalf("after an explanation, the cache holds %+v, want the bundle decoded", o)
	}
}
