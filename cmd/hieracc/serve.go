package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/serve"
	"github.com/hieracc/hieracc/format"
)

var serveCmd = &command{
	name:     "serve",
	synopsis: "serve a compiled folder over HTTP: bundles for agents, a JSON API, a web view",
	usage:    serveUsage,
	run:      runServe,
}

type serveFlags struct {
	listen, tlsCert, tlsKey, clientCA string
	crl                               string // --crl: Puppet's ssl/crl.pem
	allow                             stringList
	poll                              time.Duration
	cache                             int
	ready                             string // --ready-file: written with the address once listening (tests, scripts)
}

func runServe(c *cmdEnv, args []string) int {
	var f serveFlags
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8150", "")
	fl.StringVar(&f.tlsCert, "tls-cert", "", "")
	fl.StringVar(&f.tlsKey, "tls-key", "", "")
	fl.StringVar(&f.clientCA, "client-ca", "", "")
	fl.StringVar(&f.crl, "crl", "", "")
	fl.Var(&f.allow, "allow", "")
	fl.DurationVar(&f.poll, "poll", time.Second, "")
	fl.IntVar(&f.cache, "cache", 1024, "")
	fl.StringVar(&f.ready, "ready-file", "", "")
	rest, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	switch {
	case len(rest) != 1:
		return c.usageError("give one folder: the one 'hieracc compile' wrote (its --out)")
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return c.usageError("--tls-cert and --tls-key go together")
	case f.clientCA != "" && f.tlsCert == "":
		return c.usageError("--client-ca needs TLS: give --tls-cert and --tls-key")
	case f.crl != "" && f.clientCA == "":
		return c.usageError("--crl checks client certificates: give --client-ca")
	case len(f.allow) > 0 && f.clientCA == "":
		return c.usageError("--allow names client certificates: give --client-ca")
	case f.poll <= 0:
		return c.usageError("--poll must be positive, not %v", f.poll)
	case f.cache <= 0:
		return c.usageError("--cache must be positive, not %d", f.cache)
	}
	log := slog.New(slog.NewJSONHandler(c.stderr, nil))
	srv, err := serve.New(serve.Config{Dir: rest[0], Poll: f.poll, Cache: f.cache, Readers: f.allow, Logger: log})
	if err != nil {
		c.errorf("%v", cleanPathErr(err))
		return exitFail
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	hs.RegisterOnShutdown(srv.Stop)
	if f.tlsCert != "" {
		cfg, err := f.tlsConfig()
		if err != nil {
			c.errorf("%v", err)
			return exitFail
		}
		hs.TLSConfig = cfg
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		c.errorf("--listen: %v", err)
		return exitFail
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go srv.Watch(ctx)
	scheme := "http"
	if hs.TLSConfig != nil {
		scheme = "https"
	}
	log.Info("serving", "dir", rest[0], "url", scheme+"://"+ln.Addr().String(), "client_certificates", f.clientCA != "")
	if f.ready != "" {
		if err := os.WriteFile(f.ready, []byte(scheme+"://"+ln.Addr().String()+"\n"), 0o644); err != nil {
			c.errorf("--ready-file: %v", cleanPathErr(err))
			return exitFail
		}
	}
	errc := make(chan error, 1)
	go func() {
		if hs.TLSConfig != nil {
			errc <- hs.ServeTLS(ln, "", "") // the certificate is in TLSConfig
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		c.errorf("%v", err)
		return exitFail
	case <-ctx.Done():
	}
	// Graceful: stop accepting, let the requests in flight (long polls
	// included) end, for at most a minute.
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		c.errorf("shutdown: %v", err)
		return exitFail
	}
	return exitOK
}

// tlsConfig is the server's certificate and, with --client-ca, the CA
// every client's certificate must be issued by.
func (f *serveFlags) tlsConfig() (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %v", cleanPathErr(err))
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if f.clientCA != "" {
		caPEM, err := format.ReadRegular(f.clientCA, 16<<20)
		if err != nil {
			return nil, fmt.Errorf("--client-ca: %v", cleanPathErr(err))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("--client-ca %s: no PEM certificate in it", f.clientCA)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
		if f.crl != "" {
			revoked, err := readCRL(f.crl, caPEM)
			if err != nil {
				return nil, err
			}
			cfg.VerifyPeerCertificate = revoked.check
		}
	}
	return cfg, nil
}

// revocations are the serial numbers a CRL revokes, by issuer.
type revocations map[string]map[string]bool // raw issuer -> serial (decimal) -> revoked

// readCRL reads the CRLs of file (PEM: Puppet's ssl/crl.pem holds one
// per CA of the chain), each signed by a certificate of caPEM.
func readCRL(file string, caPEM []byte) (revocations, error) {
	data, err := format.ReadRegular(file, 64<<20)
	if err != nil {
		return nil, fmt.Errorf("--crl: %v", cleanPathErr(err))
	}
	var cas []*x509.Certificate
	for rest := caPEM; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if c, err := x509.ParseCertificate(b.Bytes); err == nil && b.Type == "CERTIFICATE" {
			cas = append(cas, c)
		}
	}
	r := revocations{}
	n := 0
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type != "X509 CRL" {
			continue
		}
		rl, err := x509.ParseRevocationList(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("--crl %s: %v", file, err)
		}
		signed := false
		for _, ca := range cas {
			if rl.CheckSignatureFrom(ca) == nil {
				signed = true
				break
			}
		}
		if !signed {
			return nil, fmt.Errorf("--crl %s: a CRL (issuer %s) is not signed by a CA of --client-ca", file, rl.Issuer)
		}
		n++
		issuer := string(rl.RawIssuer)
		if r[issuer] == nil {
			r[issuer] = map[string]bool{}
		}
		for _, e := range rl.RevokedCertificateEntries {
			r[issuer][e.SerialNumber.String()] = true
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("--crl %s: no PEM X509 CRL in it", file)
	}
	return r, nil
}

// check refuses a client certificate the CRLs revoke: each certificate of
// each verified chain is checked.
func (r revocations) check(_ [][]byte, chains [][]*x509.Certificate) error {
	for _, chain := range chains {
		for _, c := range chain {
			if r[string(c.RawIssuer)][c.SerialNumber.String()] {
				return fmt.Errorf("certificate %q (serial %s) is revoked", c.Subject.CommonName, c.SerialNumber)
			}
		}
	}
	return nil
}

const serveUsage = `Usage:
  hieracc serve [flags] DIR

Serves the folder 'hieracc compile' wrote (its --out; a folder of the shards'
folders too) over HTTP, read-only: each node's bundle for agents (the
runtime/reload's HTTP), a JSON API for scripts in any language, and a web
view for people ("who gets what"). Every read goes through the runtime, as an
agent's does. A compile into DIR is picked up as a whole: every answer comes
from one compile's bundles, never a mix of the old and the new.

Flags:
  --listen ADDR     the address to listen on (default 127.0.0.1:8150).
  --tls-cert FILE   serve HTTPS with this certificate (PEM): a Puppet
                    server's ssl/certs/<name>.pem does.
  --tls-key FILE    the certificate's private key (PEM): the same server's
                    ssl/private_keys/<name>.pem.
  --client-ca FILE  require a client certificate issued by this CA (PEM:
                    Puppet's ssl/certs/ca.pem). A certificate reads only the
                    node it names (its common name, the certname): its bundle
                    and its keys, and its secret values. Without it, anyone
                    who reaches --listen reads every node (secret values
                    never).
  --crl FILE        refuse the client certificates these CRLs revoke (PEM:
                    Puppet's ssl/crl.pem), each signed by a --client-ca CA.
                    Read at start: restart the server for a new one.
  --allow NAME      a certificate that may read every node and the fleet-wide
                    views (repeatable; NAME may be a pattern, as Go's
                    path.Match: 'ci.*'): reviewers, CI. Needs --client-ca.
  --poll DURATION   how often DIR is checked for a new compile (default 1s).
  --cache N         how many bundles are kept open (default 1024); others are
                    opened when asked for. A key lookup keeps only the
                    bundle's bytes and decodes only that key.
  --ready-file FILE once listening, write the server's URL to FILE (for
                    scripts and tests: --listen 127.0.0.1:0 picks a port).

Paths (GET; every answer JSON, every error {"error": message}):
  /v1/nodes                          the nodes
  /v1/nodes/NODE/bundle              the bundle; ETag its digest, so
                                     If-None-Match answers 304; with
                                     "Prefer: wait=N" a 304 waits up to N s
                                     (at most 60) for a change
  /v1/nodes/NODE/details             its shared details file, the same way
  /v1/nodes/NODE/keys/KEY            {"node", "key", "value"}: value as
                                     'lookup --render-as json' prints it;
                                     ?explain=1 adds where it came from; a
                                     key not found is a 404 with Puppet's
                                     message
  /v1/nodes/NODE/keys                every key of the node, where it came from
  /v1/keys                           every key of the fleet
  /v1/keys/KEY                       {"key", "groups": [{"value", "count",
                                     "nodes", "patterns"}]}: who gets what
  /v1/compare/NODE1/NODE2            two nodes' keys side by side
  /                                  the web view
  /healthz, /metrics                 health; Prometheus metrics

Secret values (decrypted from ENC[...], or Sensitive) are shown only to the
node's own certificate, and never in the fleet-wide views; sealed keys never
(the server has no node's private key). Access logs go to stderr as JSON
lines. SIGTERM or SIGINT stops the server once the requests in flight end.

Examples:
  hieracc serve bundles/
  hieracc serve --listen :8150 \
      --tls-cert /etc/puppetlabs/puppet/ssl/certs/hieracc.example.net.pem \
      --tls-key /etc/puppetlabs/puppet/ssl/private_keys/hieracc.example.net.pem \
      --client-ca /etc/puppetlabs/puppet/ssl/certs/ca.pem \
      --allow ci.example.net bundles/

Exit codes:
  0  stopped by SIGTERM or SIGINT
  1  DIR cannot be served, or the server failed
  2  bad command line
`
