package runtime

import (
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/hieracc/hieracc/format"
)

// Peek reads the keys of a bundle file one at a time without decoding the
// rest (format.KeyReader): for a reader of a few keys of any of thousands
// of bundles, as hieracc serve is, where Open decodes a whole bundle for
// one key. It is verified as Open verifies it (digest, the Trust's
// verifier and node) and keeps the file's bytes. A Peek is safe for
// concurrent use.
type Peek struct {
	kr   *format.KeyReader
	path string
	t    Trust
}

// OpenPeek reads and verifies the bundle at path, as Open does. With
// hashed (nil: none), a file read again unchanged (the same file, size,
// modification time and digest) is not hashed again.
func OpenPeek(path string, hashed *Hashed, opts ...Option) (*Peek, error) {
	t := trustOf(opts)
	bp := readBuf.Get().(*[]byte)
	defer readBuf.Put(bp)
	data, st, err := format.ReadFileInfo(path, *bp)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	*bp = data // NewKeyReader keeps a copy
	var seen func([32]byte) bool
	var views *format.ViewOffsets
	if hashed != nil {
		views = &hashed.views
		seen = func(d [32]byte) bool {
			e, ok := hashed.m.Load(path)
			old, _ := e.(hashedFile)
			return ok && old.d == d && os.SameFile(old.st, st) && old.st.ModTime().Equal(st.ModTime()) && old.st.Size() == st.Size()
		}
	}
	kr, err := format.NewKeyReader(data, seen, views)
	if err == nil && t.Verifier != nil {
		err = kr.VerifySignature(t.Verifier)
	}
	if err == nil {
		err = checkNode(&path, kr.Node, t)
	}
	if err != nil {
		return nil, fmt.Errorf("runtime: open %s: %w", path, err)
	}
	if hashed != nil {
		hashed.m.Store(path, hashedFile{kr.Digest, st})
	}
	return &Peek{kr: kr, path: path, t: t}, nil
}

var readBuf = sync.Pool{New: func() any { return new([]byte) }}

// Hashed remembers the bundle files whose digest OpenPeek found to hold,
// for a reader of the same files again and again (a server), and where
// the entries of their views start (format.ViewOffsets). Safe for
// concurrent use; it forgets no file.
type Hashed struct {
	m     sync.Map // path -> hashedFile
	views format.ViewOffsets
}

type hashedFile struct {
	d  [32]byte
	st fs.FileInfo
}

// Header returns the bundle's header.
func (p *Peek) Header() format.Header { return p.kr.Header }

// Lookup returns what the opened bundle's Lookup(key) would, and whether
// the value is secret (Bundle.Secret), when ok. It is not ok when the
// answer needs more than the key's entry (a dotted key or
// "lookup_options", a key the bundle lacks or holds sealed, a failure
// recorded for the node or a module): Open the bundle then. It allocates
// the value.
func (p *Peek) Lookup(key string) (v any, secret, ok bool, err error) {
	if key == lookupOptions || dottedOrQuoted(key) || p.kr.NodeError != nil || len(p.kr.ModuleErrors) > 0 {
		return nil, false, false, nil
	}
	k, found, err := p.kr.Key(key)
	switch {
	case err != nil || !found || k.Sealed: // Open says why, or what else
		return nil, false, false, nil
	case k.Err != nil:
		return nil, k.Secret() || k.Sensitive, true, k.Err
	case k.Sensitive:
		return &Sensitive{v: k.Value}, true, true, nil
	}
	return k.Value, k.Secret(), true, nil
}

// Open opens the bundle whole, from its file, with the Peek's options.
func (p *Peek) Open() (*Bundle, error) { return Open(p.path, p.t) }
