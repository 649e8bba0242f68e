package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/runtime"
)

// TestBundlesHoldOnlyTheirNode compiles a fleet in which every node has
// values of its own, in its per-node data file and in a fact that shared
// data interpolates (directly, through lookup and alias, merged with other
// levels, in a module), and checks that no bundle holds, anywhere in its
// bytes, a value or the name of another node; and that bundles are not
// readable by others than their owner and group.
func TestBundlesHoldOnlyTheirNode(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"env/hiera.yaml": `version: 5
hierarchy:
  - name: Node
    path: "nodes/%{trusted.certname}.yaml"
  - name: Role
    path: "roles/%{facts.role}.yaml"
  - name: Common
    path: common.yaml
`,
		"env/data/common.yaml": `lookup_options:
  profile::users:
    merge: deep
  classes:
    merge: unique
  "^profile::.*::settings$":
    merge: hash
motd: "Welcome to %{trusted.certname}, %{facts.marker}"
hostkey: "%{facts.ssh.rsa}"
via_lookup: "%{lookup('motd')}"
via_alias: "%{alias('secret::token')}"
classes: [base]
profile::users:
  root: {uid: 0}
profile::web::settings:
  workers: 4
`,
		"env/data/roles/web.yaml": `role_note: "web %{facts.marker}"
classes: [nginx]
`,
		"env/data/roles/db.yaml": `role_note: "db %{facts.marker}"
classes: [postgres]
`,
		"env/modules/ntp/hiera.yaml": `version: 5
hierarchy:
  - name: Common
    path: common.yaml
`,
		"env/modules/ntp/data/common.yaml": `ntp::servers: ["%{facts.marker}.pool.example.net"]
`,
	}
	const n = 24
	type node struct{ name, role, data, fact, key, user string }
	var nodes []node
	token := func() string {
		var b [8]byte
		if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(b[:])
	}
	for i := range n {
		nd := node{
			name: fmt.Sprintf("host-%s.example.net", token()),
			role: []string{"web", "db"}[i%2],
			data: "DATA" + token(), fact: "FACT" + token(), key: "KEY" + token(), user: "user" + token(),
		}
		nodes = append(nodes, nd)
		files["env/data/nodes/"+nd.name+".yaml"] = fmt.Sprintf(`secret::token: %q
classes: [%q]
profile::users:
  %s: {uid: 1000, comment: %q}
profile::web::settings:
  listen: %q
`, nd.data, nd.data+"-class", nd.user, nd.data+"-comment", nd.data+"-listen")
		files["facts/"+nd.name+".yaml"] = fmt.Sprintf("role: %s\nmarker: %s\nssh:\n  rsa: %s\n", nd.role, nd.fact, nd.key)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	// Nodes compiled in parallel share work: that is where a value could
	// reach the wrong node.
	if code := run([]string{"compile", "--jobs", "4", "--env", filepath.Join(dir, "env"), "--facts", filepath.Join(dir, "facts"), "--out", out}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("compile exited %d\n%s%s", code, stdout.String(), stderr.String())
	}

	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm&0o027 != 0 {
		t.Errorf("OUT has mode %#o: others, or the group's write, may reach the bundles", perm)
	}
	for _, nd := range nodes {
		path := filepath.Join(out, nd.name+".bundle")
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// Bundles carry the data's secrets: owner read-write, group read,
		// at most.
		if perm := st.Mode().Perm(); perm&^0o640 != 0 {
			t.Errorf("%s: mode %#o, want 0640 or tighter", nd.name, perm)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The node's own values are there, in its bytes (so the search
		// below is a search that can find), and come back from lookups.
		for _, own := range []string{nd.name, nd.data, nd.fact, nd.key, nd.user} {
			if !bytes.Contains(data, []byte(own)) {
				t.Fatalf("%s: its own %q is not in its bundle's bytes", nd.name, own)
			}
		}
		b, err := runtime.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"motd":       "Welcome to " + nd.name + ", " + nd.fact,
			"via_lookup": "Welcome to " + nd.name + ", " + nd.fact,
			"via_alias":  nd.data,
			"hostkey":    nd.key,
			"role_note":  nd.role + " " + nd.fact,
		}
		for k, w := range want {
			if v, err := b.Lookup(k); err != nil || v != w {
				t.Errorf("%s: %s = %v (%v), want %v", nd.name, k, v, err, w)
			}
		}
		// And nothing of any other node.
		for _, other := range nodes {
			if other.name == nd.name {
				continue
			}
			for _, s := range []string{other.name, other.data, other.fact, other.key, other.user} {
				if i := bytes.Index(data, []byte(s)); i >= 0 {
					t.Errorf("the bundle of %s holds %q, of %s: ...%q...", nd.name, s, other.name,
						data[max(0, i-40):min(len(data), i+len(s)+40)])
				}
			}
		}
	}
	if strings.Contains(stderr.String(), "warning") {
		t.Logf("compile warnings:\n%s", stderr.String())
	}
}
