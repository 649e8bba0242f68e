package puppetdiff

// A case in the conformance layout, held in memory: its files and checks.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Case is one case in the conformance corpus's layout: Files maps a path
// inside the case folder (env/hiera.yaml, env/data/common.yaml,
// modules/m/hiera.yaml, global/hiera.yaml, nodes/<certname>.yaml) to its
// content.
type Case struct {
	Files  map[string]string
	Checks []Check
}

// Check is one lookup, as in a case's checks.yaml.
type Check struct {
	Node  string `yaml:"node" json:"node"`
	Key   string `yaml:"key" json:"key"`
	Merge *Merge `yaml:"merge,omitempty" json:"merge,omitempty"`
}

// Merge is a lookup-time merge: --merge STRATEGY and, with deep, its options.
type Merge struct {
	Strategy       string
	KnockoutPrefix string // "" is unset
	Sort           bool
	HashArrays     bool
}

// value is the form checks.yaml and the Ruby driver take: the strategy's
// name, or a hash when a deep merge has options.
func (m *Merge) value() any {
	if m.KnockoutPrefix == "" && !m.Sort && !m.HashArrays {
		return m.Strategy
	}
	v := map[string]any{"strategy": m.Strategy}
	if m.KnockoutPrefix != "" {
		v["knockout_prefix"] = m.KnockoutPrefix
	}
	if m.Sort {
		v["sort_merged_arrays"] = true
	}
	if m.HashArrays {
		v["merge_hash_arrays"] = true
	}
	return v
}

// MarshalYAML and MarshalJSON write value.
func (m *Merge) MarshalYAML() (any, error) { return m.value(), nil }

func (m *Merge) MarshalJSON() ([]byte, error) {
	switch v := m.value().(type) {
	case string:
		return []byte(quote(v)), nil
	default:
		var parts []string
		mv := v.(map[string]any)
		for _, k := range sortedKeys(mv) {
			switch x := mv[k].(type) {
			case string:
				parts = append(parts, quote(k)+":"+quote(x))
			case bool:
				parts = append(parts, quote(k)+":"+fmt.Sprint(x))
			}
		}
		return []byte("{" + strings.Join(parts, ",") + "}"), nil
	}
}

// UnmarshalYAML reads either form.
func (m *Merge) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		m.Strategy = n.Value
		return nil
	}
	var v struct {
		Strategy       string `yaml:"strategy"`
		KnockoutPrefix string `yaml:"knockout_prefix"`
		Sort           bool   `yaml:"sort_merged_arrays"`
		HashArrays     bool   `yaml:"merge_hash_arrays"`
	}
	if err := n.Decode(&v); err != nil {
		return err
	}
	*m = Merge{v.Strategy, v.KnockoutPrefix, v.Sort, v.HashArrays}
	return nil
}

// args are hieracc's (and puppet lookup's) flags for the merge.
func (m *Merge) args() []string {
	if m == nil {
		return nil
	}
	a := []string{"--merge", m.Strategy}
	if m.KnockoutPrefix != "" {
		a = append(a, "--knock-out-prefix="+m.KnockoutPrefix)
	}
	if m.Sort {
		a = append(a, "--sort-merged-arrays")
	}
	if m.HashArrays {
		a = append(a, "--merge-hash-arrays")
	}
	return a
}

// String is the check as puppet lookup's command line would give it.
func (c Check) String() string {
	return strings.TrimSpace(fmt.Sprintf("--node %s %s %s", c.Node, strings.Join(c.Merge.args(), " "), c.Key))
}

// Write puts the case's files and its checks.yaml into dir, which must not
// hold anything else of a case (it is created when missing).
func (c *Case) Write(dir string) error {
	for _, p := range sortedKeys(c.Files) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(c.Files[p]), 0o644); err != nil {
			return err
		}
	}
	// The env folder always exists: hieracc's --env needs it (Puppet's
	// environment folder always exists too).
	if err := os.MkdirAll(filepath.Join(dir, "env"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "checks.yaml"), c.checksYAML(), 0o644)
}

func (c *Case) checksYAML() []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c.Checks); err != nil {
		panic(err) // only plain values: cannot fail
	}
	return b.Bytes()
}

// ReadCase reads a case folder: every file but README.md, expected.yaml and
// checks.yaml, and the checks of checks.yaml.
func ReadCase(dir string) (*Case, error) {
	c := &Case{Files: map[string]string{}}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch rel {
		case "README.md", "expected.yaml", "checks.yaml":
			return nil
		}
		b, err := os.ReadFile(p)
		c.Files[rel] = string(b)
		return err
	})
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "checks.yaml"))
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(raw, &c.Checks); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "checks.yaml"), err)
	}
	return c, nil
}

// clone copies the case (its files map and checks).
func (c *Case) clone() *Case {
	n := &Case{Files: make(map[string]string, len(c.Files)), Checks: append([]Check(nil), c.Checks...)}
	for k, v := range c.Files {
		n.Files[k] = v
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Describe prints the case's files and checks, for a report.
func Describe(c *Case) string {
	var b strings.Builder
	for _, p := range sortedKeys(c.Files) {
		fmt.Fprintf(&b, "--- %s\n%s", p, c.Files[p])
		if !strings.HasSuffix(c.Files[p], "\n") {
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "--- checks.yaml\n%s", c.checksYAML())
	return b.String()
}
