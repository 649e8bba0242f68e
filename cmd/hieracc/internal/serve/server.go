// Package serve is `hieracc serve`: a read-only HTTP server over the
// folder `hieracc compile` wrote (or the shards' folders), reading every
// bundle through package runtime, as agents do.
//
// The files read in order:
//
//	folder.go  the folder as a whole: a snapshot of one compile's output
//	cache.go   the bundles opened, kept by digest in an LRU cache
//	server.go  the server: snapshots in turn, who may read what, retries
//	api.go     the JSON API (/v1/...) and the bundle files, with ETags
//	ops.go     /healthz, /metrics, access logs
//	web.go     the web view for people (web/, embedded)
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hieracc/hieracc/runtime"
)

// Config is a server: the flags of `hieracc serve`.
type Config struct {
	Dir string // the folder served
	// Poll is how often the folder is checked for a new compile
	// (default 1s).
	Poll time.Duration
	// Cache is how many bundles are kept open (default 1024).
	Cache int
	// Readers are the names (path.Match patterns) whose client
	// certificates may read every node and the fleet-wide views:
	// reviewers, CI. Any other certificate reads only the node it names.
	// Without client certificates (no --client-ca), anyone who reaches
	// the server reads everything.
	Readers []string
	// MaxWait caps a long poll (default 60s).
	MaxWait time.Duration
	Logger  *slog.Logger // access logs and reloads; nil: none
}

// Server serves one folder.
type Server struct {
	cfg     Config
	cur     atomic.Pointer[snapshot]
	serial  atomic.Uint64
	cache   *lru
	hashed  runtime.Hashed // the bundle files whose digest held
	metrics *metrics
	log     *slog.Logger
	handler http.Handler

	stopping chan struct{} // closed by Stop: long polls answer at once
	stopOnce sync.Once

	reloadMu sync.Mutex
	newMu    sync.Mutex
	newSnap  chan struct{} // closed when a new snapshot is served
}

// startWait is how long New waits for a compile writing into the folder.
var startWait = time.Minute

// New reads the folder and returns its server. A compile writing into the
// folder is waited for (up to startWait).
func New(cfg Config) (*Server, error) {
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Cache <= 0 {
		cfg.Cache = 1024
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = time.Minute
	}
	for _, p := range cfg.Readers {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("reader %q: bad pattern", p)
		}
	}
	s := &Server{cfg: cfg, cache: newLRU(cfg.Cache), metrics: newMetrics(), log: cfg.Logger, newSnap: make(chan struct{}), stopping: make(chan struct{})}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	deadline := time.Now().Add(startWait)
	for {
		late := time.Now().After(deadline)
		snap, err := readSnapshot(cfg.Dir, nil, late)
		if err == nil {
			if late {
				s.log.Warn("serving a folder that holds a compile's temporary files, without state files: a compile killed, or still writing", "dir", cfg.Dir)
			}
			s.store(snap)
			break
		}
		if !errors.Is(err, errBusy) || late {
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.handler = s.routes()
	return s, nil
}

// Stop ends the long polls in flight (they answer 304 at once) and every
// later one: call it when the HTTP server shuts down
// (http.Server.RegisterOnShutdown), so that shutdown need not wait for
// them.
func (s *Server) Stop() { s.stopOnce.Do(func() { close(s.stopping) }) }

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) store(snap *snapshot) {
	snap.serial = s.serial.Add(1)
	s.cur.Store(snap)
	s.metrics.served(snap)
	s.newMu.Lock()
	close(s.newSnap)
	s.newSnap = make(chan struct{})
	s.newMu.Unlock()
}

// next returns a channel closed when a snapshot newer than the current
// one is served.
func (s *Server) next() <-chan struct{} {
	s.newMu.Lock()
	defer s.newMu.Unlock()
	return s.newSnap
}

// Refresh reads the folder again if it changed, and serves it when it is
// whole; it reports whether a new snapshot is served. A folder being
// written (errBusy) is not an error: the current snapshot stays.
func (s *Server) Refresh() (bool, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	cur := s.cur.Load()
	if !cur.changed(s.cfg.Dir) {
		return false, nil
	}
	snap, err := readSnapshot(s.cfg.Dir, cur, false)
	if errors.Is(err, errBusy) {
		return false, nil
	}
	if err != nil {
		s.metrics.reload(false)
		return false, err
	}
	s.store(snap)
	s.metrics.reload(true)
	s.log.Info("serving a new compile", "serial", snap.serial, "nodes", len(snap.set.Nodes), "revision", snap.revision)
	return true, nil
}

// Watch refreshes the snapshot every Poll until ctx is done.
func (s *Server) Watch(ctx context.Context) {
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	var last string
	go s.hashAll(ctx, s.cur.Load())
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fresh, err := s.Refresh()
		if fresh {
			go s.hashAll(ctx, s.cur.Load())
		}
		if err != nil {
			if err.Error() != last {
				s.log.Error("reading the folder", "err", err.Error())
			}
			last = err.Error()
		} else {
			last = ""
		}
	}
}

// hashAll reads each bundle of snap once, in the background, so that a
// key lookup finds its digest checked (s.hashed) and reads it without
// hashing it again; it stops when snap is no longer served.
func (s *Server) hashAll(ctx context.Context, snap *snapshot) {
	for _, node := range snap.set.Nodes {
		if ctx.Err() != nil || s.cur.Load() != snap {
			return
		}
		// An error is the lookup's to give.
		runtime.OpenPeek(snap.set.File(node), &s.hashed, runtime.Trust{Node: node})
	}
}

// errStale is a bundle that changed since its snapshot was read: the
// request is answered again from a newer snapshot.
var errStale = errors.New("the folder changed while it was read")

// open opens node's bundle of snap, from the cache or its file. keep
// false opens it without caching it (a fleet-wide read would push out
// every bundle in use).
func (s *Server) open(snap *snapshot, node string, keep bool) (*opened, error) {
	d, ok := snap.digests[node]
	if !ok {
		return nil, &apiError{http.StatusNotFound, fmt.Sprintf("no bundle for node %s", node)}
	}
	if o := s.cache.get(d); o != nil {
		return o, nil
	}
	p, err := runtime.OpenPeek(snap.set.File(node), &s.hashed, runtime.Trust{Node: node})
	if errors.Is(err, os.ErrNotExist) {
		return nil, errStale
	}
	if err != nil {
		return nil, err
	}
	if p.Header().Digest != d {
		return nil, errStale
	}
	o := &opened{p: p}
	if keep {
		o = s.cache.put(d, o)
	}
	return o, nil
}

// staleWait bounds how long a request waits for a compile writing into
// the folder to finish before it fails.
const staleWait = 30 * time.Second

// consistent runs answer on the current snapshot, and again on a newer
// one while it finds the folder changed under it: an answer is from one
// compile's bundles, never a mix. A compile committing into the folder is
// waited for.
func (s *Server) consistent(ctx context.Context, answer func(*snapshot) error) error {
	deadline := time.Now().Add(staleWait)
	for {
		snap := s.cur.Load()
		err := answer(snap)
		if !errors.Is(err, errStale) || time.Now().After(deadline) {
			return err
		}
		wait := s.next()
		if _, rerr := s.Refresh(); rerr != nil {
			return rerr
		}
		if s.cur.Load() != snap {
			continue
		}
		select {
		case <-wait:
		case <-time.After(s.cfg.Poll):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// who is the name of the client's certificate, "" without one.
func who(r *http.Request) string {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return ""
	}
	return r.TLS.PeerCertificates[0].Subject.CommonName
}

// authenticated reports whether the request came with a client
// certificate (the server checks them).
func authenticated(r *http.Request) bool {
	return r.TLS != nil && len(r.TLS.PeerCertificates) > 0
}

// reader reports whether the client may read every node.
func (s *Server) reader(r *http.Request) bool {
	if !authenticated(r) {
		return true
	}
	name := who(r)
	for _, p := range s.cfg.Readers {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// mayRead reports whether the client may read node: a reader, or the node
// itself.
func (s *Server) mayRead(r *http.Request, node string) bool {
	return s.reader(r) || authenticated(r) && who(r) == node
}
