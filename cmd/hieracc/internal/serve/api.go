package serve

// Stage: the JSON API, at paths clients rely on, and the bundle files.
// Every answer is made whole from one snapshot before a byte is sent, and
// every error is a JSON object {"error": message}, with Puppet's message
// where Puppet has one.

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/bundlediff"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
	"github.com/hieracc/hieracc/runtime/reload"
	rendering "github.com/hieracc/hieracc/runtime/render"
)

// apiError is an answer with an error status.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern, route string, h http.HandlerFunc) {
		mux.Handle(pattern, s.instrument(route, h))
	}
	handle("GET /healthz", "/healthz", s.healthz)
	handle("GET /metrics", "/metrics", s.serveMetrics)
	handle("GET /v1/nodes", "/v1/nodes", s.nodes)
	handle("GET /v1/nodes/{node}/bundle", "/v1/nodes/{node}/bundle", s.bundle)
	handle("GET /v1/nodes/{node}/details", "/v1/nodes/{node}/details", s.details)
	handle("GET /v1/nodes/{node}/details/{file}", "/v1/nodes/{node}/details/{file}", s.details)
	handle("GET /v1/nodes/{node}/keys", "/v1/nodes/{node}/keys", s.nodeKeys)
	handle("GET /v1/nodes/{node}/keys/{key}", "/v1/nodes/{node}/keys/{key}", s.nodeKey)
	handle("GET /v1/keys", "/v1/keys", s.keys)
	handle("GET /v1/keys/{key}", "/v1/keys/{key}", s.key)
	handle("GET /v1/compare/{a}/{b}", "/v1/compare/{a}/{b}", s.compare)
	handle("GET /v1/", "/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{http.StatusNotFound, "no such path: " + r.URL.Path})
	})
	handle("GET /", "/", s.web)
	handle("/", "other", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, &apiError{http.StatusMethodNotAllowed, "the server is read-only: only GET"})
	})
	return mux
}

// writeJSON answers with v, compact and without HTML escapes, so that a
// value inside is byte for byte as lookup --render-as json prints it.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// writeError answers with err as a JSON object.
func writeError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		status = ae.status
	case errors.Is(err, runtime.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, runtime.ErrSealed):
		status = http.StatusForbidden
	case errors.Is(err, errStale):
		status = http.StatusServiceUnavailable
	}
	data, _ := json.Marshal(map[string]string{"error": err.Error()})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

func forbidden(r *http.Request) error {
	return &apiError{http.StatusForbidden, fmt.Sprintf("certificate %q may not read this", who(r))}
}

// checkNode refuses a node name that is no certname, and a client that
// may not read it.
func (s *Server) checkNode(r *http.Request, node string) error {
	if node == "" || node == "." || node == ".." || strings.ContainsAny(node, `/\`) {
		return &apiError{http.StatusBadRequest, fmt.Sprintf("%q is not a certname", node)}
	}
	if !s.mayRead(r, node) {
		return forbidden(r)
	}
	return nil
}

// nodes is GET /v1/nodes: {"nodes": [...], "revision": ...}.
func (s *Server) nodes(w http.ResponseWriter, r *http.Request) {
	if !s.reader(r) {
		writeError(w, forbidden(r))
		return
	}
	snap := s.cur.Load()
	nodes := snap.set.Nodes
	if nodes == nil {
		nodes = []string{}
	}
	writeJSON(w, http.StatusOK, struct {
		Nodes          []string `json:"nodes"`
		Revision       string   `json:"revision"`
		SourceRevision string   `json:"source_revision"`
	}{nodes, snap.revision, snap.sourceRevision})
}

func etag(d [32]byte) string { return `"` + hex.EncodeToString(d[:]) + `"` }

// notModified reports whether the request's If-None-Match holds tag.
func notModified(r *http.Request, tag string) bool {
	for _, t := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		if t = strings.TrimSpace(t); t == tag || t == "W/"+tag || t == "*" {
			return true
		}
	}
	return false
}

// preferWait is the long poll a request asks for ("Prefer: wait=N"),
// capped.
func (s *Server) preferWait(r *http.Request) time.Duration {
	for _, p := range strings.Split(r.Header.Get("Prefer"), ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(p), "wait="); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return min(time.Duration(n)*time.Second, s.cfg.MaxWait)
			}
		}
	}
	return 0
}

// bundle is GET /v1/nodes/{node}/bundle: the file, its digest the ETag.
// With If-None-Match naming it, 304, after waiting for a change when the
// request asks for a long poll.
func (s *Server) bundle(w http.ResponseWriter, r *http.Request) {
	node := r.PathValue("node")
	if err := s.checkNode(r, node); err != nil {
		writeError(w, err)
		return
	}
	if wait := s.preferWait(r); wait > 0 {
		deadline := time.After(wait)
		for {
			snap := s.cur.Load()
			d, ok := snap.digests[node]
			if !ok || !notModified(r, etag(d)) {
				break
			}
			next := s.next()
			if s.cur.Load() != snap {
				continue
			}
			select {
			case <-next:
				continue
			case <-deadline:
			case <-r.Context().Done():
			case <-s.stopping:
			}
			break
		}
	}
	var data []byte
	var tag string
	err := s.consistent(r.Context(), func(snap *snapshot) error {
		d, ok := snap.digests[node]
		if !ok {
			return &apiError{http.StatusNotFound, fmt.Sprintf("no bundle for node %s", node)}
		}
		tag = etag(d)
		if notModified(r, tag) {
			data = nil
			return nil
		}
		b, err := format.ReadFile(snap.set.File(node))
		if errors.Is(err, os.ErrNotExist) {
			return errStale
		}
		if err != nil {
			return err
		}
		if h, err := format.ReadHeader(bytes.NewReader(b)); err != nil || h.Digest != d {
			return errStale
		}
		data = b
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("ETag", tag)
	w.Header().Set("Cache-Control", "no-cache")
	if data == nil {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}

// details is GET /v1/nodes/{node}/details (and .../details/<digest>.details,
// the name the bundle gives it relative to its own URL): the node's
// shared details file, its digest the ETag.
func (s *Server) details(w http.ResponseWriter, r *http.Request) {
	node := r.PathValue("node")
	if err := s.checkNode(r, node); err != nil {
		writeError(w, err)
		return
	}
	var data []byte
	var tag string
	err := s.consistent(r.Context(), func(snap *snapshot) error {
		o, err := s.open(snap, node, true)
		if err != nil {
			return err
		}
		b, err := o.bundle()
		if err != nil {
			return err
		}
		file := b.SharedDetailsFile()
		if file == "" {
			return &apiError{http.StatusNotFound, fmt.Sprintf("the bundle of node %s holds all of its details: it has no shared details file", node)}
		}
		if want := r.PathValue("file"); want != "" && want != filepath.Base(file) {
			return &apiError{http.StatusNotFound, fmt.Sprintf("node %s's bundle has no details file %s", node, want)}
		}
		d, _ := format.ParseSharedDetailsName(filepath.Base(file))
		tag = etag(d)
		if notModified(r, tag) {
			return nil
		}
		data, err = format.ReadRegular(file, reload.MaxFetchSize)
		if errors.Is(err, os.ErrNotExist) {
			return errStale
		}
		return err
	})
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("ETag", tag)
	if data == nil {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(data)
}

// keyAnswer is GET /v1/nodes/{node}/keys/{key}.
type keyAnswer struct {
	Node  string          `json:"node"`
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value,omitempty"`
	// Secret: the value is decrypted from ENC[...] or Sensitive, and
	// shown only to the node's own certificate.
	Secret      bool         `json:"secret,omitempty"`
	Explanation *explanation `json:"explanation,omitempty"`
}

type explanation struct {
	Merge   string   `json:"merge"`
	Sources []source `json:"sources"`
}

// source is where a value came from.
type source struct {
	Layer  string          `json:"layer"`
	Module string          `json:"module,omitempty"`
	Level  string          `json:"level"`
	File   string          `json:"file"`
	Line   int             `json:"line,omitempty"`
	Column int             `json:"column,omitempty"`
	Value  json.RawMessage `json:"value,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// render is a value as `lookup --render-as json` prints it.
func render(v any) (json.RawMessage, error) {
	out, err := rendering.As(v, rendering.JSON)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(out, []byte("\n"))), nil
}

// lookup looks key up in o for the client: a secret value only for the
// node's own certificate. With ?render=yaml (the web view), yaml is the
// value as 'hieracc lookup' prints it by default, less its "---" line.
func lookup(r *http.Request, node string, o *opened, key string) (value json.RawMessage, yaml string, secret bool, err error) {
	v, secret, err := o.lookup(key)
	if err != nil {
		return nil, "", false, err
	}
	if secret && !(authenticated(r) && who(r) == node) {
		return nil, "", true, nil
	}
	if value, err = render(v); err != nil {
		return nil, "", false, err
	}
	yaml, err = renderYAML(r, v)
	return value, yaml, secret, err
}

// renderYAML is v in YAML when the request asks for it (?render=yaml).
func renderYAML(r *http.Request, v any) (string, error) {
	if r.URL.Query().Get("render") != "yaml" {
		return "", nil
	}
	out, err := rendering.As(v, rendering.YAML)
	if err != nil {
		return "", err
	}
	y := strings.TrimSuffix(string(out), "\n")
	if rest, ok := strings.CutPrefix(y, "--- "); ok {
		return rest, nil
	}
	return strings.TrimPrefix(strings.TrimPrefix(y, "---"), "\n"), nil
}

func (s *Server) nodeKey(w http.ResponseWriter, r *http.Request) {
	node, key := r.PathValue("node"), r.PathValue("key")
	if err := s.checkNode(r, node); err != nil {
		writeError(w, err)
		return
	}
	explain := r.URL.Query().Get("explain")
	var a keyAnswer
	err := s.consistent(r.Context(), func(snap *snapshot) error {
		o, err := s.open(snap, node, true)
		if err != nil {
			return err
		}
		a = keyAnswer{Node: node, Key: key}
		if a.Value, _, a.Secret, err = lookup(r, node, o, key); err != nil {
			return err
		}
		if explain != "" && explain != "0" && explain != "false" {
			a.Explanation, err = explainKey(o, key, a.Secret && a.Value == nil)
		}
		return err
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// explainKey says where key's value comes from; hide leaves the values
// out.
func explainKey(o *opened, key string, hide bool) (*explanation, error) {
	b, err := o.bundle()
	if err != nil {
		return nil, err
	}
	e, err := explain.Key(b, key)
	if err != nil {
		return nil, err
	}
	x := &explanation{Merge: string(e.Merge.Strategy), Sources: []source{}}
	if x.Merge == "" {
		x.Merge = "first"
	}
	srcs := e.Sources
	if len(srcs) == 0 {
		srcs = e.Defaults
	}
	for _, src := range srcs {
		so := source{Layer: src.Layer.String(), Module: src.Module, Level: src.Level, File: src.File, Line: src.Line, Column: src.Column}
		if src.Err != nil {
			so.Error = src.Err.Message
		} else if !hide {
			if so.Value, err = render(src.Value); err != nil {
				return nil, err
			}
		}
		x.Sources = append(x.Sources, so)
	}
	return x, nil
}

// nodeKeys is GET /v1/nodes/{node}/keys: every key of the node, its value
// and where it came from, for the web view.
func (s *Server) nodeKeys(w http.ResponseWriter, r *http.Request) {
	node := r.PathValue("node")
	if err := s.checkNode(r, node); err != nil {
		writeError(w, err)
		return
	}
	type entry struct {
		Key    string          `json:"key"`
		Value  json.RawMessage `json:"value,omitempty"`
		YAML   string          `json:"yaml,omitempty"`
		Secret bool            `json:"secret,omitempty"`
		Error  string          `json:"error,omitempty"`
		From   *source         `json:"from,omitempty"`
	}
	var out []entry
	var hdr format.Header
	err := s.consistent(r.Context(), func(snap *snapshot) error {
		o, err := s.open(snap, node, true)
		if err != nil {
			return err
		}
		b, err := o.bundle()
		if err != nil {
			return err
		}
		hdr = b.Header()
		out = []entry{}
		for _, k := range b.Keys() {
			if k == "lookup_options" {
				continue
			}
			e := entry{Key: k}
			var lerr error
			e.Value, e.YAML, e.Secret, lerr = lookup(r, node, o, k)
			if lerr != nil {
				e.Error = lerr.Error()
			}
			if x, err := explainKey(o, k, true); err == nil && len(x.Sources) > 0 {
				e.From = &x.Sources[0]
			}
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Node        string  `json:"node"`
		Environment string  `json:"environment"`
		Revision    string  `json:"revision"`
		Keys        []entry `json:"keys"`
	}{node, hdr.Environment, hdr.Revision, out})
}

// keys is GET /v1/keys: every key of the fleet.
func (s *Server) keys(w http.ResponseWriter, r *http.Request) {
	if !s.reader(r) {
		writeError(w, forbidden(r))
		return
	}
	var keys []string
	err := s.consistent(r.Context(), func(snap *snapshot) error {
		var err error
		keys, err = s.allKeys(snap)
		return err
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
}

// allKeys is every key of snap's bundles, read once per snapshot.
func (s *Server) allKeys(snap *snapshot) ([]string, error) {
	snap.keysMu.Lock()
	defer snap.keysMu.Unlock()
	if snap.keys != nil {
		return snap.keys, nil
	}
	seen := map[string]bool{}
	for _, node := range snap.set.Nodes {
		o, err := s.open(snap, node, s.fits(snap))
		if err != nil {
			return nil, err
		}
		b, err := o.bundle()
		if err != nil {
			return nil, err
		}
		for _, k := range b.Keys() {
			if k != "lookup_options" {
				seen[k] = true
			}
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	snap.keys = keys
	return keys, nil
}

// fits reports whether every bundle of snap fits in the cache: a
// fleet-wide read then keeps them open; else it would push out the
// bundles in use, and opens them without keeping them.
func (s *Server) fits(snap *snapshot) bool { return len(snap.set.Nodes) <= s.cfg.Cache }

// group is the nodes that get one value of a key.
type group struct {
	Value json.RawMessage `json:"value,omitempty"`
	YAML  string          `json:"yaml,omitempty"` // with ?render=yaml
	// Secret: the nodes' values are secret, and not shown (nor compared).
	Secret bool `json:"secret,omitempty"`
	// Error: the lookup fails on these nodes, with this message
	// (Puppet's "did not find a value" for a key they lack).
	Error    string   `json:"error,omitempty"`
	Count    int      `json:"count"`
	Nodes    []string `json:"nodes"`
	Patterns []string `json:"patterns"`
}

// maxPatterns is how many patterns summarise a group's nodes.
const maxPatterns = 5

// key is GET /v1/keys/{key}: the key across the fleet, grouped by value,
// largest group first.
func (s *Server) key(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	if !s.reader(r) {
		writeError(w, forbidden(r))
		return
	}
	var groups []*group
	err := s.consistent(r.Context(), func(snap *snapshot) error {
		var err error
		groups, err = s.groups(r, snap, key)
		return err
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Key    string   `json:"key"`
		Groups []*group `json:"groups"`
	}{key, groups})
}

func (s *Server) groups(r *http.Request, snap *snapshot, key string) ([]*group, error) {
	byValue := map[string]*group{}
	var groups []*group
	for _, node := range snap.set.Nodes {
		o, err := s.open(snap, node, s.fits(snap))
		if err != nil {
			return nil, err
		}
		var g group
		v, secret, err := o.lookup(key)
		switch {
		case errors.Is(err, errStale):
			return nil, err
		case err != nil:
			g.Error = err.Error()
		default:
			if secret {
				g.Secret = true
			} else if g.Value, err = render(v); err != nil {
				return nil, err
			} else if g.YAML, err = renderYAML(r, v); err != nil {
				return nil, err
			}
		}
		id := fmt.Sprintf("%t\x00%s\x00%s", g.Secret, g.Error, g.Value)
		have, ok := byValue[id]
		if !ok {
			have = &g
			byValue[id] = have
			groups = append(groups, have)
		}
		have.Count++
		have.Nodes = append(have.Nodes, node)
	}
	of := map[string]int{}
	for _, g := range groups {
		for _, p := range bundlediff.Summarise(g.Nodes, snap.set.Nodes, maxPatterns, of) {
			g.Patterns = append(g.Patterns, p.Glob)
		}
	}
	slices.SortStableFunc(groups, func(a, b *group) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Nodes[0], b.Nodes[0])
	})
	return groups, nil
}

// compare is GET /v1/compare/{a}/{b}: every key of either node, with each
// one's value, and whether they are the same.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	a, b := r.PathValue("a"), r.PathValue("b")
	for _, n := range []string{a, b} {
		if err := s.checkNode(r, n); err != nil {
			writeError(w, err)
			return
		}
	}
	type side struct {
		Value  json.RawMessage `json:"value,omitempty"`
		YAML   string          `json:"yaml,omitempty"`
		Secret bool            `json:"secret,omitempty"`
		Error  string          `json:"error,omitempty"`
	}
	type row struct {
		Key  string `json:"key"`
		A    side   `json:"a"`
		B    side   `json:"b"`
		Same bool   `json:"same"`
	}
	var rows []row
	err := s.consistent(r.Context(), func(snap *snapshot) error {
		oa, err := s.open(snap, a, true)
		if err != nil {
			return err
		}
		ob, err := s.open(snap, b, true)
		if err != nil {
			return err
		}
		ba, err := oa.bundle()
		if err != nil {
			return err
		}
		bb, err := ob.bundle()
		if err != nil {
			return err
		}
		keys := append(ba.Keys(), bb.Keys()...)
		slices.Sort(keys)
		keys = slices.Compact(keys)
		rows = []row{}
		get := func(node string, o *opened, k string) side {
			v, y, secret, err := lookup(r, node, o, k)
			if err != nil {
				return side{Error: err.Error()}
			}
			return side{Value: v, YAML: y, Secret: secret}
		}
		for _, k := range keys {
			if k == "lookup_options" {
				continue
			}
			x := row{Key: k, A: get(a, oa, k), B: get(b, ob, k)}
			x.Same = !x.A.Secret && !x.B.Secret && x.A.Error == x.B.Error && bytes.Equal(x.A.Value, x.B.Value)
			rows = append(rows, x)
		}
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		A    string `json:"a"`
		B    string `json:"b"`
		Keys []row  `json:"keys"`
	}{a, b, rows})
}
