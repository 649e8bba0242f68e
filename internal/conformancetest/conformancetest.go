// Package conformancetest reads the checks of a conformance case (the
// shared corpus's and testdata/conformance's expected.yaml, produced by
// real Puppet) and compares values with what Puppet printed, for the
// compiler's and the CLI's conformance tests. It is test support: nothing
// else imports it.
package conformancetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
	"github.com/hieracc/hieracc/runtime"
	"gopkg.in/yaml.v3"
)

// Check is one entry of a case's expected.yaml (the corpus README
// describes the fields).
type Check struct {
	Node     string    `yaml:"node"`
	Key      string    `yaml:"key"`
	Merge    yaml.Node `yaml:"merge"`
	Value    yaml.Node `yaml:"value"`
	NotFound bool      `yaml:"not_found"`
	Error    bool      `yaml:"error"`
	Message  string    `yaml:"message"`
}

// A Flag is one line of a case's hieracc-flags file: a compile flag and
// the file it names, or its value when the flag names no file.
type Flag struct {
	Name  string // "--pkcs7-private-key"
	Path  string // the file, joined to the case folder ("" for a flag in valueFlags)
	Value string // as written
	// Server is --mount's ABS (Path is then its DIR, joined to the case
	// folder).
	Server string
}

// Arg is the flag's argument on a command line: its path, or its value.
func (f Flag) Arg() string {
	switch {
	case f.Server != "":
		return f.Server + "=" + f.Path
	case f.Path == "":
		return f.Value
	}
	return f.Path
}

// valueFlags are the flags whose argument is not a file.
var valueFlags = map[string]bool{"--ruby-backends": true}

// ReadFlags reads dir/hieracc-flags, the extra compile flags a case needs
// (testdata/conformance/README.md): one "--flag PATH" a line, PATH
// relative to the case folder ("--mount ABS=DIR": DIR relative to it),
// or "--flag VALUE" for a flag that names no file (valueFlags). A case
// without the file needs none.
func ReadFlags(dir string) ([]Flag, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "hieracc-flags"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var flags []Flag
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 || !strings.HasPrefix(f[0], "--") {
			return nil, fmt.Errorf("hieracc-flags: want \"--flag PATH\", got %q", line)
		}
		if valueFlags[f[0]] {
			flags = append(flags, Flag{Name: f[0], Value: f[1]})
			continue
		}
		if f[0] == "--mount" {
			abs, rel, ok := strings.Cut(f[1], "=")
			if !ok {
				return nil, fmt.Errorf("hieracc-flags: want \"--mount ABS=DIR\", got %q", line)
			}
			flags = append(flags, Flag{Name: f[0], Path: filepath.Join(dir, rel), Server: abs, Value: f[1]})
			continue
		}
		flags = append(flags, Flag{Name: f[0], Path: filepath.Join(dir, f[1]), Value: f[1]})
	}
	return flags, nil
}

// ReadChecks reads dir/expected.yaml.
func ReadChecks(dir string) ([]Check, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "expected.yaml"))
	if err != nil {
		return nil, err
	}
	var checks []Check
	if err := yaml.Unmarshal(raw, &checks); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "expected.yaml"), err)
	}
	return checks, nil
}

// merge is a check's merge field: a strategy name, or a hash of the deep
// strategy's options.
type merge struct {
	Strategy       string  `yaml:"strategy"`
	KnockoutPrefix *string `yaml:"knockout_prefix"`
	Sort           bool    `yaml:"sort_merged_arrays"`
	HashArrays     bool    `yaml:"merge_hash_arrays"`
}

func (c *Check) merge() (*merge, error) {
	switch c.Merge.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		return &merge{Strategy: c.Merge.Value}, nil
	case yaml.MappingNode:
		var m merge
		if err := c.Merge.Decode(&m); err != nil {
			return nil, err
		}
		return &m, nil
	}
	return nil, errors.New("bad merge field in expected.yaml")
}

// LookupMerge is the check's lookup-time merge, nil when it has none.
func (c *Check) LookupMerge() (*format.Merge, error) {
	m, err := c.merge()
	if m == nil || err != nil {
		return nil, err
	}
	fm := &format.Merge{Strategy: format.Strategy(m.Strategy), SortMergedArrays: m.Sort, MergeHashArrays: m.HashArrays}
	if m.KnockoutPrefix != nil {
		fm.KnockoutPrefix = *m.KnockoutPrefix
	}
	return fm, nil
}

// MergeFlags are the puppet lookup (and hieracc lookup) flags of the
// check's merge.
func (c *Check) MergeFlags() ([]string, error) {
	m, err := c.merge()
	if m == nil || err != nil {
		return nil, err
	}
	args := []string{"--merge", m.Strategy}
	if m.KnockoutPrefix != nil {
		args = append(args, "--knock-out-prefix="+*m.KnockoutPrefix)
	}
	if m.Sort {
		args = append(args, "--sort-merged-arrays")
	}
	if m.HashArrays {
		args = append(args, "--merge-hash-arrays")
	}
	return args, nil
}

// Want is the check's expected value as a format value. expected.yaml
// double-quotes every string, so YAML 1.2 rules read it as Puppet wrote
// it.
func (c *Check) Want() (any, error) { return yamlValue(&c.Value) }

func yamlValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.DocumentNode:
		return yamlValue(n.Content[0])
	case yaml.AliasNode:
		return yamlValue(n.Alias)
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case int:
			return int64(x), nil
		case float64, string, bool, nil:
			return x, nil
		}
		return nil, fmt.Errorf("unexpected scalar %T", v)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := yamlValue(c)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.MappingNode:
		h := format.NewHash(len(n.Content) / 2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := yamlValue(n.Content[i])
			if err != nil {
				return nil, err
			}
			v, err := yamlValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			h.Set(ruby.ToS(k), v) // JSON, and so Puppet's output, has only string keys
		}
		return h, nil
	}
	return nil, fmt.Errorf("unexpected YAML node kind %d", n.Kind)
}

// DecodeJSON reads one value as puppet lookup --render-as json prints it,
// into a format value: objects keep their key order, and a number is an
// Integer or a Float by its spelling (1 is not 1.0 in Puppet).
func DecodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeJSON(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func decodeJSON(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '[':
			out := []any{}
			for dec.More() {
				v, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := dec.Token()
			return out, err
		case '{':
			out := format.NewHash(0)
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				out.Set(k.(string), v)
			}
			_, err := dec.Token()
			return out, err
		}
		return nil, fmt.Errorf("unexpected %v", tok)
	case json.Number:
		s := tok.String()
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i, nil
			}
		}
		return strconv.ParseFloat(s, 64)
	}
	return tok, nil // string, bool or nil
}

// Diff compares two values as Puppet's JSON output shows them, types and
// hash key order included (hash keys as their JSON names); it returns ""
// when they are the same, else a go-cmp diff (-want +got).
func Diff(want, got any) string {
	return cmp.Diff(canon(want), canon(got))
}

// Show is a value in the form Diff compares, for messages.
func Show(v any) string { return fmt.Sprintf("%#v", canon(v)) }

// entry is a hash entry in comparable form.
type entry struct {
	K string
	V any
}

// canon makes a value comparable with cmp: a hash becomes an ordered
// entry list.
func canon(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = canon(e)
		}
		return out
	case *format.Hash:
		out := []entry{}
		for k, e := range v.All() {
			out = append(out, entry{ruby.ToS(k), canon(e)})
		}
		return out
	case *runtime.Sensitive:
		return runtime.Redacted // what puppet lookup --render-as json prints
	}
	return v
}

// MissingLinks reports why a case cannot run here, "" when it can: a case
// whose input holds symbolic links lists them in its file "symlinks" (one
// path a line, relative to the case folder), and a checkout without
// symbolic links (Windows' git by default) makes them plain files.
func MissingLinks(dir string) string {
	raw, err := os.ReadFile(filepath.Join(dir, "symlinks"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Fields(string(raw)) {
		if st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(l))); err != nil || st.Mode()&os.ModeSymlink == 0 {
			return fmt.Sprintf("%s is not a symbolic link in this checkout", l)
		}
	}
	return ""
}
