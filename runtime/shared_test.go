package runtime_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
	"github.com/hieracc/hieracc/runtime/reload"
)

// encodeShared encodes b with a shared details file, which it must have.
func encodeShared(t testing.TB, b *format.Bundle) (bundle []byte, shared *encode.SharedDetails) {
	t.Helper()
	data, sh, err := encode.EncodeShared(b, encode.Protection{})
	if err != nil {
		t.Fatal(err)
	}
	if sh == nil {
		t.Fatal("EncodeShared wrote no shared details file: nothing to test")
	}
	return data, &encode.SharedDetails{Digest: sh.Digest, Data: bytes.Clone(sh.Data)}
}

// writeShared writes b as dir/<node>.bundle and its shared details file
// where a compile writes it, dir/details/<digest>.details, and returns
// both paths.
func writeShared(t testing.TB, dir string, b *format.Bundle) (bundle, shared string) {
	t.Helper()
	data, sh := encodeShared(t, b)
	bundle = filepath.Join(dir, b.Node+".bundle")
	shared = filepath.Join(dir, filepath.FromSlash(format.SharedDetailsName(sh.Digest)))
	if err := os.MkdirAll(filepath.Dir(shared), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shared, sh.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bundle, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return bundle, shared
}

// detailsUses are calls that read a bundle's details, and what each
// gives, as text, so that two bundles can be compared.
var detailsUses = []struct {
	name string
	call func(b *runtime.Bundle) (any, error)
}{
	{"Details", func(b *runtime.Bundle) (any, error) { return b.Details() }},
	{"Explain", func(b *runtime.Bundle) (any, error) { return explain.Key(b, "ntp::servers") }},
	{"merge", func(b *runtime.Bundle) (any, error) {
		return b.LookupWith("classes", runtime.Options{Merge: &format.Merge{Strategy: "first"}})
	}},
	{"dotted lookup into the default_hierarchy", func(b *runtime.Bundle) (any, error) { return b.Lookup("ntp::cfg.fallback") }},
}

// plainLookups need only the bundle (a dotted lookup that finds a value
// too).
var plainLookups = map[string]any{"ntp::servers": A("0.pool.ntp.org", "1.pool.ntp.org"), "ntp::service": "ntpd", "a.b": "from a"}

func checkPlain(t *testing.T, b *runtime.Bundle) {
	t.Helper()
	for k, want := range plainLookups {
		v, err := b.Lookup(k)
		if d := cmp.Diff(want, v, Cmp); err != nil || d != "" {
			t.Errorf("Lookup(%q) = %v, %v (-want +got):\n%s", k, v, err, d)
		}
	}
}

// TestSharedDetails: a bundle opened from a file whose details continue in
// a shared details file reads that file beside it, once, when its details
// are needed, and answers as the bundle holding all its details does.
func TestSharedDetails(t *testing.T) {
	whole := open(t, testBundle())
	for _, use := range detailsUses {
		t.Run(use.name, func(t *testing.T) {
			path, shared := writeShared(t, t.TempDir(), testBundle())
			b, err := runtime.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.SharedDetailsFile(); got != shared {
				t.Errorf("SharedDetailsFile = %q, want %q", got, shared)
			}
			want, werr := use.call(whole)
			got, gerr := use.call(b)
			if d := cmp.Diff(want, got, Cmp); d != "" || (werr == nil) != (gerr == nil) {
				t.Errorf("%s: %v (whole: %v) (-whole +shared):\n%s", use.name, gerr, werr, d)
			}
			// Read once: the file is no longer needed.
			if err := os.Remove(shared); err != nil {
				t.Fatal(err)
			}
			for _, again := range detailsUses {
				if _, err := again.call(b); errors.Is(err, runtime.ErrNoSharedDetails) {
					t.Errorf("after %s, %s reads the shared file again: %v", use.name, again.name, err)
				}
			}
			checkPlain(t, b)
		})
	}
}

// TestSharedDetailsMissing: without its shared details file, a bundle
// still opens and answers plain lookups; what needs the details fails
// with an error that names the file and says what to do, and works once
// the file is there.
func TestSharedDetailsMissing(t *testing.T) {
	dir := t.TempDir()
	path, shared := writeShared(t, dir, testBundle())
	data, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, format.SharedDetailsDir)); err != nil {
		t.Fatal(err)
	}
	b, err := runtime.Open(path)
	if err != nil {
		t.Fatalf("Open without the shared details file: %v", err)
	}
	checkPlain(t, b)
	for _, use := range detailsUses {
		_, err := use.call(b)
		var se *runtime.SharedDetailsError
		if !errors.As(err, &se) || !errors.Is(err, runtime.ErrNoSharedDetails) || !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s without the shared details file: %v", use.name, err)
		}
		if se.File != shared || se.Bundle != path {
			t.Errorf("%s: error names %q of %q, want %q of %q", use.name, se.File, se.Bundle, shared, path)
		}
		for _, part := range []string{shared, path, "is missing", "copy the details/ folder"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s: %q does not say %q", use.name, err, part)
			}
		}
	}
	if a := testing.AllocsPerRun(100, func() { b.Lookup("ntp::servers") }); a != 0 {
		t.Errorf("Lookup without the shared details file allocates %v times", a)
	}
	// Copied in later: the next call reads it.
	if err := os.MkdirAll(filepath.Dir(shared), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shared, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Details(); err != nil {
		t.Errorf("Details once the file is there: %v", err)
	}
}

// TestSharedDetailsThroughLink: a bundle opened through a symbolic link
// (an agent's fixed path linked to the compile's output) finds its shared
// details file beside the bundle the link leads to, unless a copy sits
// beside the link, which then wins.
func TestSharedDetailsThroughLink(t *testing.T) {
	out, etc := t.TempDir(), t.TempDir()
	path, shared := writeShared(t, out, testBundle())
	link := filepath.Join(etc, "node.bundle")
	if err := os.Symlink(path, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	b, err := runtime.Open(link)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.SharedDetailsFile(); got != shared {
		t.Errorf("through a link: SharedDetailsFile = %q, want %q (beside the bundle linked to)", got, shared)
	}
	if _, err := explain.Key(b, "ntp::servers"); err != nil {
		t.Errorf("Explain through a link: %v", err)
	}

	// A copy beside the link is read first.
	data, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(etc, filepath.Base(filepath.Dir(shared)), filepath.Base(shared))
	if err := os.MkdirAll(filepath.Dir(beside), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(beside, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err = runtime.Open(link)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.SharedDetailsFile(); got != beside {
		t.Errorf("with a copy beside the link: SharedDetailsFile = %q, want %q", got, beside)
	}

	// Neither there: the error names the file beside the link, where the
	// message tells the user to copy it.
	for _, p := range []string{beside, shared} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	b, err = runtime.Open(link)
	if err != nil {
		t.Fatal(err)
	}
	var se *runtime.SharedDetailsError
	if _, err := explain.Key(b, "ntp::servers"); !errors.As(err, &se) || se.File != beside {
		t.Errorf("neither file there: %v, want a SharedDetailsError naming %s", err, beside)
	}
}

// TestSharedDetailsBad: a damaged shared details file, another bundle's
// under this one's name, or one that is not a regular file is an error
// naming the file, never a panic or another bundle's details.
func TestSharedDetailsBad(t *testing.T) {
	other := testBundle()
	keyNamed(t, other, "bad::merge").Contributions[0].Line = 99 // other details, other digest
	_, otherShared := encodeShared(t, other)
	tests := []struct {
		name string
		bad  func(data []byte) []byte // nil: a folder in its place
		want string
	}{
		{"one byte changed", func(d []byte) []byte { d = bytes.Clone(d); d[len(d)-1] ^= 1; return d }, "cannot be used"},
		{"cut short", func(d []byte) []byte { return d[:len(d)/2] }, "cannot be used"},
		{"empty", func([]byte) []byte { return nil }, "cannot be used"},
		{"a bundle", func([]byte) []byte { b, _ := encode.Encode(testBundle()); return b }, "cannot be used"},
		{"another bundle's", func([]byte) []byte { return otherShared.Data }, "cannot be used"},
		{"a folder", nil, "a folder, not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, shared := writeShared(t, t.TempDir(), testBundle())
			good, err := os.ReadFile(shared)
			if err != nil {
				t.Fatal(err)
			}
			if tt.bad == nil {
				if err := os.Remove(shared); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(shared, 0o755); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(shared, tt.bad(good), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := runtime.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			checkPlain(t, b)
			for _, use := range detailsUses {
				v, err := use.call(b)
				if !errors.Is(err, runtime.ErrNoSharedDetails) || !strings.Contains(err.Error(), shared) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: %v, %v; want an error naming %s, saying %q", use.name, v, err, shared, tt.want)
				}
			}
			if err := b.LoadSharedDetails(); !errors.Is(err, runtime.ErrNoSharedDetails) {
				t.Errorf("LoadSharedDetails = %v", err)
			}
			// Repaired: the failure was not kept.
			if err := os.RemoveAll(shared); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(shared, good, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := b.LoadSharedDetails(); err != nil {
				t.Errorf("LoadSharedDetails of the good file: %v", err)
			}
			if _, err := explain.Key(b, "users"); err != nil {
				t.Errorf("Explain once repaired: %v", err)
			}
		})
	}
}

// TestSharedDetailsBytes: a bundle opened from bytes is given its shared
// details file by AttachSharedDetails, which checks it.
func TestSharedDetailsBytes(t *testing.T) {
	data, sh := encodeShared(t, testBundle())
	b, err := runtime.OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	checkPlain(t, b)
	if got, want := b.SharedDetailsFile(), format.SharedDetailsName(sh.Digest); got != want {
		t.Errorf("SharedDetailsFile = %q, want %q", got, want)
	}
	_, err = b.Details()
	if !errors.Is(err, runtime.ErrNoSharedDetails) || !strings.Contains(err.Error(), "AttachSharedDetails") || !strings.Contains(err.Error(), format.SharedDetailsName(sh.Digest)) {
		t.Errorf("Details before AttachSharedDetails = %v", err)
	}
	bad := bytes.Clone(sh.Data)
	bad[len(bad)/2] ^= 1
	for name, data := range map[string][]byte{"damaged": bad, "empty": nil, "the bundle": data} {
		if err := b.AttachSharedDetails(data); err == nil {
			t.Errorf("AttachSharedDetails(%s) succeeded", name)
		}
	}
	if _, err := b.Details(); !errors.Is(err, runtime.ErrNoSharedDetails) {
		t.Errorf("Details after failed attaches = %v", err)
	}
	if err := b.AttachSharedDetails(sh.Data); err != nil {
		t.Fatal(err)
	}
	whole := open(t, testBundle())
	for _, use := range detailsUses {
		want, werr := use.call(whole)
		got, gerr := use.call(b)
		if d := cmp.Diff(want, got, Cmp); d != "" || (werr == nil) != (gerr == nil) {
			t.Errorf("%s: %v (whole: %v) (-whole +attached):\n%s", use.name, gerr, werr, d)
		}
	}

	// A bundle holding all its details has no shared file to attach.
	if got := whole.SharedDetailsFile(); got != "" {
		t.Errorf("SharedDetailsFile of a whole bundle = %q", got)
	}
	if err := whole.LoadSharedDetails(); err != nil {
		t.Errorf("LoadSharedDetails of a whole bundle = %v", err)
	}
}

// TestSharedDetailsConcurrent is meant for -race: readers race the lazy
// reading of the shared details file and the decoding of the details.
func TestSharedDetailsConcurrent(t *testing.T) {
	path, _ := writeShared(t, t.TempDir(), testBundle())
	b, err := runtime.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	details := make([]*format.Bundle, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if i%2 == 0 {
					b.Lookup("ntp::servers")
				}
				if _, err := detailsUses[i%len(detailsUses)].call(b); err != nil {
					t.Error(err)
				}
			}
			d, err := b.Details()
			if err != nil {
				t.Error(err)
			}
			details[i] = d
		}()
	}
	wg.Wait()
	for i, d := range details {
		if d != details[0] {
			t.Errorf("goroutine %d got other details: decoded twice", i)
		}
	}
}

// TestSharedDetailsReloader: each bundle a reload.File loads reads its own
// shared details file.
func TestSharedDetailsReloader(t *testing.T) {
	dir := t.TempDir()
	one := testBundle()
	path, _ := writeShared(t, dir, one)
	r, err := reload.NewFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := explain.Key(r.Bundle(), "bad::merge")
	if err != nil || e.Sources[0].Line != 7 {
		t.Fatalf("Explain = %+v, %v", e, err)
	}
	two := testBundle()
	two.Revision = "rev-2"
	keyNamed(t, two, "bad::merge").Contributions[0].Line = 42
	data, sh := encodeShared(t, two)
	shared := filepath.Join(dir, filepath.FromSlash(format.SharedDetailsName(sh.Digest)))
	if err := os.WriteFile(shared, sh.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	Replace(t, path, data)
	if changed, err := r.Reload(); !changed || err != nil {
		t.Fatalf("Reload = %v, %v", changed, err)
	}
	if got := r.Bundle().SharedDetailsFile(); got != shared {
		t.Errorf("SharedDetailsFile = %q, want %q", got, shared)
	}
	e, err = explain.Key(r.Bundle(), "bad::merge")
	if err != nil || e.Sources[0].Line != 42 {
		t.Fatalf("Explain after the reload = %+v, %v", e, err)
	}
}

func keyNamed(t *testing.T, b *format.Bundle, name string) *format.Key {
	t.Helper()
	for i := range b.Keys {
		if b.Keys[i].Name == name {
			return &b.Keys[i]
		}
	}
	t.Fatalf("no key %q", name)
	return nil
}
