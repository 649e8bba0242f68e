// Package puppetdb fetches node facts straight from PuppetDB's query API
// (v4), over HTTP or HTTPS with a client certificate, as package facts
// reads them from a factsets export: each node's facts, its environment,
// and its trusted hash (PuppetDB keeps $trusted as a fact named trusted).
//
// Nodes are chosen by a PQL query, any query whose results have a
// certname (inventory[certname] { facts.os.family = "RedHat" },
// nodes[certname] { ... }); without one, every node's factset is
// fetched. Factsets are fetched by pages, ordered by certname, so no
// response is larger than a page.
package puppetdb

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
)

// Config says where PuppetDB is, how to reach it and which nodes to fetch.
type Config struct {
	// URL is PuppetDB's base URL: http://localhost:8080 or
	// https://puppetdb.example.com:8081. Its path, if any, is kept (a
	// proxy's prefix); the API's paths (/pdb/query/v4/...) are added.
	URL string
	// Cert and Key are PEM files of the client certificate and its key
	// for HTTPS (PuppetDB's certificate allowlist); CACert the PEM file of
	// the CA PuppetDB's certificate must chain to (Puppet's CA). Empty:
	// no client certificate, the system's roots.
	Cert, Key, CACert string
	// Query is a PQL query choosing the nodes: its results must have a
	// certname field. Empty: every node.
	Query string
	// PageSize is the most factsets fetched per request; 0 means 200.
	PageSize int
	// Client, when set, is used as it is (tests); Cert, Key and CACert
	// are then not read.
	Client *http.Client
}

// maxResponse is the largest response read: a page of factsets, or the
// certnames a query chose. Beyond it the page size must be smaller.
const maxResponse = dataload.MaxFileSize

// Fetch returns the facts of the nodes cfg chooses, in certname order.
// err is set when PuppetDB cannot be asked (unreachable, refused, a bad
// query); problems report responses that are not facts, as package facts
// reports files.
func Fetch(ctx context.Context, cfg Config) (nodes []facts.Node, problems []diagnostics.Diagnostic, err error) {
	shown := redact(cfg.URL) // its password, if any, is in no message
	base, err := url.Parse(strings.TrimSuffix(cfg.URL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, nil, fmt.Errorf("--puppetdb %s: want a URL like https://puppetdb.example.com:8081", shown)
	}
	client := cfg.Client
	if client == nil {
		if client, err = newClient(cfg); err != nil {
			return nil, nil, err
		}
	}
	if client.CheckRedirect == nil {
		cl := *client
		cl.CheckRedirect = sameOrigin
		client = &cl
	}
	c := &conn{base: base, client: client}
	pageSize := cfg.PageSize
	if pageSize <= 0 {
		pageSize = 200
	}

	// The nodes, when a query chooses them.
	var filter []any // an AST query on factsets, or nil for all
	if cfg.Query != "" {
		certnames, err := c.certnames(ctx, cfg.Query)
		if err != nil {
			return nil, nil, err
		}
		if len(certnames) == 0 {
			return nil, nil, fmt.Errorf("--puppetdb-query %s: no node matches", cfg.Query)
		}
		// Each page asks for the factsets of its own certnames.
		for i := 0; i < len(certnames); i += pageSize {
			names := certnames[i:min(i+pageSize, len(certnames))]
			list := make([]any, len(names))
			for j, n := range names {
				list[j] = n
			}
			filter = []any{"in", "certname", []any{"array", list}}
			ns, ps, u, err := c.factsets(ctx, filter, 0, 0)
			if err != nil {
				return nil, nil, err
			}
			asked := map[string]bool{}
			for _, n := range names {
				asked[n] = true
			}
			for _, n := range ns {
				if !asked[n.Certname] {
					return nil, nil, fmt.Errorf("puppetdb: %s answered with the factset of %s, which was not asked for: it (or a proxy) ignores the query", u, n.Certname)
				}
			}
			nodes, problems = append(nodes, ns...), append(problems, ps...)
		}
		return nodes, problems, nil
	}
	seen := map[string]bool{}
	for offset := 0; ; offset += pageSize {
		ns, ps, u, err := c.factsets(ctx, nil, pageSize, offset)
		if err != nil {
			return nil, nil, err
		}
		// A PuppetDB, or a proxy, that ignores limit or offset would
		// have hieracc ask for pages forever.
		if len(ns)+len(ps) > pageSize {
			return nil, nil, fmt.Errorf("puppetdb: %s answered with %d factsets for a page of %d: it (or a proxy) ignores the query's limit", u, len(ns)+len(ps), pageSize)
		}
		again := 0
		for _, n := range ns {
			if seen[n.Certname] {
				again++
			}
			seen[n.Certname] = true
		}
		if again > 0 && again == len(ns) {
			return nil, nil, fmt.Errorf("puppetdb: %s answered the page at offset %d with factsets it had given already: it (or a proxy) ignores the query's offset", u, offset)
		}
		nodes, problems = append(nodes, ns...), append(problems, ps...)
		if len(nodes)+len(problems) > maxFactsets {
			return nil, nil, fmt.Errorf("puppetdb: %s: more than %d factsets: over hieracc's limit (see \"Limits and errors\" in its README)", shown, maxFactsets)
		}
		if len(ns)+len(ps) < pageSize {
			break // the last page
		}
		if len(ns) == 0 {
			return nil, nil, fmt.Errorf("puppetdb: %s answered the page at offset %d with %d records, none of them a factset", u, offset, len(ps))
		}
	}
	if len(nodes) == 0 && len(problems) == 0 {
		return nil, nil, fmt.Errorf("--puppetdb %s: PuppetDB has no factsets", shown)
	}
	return nodes, problems, nil
}

// maxFactsets bounds the factsets one compile fetches, page after page.
const maxFactsets = 1 << 20

// redact is raw, a URL, with the password of its user info, if any,
// replaced by "xxxxx" (url.URL.Redacted). A URL that does not parse, or
// has an "@" outside its user info (a password with an unescaped "/"),
// loses everything before its last "@".
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && (u.User != nil || !strings.Contains(raw, "@")) {
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		scheme, rest = "", raw
	} else {
		scheme += "://"
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = "xxxxx" + rest[i:]
	}
	return scheme + rest
}

// sameOrigin is the redirect policy of PuppetDB's client: a redirect is
// followed only to the same scheme, host and port (a proxy's other path),
// never to another server, which would receive the query (and, were it
// followed over plain HTTP, what the certificate protects).
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	from, to := via[0].URL, req.URL
	if to.Scheme != from.Scheme || to.Hostname() != from.Hostname() || port(to) != port(from) {
		return fmt.Errorf("redirected to %s, another server than --puppetdb's: hieracc follows redirects only to the same scheme, host and port", redact(req.URL.String()))
	}
	return nil
}

// newClient is an HTTP client with cfg's TLS settings.
func newClient(cfg Config) (*http.Client, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.Cert != "" || cfg.Key != "" {
		if cfg.Cert == "" || cfg.Key == "" {
			return nil, errors.New("--puppetdb-cert and --puppetdb-key go together")
		}
		cert, err := readPEM("--puppetdb-cert", cfg.Cert)
		if err != nil {
			return nil, err
		}
		key, err := readPEM("--puppetdb-key", cfg.Key)
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("--puppetdb-cert/--puppetdb-key: %v", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	if cfg.CACert != "" {
		pem, err := readPEM("--puppetdb-cacert", cfg.CACert)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--puppetdb-cacert %s: no PEM certificate in it", cfg.CACert)
		}
		tc.RootCAs = pool
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	return &http.Client{Transport: tr, Timeout: 10 * time.Minute}, nil
}

// maxPEM is the largest certificate or key file read: a CA bundle is a
// few hundred KB.
const maxPEM = 16 << 20

// readPEM reads the file a flag names, if it is a regular file (a named
// pipe would block, /dev/zero never end) of at most maxPEM bytes.
func readPEM(flag, name string) ([]byte, error) {
	b, err := format.ReadRegular(name, maxPEM)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %s: %v", flag, name, err)
	}
	return b, nil
}

// conn is a PuppetDB to ask.
type conn struct {
	base   *url.URL
	client *http.Client
}

// post sends a query body to a query endpoint and returns the parsed
// JSON response, and the URL asked, for messages (without its password).
func (c *conn) post(ctx context.Context, endpoint string, body map[string]any) (any, string, error) {
	target := c.base.JoinPath(endpoint)
	u := redact(target.String())
	data, err := json.Marshal(body)
	if err != nil {
		return nil, u, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(data))
	if err != nil {
		return nil, u, fmt.Errorf("puppetdb: %s: %v", u, unwrapURLErr(err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, u, fmt.Errorf("puppetdb: %s: %v", u, unwrapURLErr(err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, u, fmt.Errorf("puppetdb: %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(raw))
		if len(msg) > 500 {
			msg = msg[:500] + "..."
		}
		return nil, u, fmt.Errorf("puppetdb: %s: %s: %s", u, resp.Status, msg)
	}
	if len(raw) > maxResponse {
		return nil, u, fmt.Errorf("puppetdb: %s: a response of more than %d bytes: ask for fewer nodes per page", u, maxResponse)
	}
	v, p := dataload.JSONValue(u, raw)
	if p != nil {
		return nil, u, fmt.Errorf("puppetdb: %s: the response is not JSON: %s", u, p.Message)
	}
	return v, u, nil
}

// port is u's port, or its scheme's.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	return map[string]string{"http": "80", "https": "443"}[u.Scheme]
}

// unwrapURLErr is the cause of a failed request: a *url.Error names the
// URL, password included when it has one.
func unwrapURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// certnames runs a PQL query and returns the certnames of its results,
// each once, in the order they came.
func (c *conn) certnames(ctx context.Context, pql string) ([]string, error) {
	v, u, err := c.post(ctx, "pdb/query/v4", map[string]any{"query": pql})
	if err != nil {
		return nil, fmt.Errorf("--puppetdb-query %s: %v", pql, err)
	}
	rows, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("--puppetdb-query %s: %s answered with something other than an array of results", pql, u)
	}
	var out []string
	seen := map[string]bool{}
	for i, r := range rows {
		var name any
		if h, ok := r.(interface{ Get(any) (any, bool) }); ok {
			name, _ = h.Get("certname")
		}
		s, ok := name.(string)
		if !ok {
			return nil, fmt.Errorf("--puppetdb-query %s: result %d has no certname: the query must return certnames, e.g. inventory[certname] { ... }", pql, i+1)
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// factsets fetches one page of factsets: those the AST query filter
// chooses (nil: all), limit of them from offset (0: no limit); u is the
// URL asked, for messages.
func (c *conn) factsets(ctx context.Context, filter []any, limit, offset int) (ns []facts.Node, ps []diagnostics.Diagnostic, u string, err error) {
	body := map[string]any{"order_by": []any{map[string]any{"field": "certname"}}}
	if filter != nil {
		body["query"] = filter
	}
	if limit > 0 {
		body["limit"] = limit
		body["offset"] = offset
	}
	v, u, err := c.post(ctx, "pdb/query/v4/factsets", body)
	if err != nil {
		return nil, nil, u, err
	}
	if a, ok := v.([]any); ok && len(a) == 0 {
		return nil, nil, u, nil
	}
	ns, ps = facts.Records(u, v)
	for _, n := range ns {
		if n.Format != facts.Factsets {
			return nil, nil, u, fmt.Errorf("puppetdb: %s answered with %s, not factsets", u, n.Format)
		}
	}
	return ns, ps, u, nil
}
