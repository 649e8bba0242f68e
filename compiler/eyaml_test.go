package compiler_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler"
)

// TestEyamlSecrets: a key is marked secret exactly when its value holds
// text decrypted from ENC[...]: directly, merged with plain data, or
// through interpolation, lookup() and alias() in another file.
func TestEyamlSecrets(t *testing.T) {
	dir := ownCasesDir + "/eyaml"
	fsys := os.DirFS(dir)
	in := compiler.Input{FS: fsys, EnvDir: "env", ModulesDir: "modules", GlobalDir: "global"}
	caseFlags(t, dir, &in)
	n, ds := compiler.LoadFacts(fsys, "nodes/web01.example.com.yaml")
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	in.Nodes = []compiler.Node{n}
	res, err := compiler.Compile(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var secret, plain []string
	for _, k := range res.Bundles[0].Keys {
		if k.Secret {
			secret = append(secret, k.Name)
		} else {
			plain = append(plain, k.Name)
		}
	}
	sort.Strings(secret)
	sort.Strings(plain)
	wantSecret := []string{"aliased", "db_password", "dig", "dsn", "embedded", "folded", "greeting", "hash",
		"list", "looked_up", "number_like", "profile::tokens", "profile::users", "trailing_newline",
		"two_blocks", "via_alias", "web_secret"}
	// bad_cipher, wrong_key and broken_ref fail: nothing was decrypted.
	wantPlain := []string{"bad_cipher", "broken_ref", "literal", "not_a_block", "plain", "wrong_key"}
	if d := cmp.Diff(wantSecret, secret); d != "" {
		t.Errorf("secret keys (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantPlain, plain); d != "" {
		t.Errorf("plain keys (-want +got):\n%s", d)
	}
}

// TestNestedSensitive: a lookup() in data of a key converted to Sensitive
// inserts Puppet's text for it, "Sensitive [value redacted]", and an
// alias() fails (a bundle cannot hold a Sensitive inside other data),
// whichever key is compiled first; other conversions apply.
func TestNestedSensitive(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte("version: 5\n")},
		"env/data/common.yaml": {Data: []byte(`lookup_options:
  a_pw: {convert_to: Sensitive}
  a_port: {convert_to: Integer}
a_pw: secret
a_port: "0x10"
z_text: "pw=%{lookup('a_pw')}"
a_first: "%{hiera('a_pw')}"
z_alias: "%{alias('a_pw')}"
z_port: "port=%{lookup('a_port')}"
`)},
		"nodes/n1.yaml": {Data: []byte("x: 1\n")},
	}
	n, _ := compiler.LoadFacts(fsys, "nodes/n1.yaml")
	res, err := compiler.Compile(context.Background(), compiler.Input{FS: fsys, EnvDir: "env", Nodes: []compiler.Node{n}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, k := range res.Bundles[0].Keys {
		if k.Err != nil {
			got[k.Name] = "error: " + k.Err.Message
		} else {
			got[k.Name] = fmt.Sprint(k.Value)
		}
	}
	want := map[string]string{
		"a_pw":    "secret", // readers wrap it
		"a_port":  "16",
		"z_text":  "pw=Sensitive [value redacted]",
		"a_first": "Sensitive [value redacted]",
		"z_alias": "error: hieracc cannot interpolate key 'a_pw': its lookup_options convert it to Sensitive, which cannot be held in other data ahead of time",
		"z_port":  "port=16",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestConvertToPerNode: nodes share a key's result only when their
// lookup_options convert it alike.
func TestConvertToPerNode(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml":        {Data: []byte("version: 5\nhierarchy:\n  - {name: Node, path: 'nodes/%{trusted.certname}.yaml'}\n  - {name: Common, path: common.yaml}\n")},
		"env/data/nodes/a.yaml": {Data: []byte("lookup_options:\n  k: {convert_to: Integer}\n")},
		"env/data/nodes/c.yaml": {Data: []byte("other: 1\n")},
		"env/data/common.yaml":  {Data: []byte("k: '0x10'\n")},
	}
	var nodes []compiler.Node
	for _, name := range []string{"a", "b", "c", "d"} {
		fsys["nodes/"+name+".yaml"] = &fstest.MapFile{Data: []byte("x: 1\n")}
	}
	for _, name := range []string{"b", "a", "c", "d"} {
		n, _ := compiler.LoadFacts(fsys, "nodes/"+name+".yaml")
		nodes = append(nodes, n)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{FS: fsys, EnvDir: "env", Nodes: nodes, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, b := range res.Bundles {
		for _, k := range b.Keys {
			if k.Name == "k" {
				got[b.Node] = k.Value
			}
		}
	}
	want := map[string]any{"a": int64(16), "b": "0x10", "c": "0x10", "d": "0x10"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestHiera3EyamlKeys: a Hiera 3 global config's :eyaml: section names the
// keys; an absolute path there is read from the mount that supplies it,
// else from the local disk, and --pkcs7-private-key/--pkcs7-public-key
// override it.
func TestHiera3EyamlKeys(t *testing.T) {
	dir := ownCasesDir + "/hiera3-global-eyaml"
	fsys := os.DirFS(dir)
	n, ds := compiler.LoadFacts(fsys, "nodes/web01.example.com.yaml")
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	priv, err := os.ReadFile(dir + "/keys/private_key.pkcs7.pem")
	if err != nil {
		t.Fatal(err)
	}
	mount := []compiler.Mount{{Server: "/etc/puppetlabs/puppet/eyaml", Dir: "keys"}}
	var read []string
	local := func(p string) ([]byte, error) {
		read = append(read, p)
		if p == "/etc/puppetlabs/puppet/eyaml/private_key.pkcs7.pem" {
			return priv, nil
		}
		return os.ReadFile(dir + "/keys/public_key.pkcs7.pem")
	}
	for _, tc := range []struct {
		name      string
		mounts    []compiler.Mount
		flag      *compiler.KeyFile
		want      string
		wantLocal []string
	}{
		{"mounted", mount, nil, "s3cr3t-db", nil},
		{"local disk", nil, nil, "s3cr3t-db", []string{"/etc/puppetlabs/puppet/eyaml/private_key.pkcs7.pem", "/etc/puppetlabs/puppet/eyaml/public_key.pkcs7.pem"}},
		{"flag overrides", mount, &compiler.KeyFile{Name: "other.pem", Data: []byte("not a key")}, "error", nil},
	} {
		read = nil
		in := compiler.Input{FS: fsys, EnvDir: "env", GlobalDir: "global", Nodes: []compiler.Node{n},
			Mounts: tc.mounts, ReadKeyFile: local, PKCS7PrivateKey: tc.flag}
		res, err := compiler.Compile(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		got := "missing"
		for _, k := range res.Bundles[0].Keys {
			if k.Name == "db_password" {
				got = fmt.Sprint(k.Value)
				if k.Err != nil {
					got = "error"
				}
			}
		}
		if got != tc.want {
			t.Errorf("%s: db_password = %q, want %q", tc.name, got, tc.want)
		}
		if d := cmp.Diff(tc.wantLocal, read); d != "" {
			t.Errorf("%s: key files read from the local disk (-want +got):\n%s", tc.name, d)
		}
	}
}
