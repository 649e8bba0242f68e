package reload

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/runtime"
)

// MaxFetchSize caps the bundle (and its shared details file) an HTTP
// reloader reads from a server: 1 GiB.
const MaxFetchSize = 1 << 30

// HTTP holds the current bundle of a node, fetched from a URL:
// `hieracc serve`'s /v1/nodes/<node>/bundle, or any server that sends
// ETags (nginx over the compile's folder, an object store). Each Reload
// asks with If-None-Match, so an unchanged bundle costs a 304; a new one
// is verified with the options given, as NewFile does, and a bundle
// that fails leaves the last good one in place. Each good bundle is
// copied to a file on disk (cacheFile), from which an agent restarted
// while the server is unreachable still answers.
//
// The bundle's shared details file (for explanations) is fetched from the URL
// of its name relative to the bundle's (details/<digest>.details, where
// the compile writes it), and kept beside the copy; a bundle whose
// details cannot be fetched still answers lookups.
type HTTP struct {
	url    string
	opts   []runtime.Option
	cache  string
	client *http.Client
	cur    atomic.Pointer[runtime.Bundle]

	// LongPoll, when set before Watch, asks the server to hold a request
	// until the bundle changes or this time passes (the header
	// "Prefer: wait=<seconds>", as OPA's bundle service does); servers
	// that do not know it answer at once.
	LongPoll time.Duration

	mu   sync.Mutex // serialises Reload
	etag string     // of the current bundle
}

// NewHTTP returns a reloader of the bundle at rawURL, opened as
// runtime.OpenBytes does with opts (give a runtime.Trust's Node: a bundle
// fetched has no file name to check it by). client nil is http.DefaultClient (give one with the agent's TLS
// certificate for a server that checks them). cacheFile, when not "", is
// where each good bundle is copied, and read first: when the server
// cannot be reached (or answers with an error), the copy is the current
// bundle and no error is returned; with neither, the error is.
func NewHTTP(rawURL, cacheFile string, client *http.Client, opts ...runtime.Option) (*HTTP, error) {
	if _, err := url.Parse(rawURL); err != nil {
		return nil, fmt.Errorf("reload: %w", err)
	}
	if client == nil {
		client = http.DefaultClient
	}
	r := &HTTP{url: rawURL, opts: slices.Clone(opts), cache: cacheFile, client: client}
	var cacheErr error
	if cacheFile != "" {
		cacheErr = r.openCopy()
	}
	_, err := r.Reload()
	if err != nil && r.cur.Load() == nil {
		if cacheErr != nil && !errors.Is(cacheErr, os.ErrNotExist) {
			return nil, fmt.Errorf("%w (and the copy: %v)", err, cacheErr)
		}
		return nil, err
	}
	return r, nil
}

// Bundle returns the current bundle.
func (r *HTTP) Bundle() *runtime.Bundle { return r.cur.Load() }

// openCopy makes the copy on disk, if it verifies, the current bundle.
func (r *HTTP) openCopy() error {
	data, err := format.ReadFile(r.cache)
	if err != nil {
		return err
	}
	b, err := runtime.OpenBytes(data, r.opts...)
	if err != nil {
		return fmt.Errorf("reload: copy %s: %w", r.cache, err)
	}
	if d, err := format.ReadRegular(r.cache+".details", MaxFetchSize); err == nil {
		_ = b.AttachSharedDetails(d) // only for explanations: fetched again otherwise
	}
	r.cur.Store(b)
	r.etag = etagOf(b)
	return nil
}

// etagOf is the ETag `hieracc serve` gives a bundle: its digest, quoted.
func etagOf(b *runtime.Bundle) string {
	d := b.Header().Digest
	return `"` + hex.EncodeToString(d[:]) + `"`
}

// Reload fetches the bundle if it changed and reports whether the current
// one was replaced. A failure (the server unreachable, an error status, a
// bundle that does not verify) leaves the current bundle in place and is
// returned.
func (r *HTTP) Reload() (changed bool, err error) {
	return r.reload(context.Background(), 0)
}

func (r *HTTP) reload(ctx context.Context, wait time.Duration) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return false, fmt.Errorf("reload: fetch: %w", err)
	}
	if r.etag != "" && r.cur.Load() != nil {
		req.Header.Set("If-None-Match", r.etag)
		if wait > 0 {
			req.Header.Set("Prefer", "wait="+strconv.Itoa(int(wait/time.Second)))
		}
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return false, fmt.Errorf("reload: fetch: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return false, fmt.Errorf("reload: fetch %s: %s: %s", r.url, resp.Status, msg)
	}
	data, err := readCapped(resp.Body)
	if err != nil {
		return false, fmt.Errorf("reload: fetch %s: %w", r.url, err)
	}
	b, err := runtime.OpenBytes(data, r.opts...)
	if err != nil {
		return false, fmt.Errorf("reload: fetch %s: %w", r.url, err)
	}
	if cur := r.cur.Load(); cur != nil && cur.Header() == b.Header() {
		r.etag = resp.Header.Get("ETag")
		return false, nil
	}
	details := r.fetchDetails(ctx, b)
	if r.cache != "" {
		if err := writeAtomic(r.cache, data); err != nil {
			// The bundle is good: serve it, and say the copy failed.
			r.store(b, resp.Header.Get("ETag"))
			return true, fmt.Errorf("reload: keeping a copy: %w", err)
		}
		if details != nil {
			_ = writeAtomic(r.cache+".details", details)
		}
	}
	r.store(b, resp.Header.Get("ETag"))
	return true, nil
}

func (r *HTTP) store(b *runtime.Bundle, etag string) {
	if etag == "" {
		etag = etagOf(b)
	}
	r.cur.Store(b)
	r.etag = etag
}

// fetchDetails fetches and attaches b's shared details file, if it has
// one; it returns the file's bytes, nil when it has none or on failure.
func (r *HTTP) fetchDetails(ctx context.Context, b *runtime.Bundle) []byte {
	name := b.SharedDetailsFile()
	if name == "" {
		return nil
	}
	base, err := url.Parse(r.url)
	if err != nil {
		return nil
	}
	ref, err := url.Parse(filepath.ToSlash(name))
	if err != nil {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.ResolveReference(ref).String(), nil)
	if err != nil {
		return nil
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	data, err := readCapped(resp.Body)
	if err != nil || b.AttachSharedDetails(data) != nil {
		return nil
	}
	return data
}

// Watch keeps r current until ctx is done, then returns ctx's error: it
// fetches every pollInterval (DefaultPollInterval when 0), or at once
// again after a long poll (LongPoll) ends. report, when not nil, is told
// of every reload that changed the bundle or failed.
func (r *HTTP) Watch(ctx context.Context, pollInterval time.Duration, report func(changed bool, err error)) error {
	if pollInterval <= 0 {
		pollInterval = DefaultPollInterval
	}
	for {
		start := time.Now()
		changed, err := r.reload(ctx, r.LongPoll)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if report != nil && (changed || err != nil) {
			report(changed, err)
		}
		// A long poll that was held is followed at once; one answered at
		// once (a change, an error, a server without long polls) waits.
		delay := pollInterval
		if r.LongPoll > 0 && err == nil && !changed && time.Since(start) >= r.LongPoll/2 {
			delay = 0
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

func readCapped(body io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, MaxFetchSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFetchSize {
		return nil, fmt.Errorf("larger than %d bytes", MaxFetchSize)
	}
	return data, nil
}

// writeAtomic writes data to name through a temporary file renamed over
// it, so that a reader (the agent restarting) finds the old file or the
// new one, whole.
func writeAtomic(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
