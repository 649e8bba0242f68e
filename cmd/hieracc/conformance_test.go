package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// conformanceDir holds the cases whose expected values real `puppet lookup`
// produced (../shared beside the checkout).
const conformanceDir = "../../../shared/conformance/public"

// check is one entry of a case's expected.yaml.
type check struct {
	Node     string    `yaml:"node"`
	Key      string    `yaml:"key"`
	Merge    yaml.Node `yaml:"merge"`
	Value    yaml.Node `yaml:"value"`
	NotFound bool      `yaml:"not_found"`
	Error    bool      `yaml:"error"`
	Message  string    `yaml:"message"`
}

// TestConformanceViaCLI runs every conformance case the way a user would:
// `hieracc compile` writes bundles to disk, and each check is one
// `hieracc lookup --render-as json` whose output is compared, key order
// included, with what Puppet printed.
func TestConformanceViaCLI(t *testing.T) {
	cases, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Skipf("conformance corpus not found at %s (../shared beside the checkout): %v", conformanceDir, err)
	}
	total, passed := 0, 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		dir := filepath.Join(conformanceDir, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			n, p := runCaseViaCLI(t, dir)
			total += n
			passed += p
		})
	}
	t.Logf("conformance via CLI: %d/%d passed", passed, total)
}

// TestOwnConformanceViaCLI runs hieracc's own cases (testdata/conformance),
// whose expected values real Puppet also produced, the same way.
func TestOwnConformanceViaCLI(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "..", "testdata", "conformance", "*", "expected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	total, passed := 0, 0
	for _, f := range cases {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			n, p := runCaseViaCLI(t, dir)
			total += n
			passed += p
		})
	}
	t.Logf("own conformance cases via CLI: %d cases, %d/%d passed", len(cases), passed, total)
}

// TestExampleViaCLI runs the README's example fleet, whose expected.yaml
// real Puppet also produced, the same way.
func TestExampleViaCLI(t *testing.T) {
	total, passed := runCaseViaCLI(t, filepath.Join("..", "..", "testdata", "example"))
	t.Logf("example via CLI: %d/%d passed", passed, total)
}

func runCaseViaCLI(t *testing.T, dir string) (total, passed int) {
	raw, err := os.ReadFile(filepath.Join(dir, "expected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var checks []check
	if err := yaml.Unmarshal(raw, &checks); err != nil {
		t.Fatalf("expected.yaml: %v", err)
	}

	out := compileCase(t, dir)
	for i, ck := range checks {
		if msg := runCheckViaCLI(out, ck); msg != "" {
			t.Errorf("%d:%s/%s: %s", i, ck.Node, ck.Key, msg)
			continue
		}
		passed++
	}
	return len(checks), passed
}

// compileCase compiles a conformance case (keeping going past errors, as
// Puppet answers the other keys) and returns the bundles' folder.
func compileCase(t *testing.T, dir string) string {
	out := t.TempDir()
	args := []string{"compile", "--keep-going", "--env", filepath.Join(dir, "env"), "--facts", filepath.Join(dir, "nodes"), "--out", out}
	if isDir(filepath.Join(dir, "modules")) {
		args = append(args, "--modules", filepath.Join(dir, "modules"))
	}
	// Puppet always has a global layer: global/hiera.yaml, or its default
	// config over the confdir (global/, or an empty one when the case has
	// none).
	if isDir(filepath.Join(dir, "global")) {
		args = append(args, "--global", filepath.Join(dir, "global"))
	} else {
		args = append(args, "--global", t.TempDir())
	}
	code, stdout, stderr := runCLI(args...)
	if code == exitUsage || code != exitOK && code != exitFail {
		t.Fatalf("compile: exit %d\n%s%s", code, stdout, stderr)
	}
	return out
}

func runCheckViaCLI(out string, ck check) string {
	args := []string{"lookup", "--bundle", out, "--node", ck.Node, "--render-as", "json"}
	margs, err := mergeArgs(ck.Merge)
	if err != nil {
		return err.Error()
	}
	args = append(args, margs...)
	args = append(args, "--", ck.Key) // a key may start with "-"
	code, stdout, stderr := runCLI(args...)

	switch {
	case ck.Error:
		if code != exitFail {
			return fmt.Sprintf("want error containing %q, got exit %d: %s%s", ck.Message, code, stdout, stderr)
		}
		if strings.Contains(stderr, "did not find a value") || !strings.Contains(stderr, ck.Message) {
			return fmt.Sprintf("want error containing %q, got %q", ck.Message, stderr)
		}
	case ck.NotFound:
		want := fmt.Sprintf("Function lookup() did not find a value for the name '%s'", ck.Key)
		if code != exitFail || !strings.Contains(stderr, want) {
			return fmt.Sprintf("want not found, got exit %d: %s%s", code, stdout, stderr)
		}
	default:
		if code != exitOK {
			return fmt.Sprintf("want a value, got exit %d: %s%s", code, stdout, stderr)
		}
		got, err := decodeOrderedJSON(stdout)
		if err != nil {
			return fmt.Sprintf("output is not JSON (%v): %q", err, stdout)
		}
		want, err := yamlValue(&ck.Value)
		if err != nil {
			return fmt.Sprintf("expected value: %v", err)
		}
		if d := cmp.Diff(want, got); d != "" {
			return fmt.Sprintf("value mismatch (-want +got):\n%s", d)
		}
	}
	return ""
}

// mergeArgs turns a check's merge field into puppet lookup's flags.
func mergeArgs(n yaml.Node) ([]string, error) {
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		return []string{"--merge", n.Value}, nil
	case yaml.MappingNode:
		var m struct {
			Strategy       string  `yaml:"strategy"`
			KnockoutPrefix *string `yaml:"knockout_prefix"`
			Sort           bool    `yaml:"sort_merged_arrays"`
			HashArrays     bool    `yaml:"merge_hash_arrays"`
		}
		if err := n.Decode(&m); err != nil {
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
	return nil, errors.New("bad merge field in expected.yaml")
}

// runCLI runs hieracc in-process.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

// member is one entry of a JSON object or YAML mapping: a slice of them
// keeps key order, which the comparison must see.
type member struct {
	K string
	V any
}

// decodeOrderedJSON decodes one JSON value, objects as ordered []member and
// numbers as int64 or float64 by their spelling (1 is not 1.0 in Puppet).
func decodeOrderedJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeJSONValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func decodeJSONValue(dec *json.Decoder) (any, error) {
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
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := dec.Token()
			return out, err
		case '{':
			out := []member{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeJSONValue(dec)
				if err != nil {
					return nil, err
				}
				out = append(out, member{k.(string), v})
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

// yamlValue converts an expected value to the same shape. expected.yaml
// double-quotes every string, so YAML 1.2 rules read it as Puppet wrote it.
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
		out := []any{}
		for _, c := range n.Content {
			v, err := yamlValue(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := []member{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := yamlValue(n.Content[i])
			if err != nil {
				return nil, err
			}
			v, err := yamlValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			ks := fmt.Sprint(k) // JSON, and so Puppet's output, has only string keys
			if k == nil {
				ks = ""
			}
			out = append(out, member{ks, v})
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected YAML node kind %d", n.Kind)
}
