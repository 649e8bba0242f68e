package compiler_test

import (
	"context"
	"os"
	"sort"
	"testing"

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
