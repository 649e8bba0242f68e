package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hieracc/hieracc/compiler/facts"
)

// TestBadCertnames: a facts file whose name cannot be a certname (too long
// for its bundle's file name, a control character, a byte that is not
// ASCII) is an error for that node alone, in a message of one line that
// echoes no raw byte; with KeepGoing the other nodes are compiled.
func TestBadCertnames(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
	write("env/hiera.yaml", "version: 5\n")
	write("env/data/common.yaml", "k: 1\n")
	write("facts/web01.yaml", "role: web\n")
	long := strings.Repeat("a", 250)
	write("facts/"+strings.Repeat("b", facts.MaxCertname)+".yaml", "role: web\n") // the longest that fits
	for name, want := range map[string]string{
		long:           "certname of 250 bytes: at most 248",
		"bad\nname":    `bad\nname.yaml": certname "bad\nname" holds '\n'`,
		"tab\there":    `certname "tab\there" holds '\t'`,
		"caf\xe9":      `caf\xe9.yaml": certname "caf\xe9" holds the byte 0xe9`,
		"del\x7f":      `certname "del\x7f" holds '\x7f'`,
		"bell\x07ring": `holds '\a'`,
	} {
		if err := os.WriteFile(filepath.Join(dir, "facts", name+".yaml"), []byte("role: web\n"), 0o644); err != nil {
			t.Skipf("this file system refuses the name %q: %v", name, err)
		}
		t.Run(strings.ToValidUTF8(name[:min(len(name), 10)], "?"), func(t *testing.T) {
			r, err := Run(context.Background(), Config{Env: filepath.Join(dir, "env"), Facts: []string{filepath.Join(dir, "facts")},
				Out: filepath.Join(t.TempDir(), "out"), KeepGoing: true})
			if err != nil {
				t.Fatalf("the run failed: %v", err)
			}
			found := false
			var msgs []string
			for _, d := range r.Facts {
				msg := d.String()
				msgs = append(msgs, msg)
				if strings.ContainsAny(msg, "\n\t\x07\x7f") || !utf8.ValidString(msg) {
					t.Errorf("a message holds a raw control byte: %q", msg)
				}
				found = found || strings.Contains(msg, want)
			}
			if !found {
				t.Errorf("no message with %q: %q", want, msgs)
			}
			if r.Written != 2 {
				t.Errorf("%d bundles written, want the 2 good nodes'", r.Written)
			}
		})
		os.Remove(filepath.Join(dir, "facts", name+".yaml"))
	}
}
