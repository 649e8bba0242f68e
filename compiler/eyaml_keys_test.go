package compiler_test

import (
	"context"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/diagnostics"
)

// ciphertexts are the base64 texts of the ENC[...] blocks in fsys's files.
func ciphertexts(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	re := regexp.MustCompile(`ENC\[(?:\w+,)?([A-Za-z0-9+/=\s]+)\]`)
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".eyaml") {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			if len(m[1]) > 40 {
				out = append(out, m[1])
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no ciphertext found")
	}
	return out
}

// quotesCiphertext reports whether msg quotes 24 characters in a row of
// one of cts (8 are kept: every PKCS7 text starts MIIBeQYJ...).
func quotesCiphertext(msg string, cts []string) bool {
	for _, ct := range cts {
		for i := 0; i+24 <= len(ct); i++ {
			if strings.Contains(msg, ct[i:i+24]) {
				return true
			}
		}
	}
	return false
}

// TestEyamlKeyDiagnostics: an eyaml level whose keys cannot be used is one
// compile diagnostic for the level, however many values, keys and nodes
// fail: it names the level (at its place in hiera.yaml), the key files
// it looked for and the flags that supply them, and quotes no ciphertext.
// The bundles keep Puppet's own message for each lookup.
func TestEyamlKeyDiagnostics(t *testing.T) {
	const dir = ownCasesDir + "/eyaml-no-keys"
	fsys := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(dir + "/" + p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cts := ciphertexts(t, fsys)
	nodeNames := []string{"web01.example.com", "web02.example.com", "web03.example.com"}
	var nodes []compiler.Node
	for _, name := range nodeNames {
		fsys["facts/"+name+".yaml"] = &fstest.MapFile{Data: []byte("role: web\n")}
		n, ds := compiler.LoadFacts(fsys, "facts/"+name+".yaml")
		if len(ds) > 0 {
			t.Fatal(ds)
		}
		nodes = append(nodes, n)
	}

	compile := func(t *testing.T, in compiler.Input) *compiler.Result {
		t.Helper()
		in.FS, in.EnvDir, in.Nodes = fsys, "env", nodes
		res, err := compiler.Compile(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// byLevel gathers the error diagnostics without their node: each
	// level's must be one, on every node.
	byLevel := func(t *testing.T, res *compiler.Result) map[string]diagnostics.Diagnostic {
		t.Helper()
		out := map[string]diagnostics.Diagnostic{}
		nodesOf := map[diagnostics.Diagnostic][]string{}
		for _, d := range res.Diagnostics {
			if d.Severity != diagnostics.Error {
				continue
			}
			if quotesCiphertext(d.Message, cts) {
				t.Errorf("diagnostic quotes a ciphertext: %s", d)
			}
			node := d.Node
			d.Node = ""
			if prev, ok := out[d.Level]; ok && prev != d {
				t.Errorf("level %q: more than one diagnostic:\n%s\n%s", d.Level, prev, d)
			}
			out[d.Level] = d
			nodesOf[d] = append(nodesOf[d], node)
		}
		for d, ns := range nodesOf {
			slices.Sort(ns)
			if !slices.Equal(ns, nodeNames) {
				t.Errorf("%s: on nodes %v, want each of %v once", d, ns, nodeNames)
			}
		}
		return out
	}
	contains := func(t *testing.T, d diagnostics.Diagnostic, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(d.Message, w) {
				t.Errorf("level %q: message does not say %q:\n%s", d.Level, w, d.Message)
			}
		}
	}

	t.Run("options", func(t *testing.T) {
		res := compile(t, compiler.Input{})
		got := byLevel(t, res)
		if len(got) != 2 {
			t.Fatalf("%d levels with errors, want 2: %v", len(got), got)
		}
		none := got["Secrets without keys"]
		if none.File != "env/hiera.yaml" || none.Line == 0 || none.Key != "" {
			t.Errorf("diagnostic at %v, key %q; want the level's place in env/hiera.yaml, no key", none.Pos, none.Key)
		}
		contains(t, none, "pkcs7_public_key is not defined", "no pkcs7_private_key in the level's options",
			"no pkcs7_public_key in the level's options", "--pkcs7-private-key FILE", "--pkcs7-public-key FILE")
		missing := got["Secrets with a missing key file"]
		contains(t, missing, "No such file or directory",
			"/etc/puppetlabs/puppet/eyaml/hieracc-no-such-key.pem (pkcs7_private_key in the level's options)",
			"/etc/puppetlabs/puppet/eyaml/hieracc-no-such-cert.pem (pkcs7_public_key in the level's options)",
			"--pkcs7-private-key FILE", "--pkcs7-public-key FILE", "--mount /etc/puppetlabs/puppet/eyaml=DIR")

		// The lookups still fail with Puppet's message, ciphertext and all.
		for _, b := range res.Bundles {
			for _, k := range b.Keys {
				if k.Name == "password" && (k.Err == nil || !quotesCiphertext(k.Err.Message, cts) ||
					!strings.HasPrefix(k.Err.Message, "hiera-eyaml backend error decrypting ENC[PKCS7,MIIB")) {
					t.Errorf("%s: password: %v, want Puppet's message", b.Node, k.Err)
				}
			}
		}
	})

	t.Run("flags", func(t *testing.T) {
		res := compile(t, compiler.Input{
			PKCS7PrivateKey: &compiler.KeyFile{Name: "ci/private.pem", Data: []byte("not a key")},
			PKCS7PublicKey:  &compiler.KeyFile{Name: "ci/public.pem", Data: []byte("not a certificate")},
		})
		got := byLevel(t, res)
		if len(got) != 2 {
			t.Fatalf("%d levels with errors, want 2: %v", len(got), got)
		}
		for _, d := range got {
			contains(t, d, "Neither PUB key nor PRIV key", "ci/private.pem (--pkcs7-private-key)",
				"ci/public.pem (--pkcs7-public-key)", "Check the files those flags name")
			if strings.Contains(d.Message, "--mount") {
				t.Errorf("flags given, yet the message suggests --mount: %s", d.Message)
			}
		}
	})
}

// TestEyamlValueDiagnostics: a value the keys cannot decrypt (another
// pair's) fails its own lookups, each reported with the ciphertext cut
// short; the bundle keeps Puppet's message whole.
func TestEyamlValueDiagnostics(t *testing.T) {
	dir := ownCasesDir + "/eyaml"
	fsys := os.DirFS(dir)
	cts := ciphertexts(t, fsys)
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
	found := false
	for _, d := range res.Diagnostics {
		if quotesCiphertext(d.Message, cts) {
			t.Errorf("diagnostic quotes a ciphertext: %s", d)
		}
		if d.Key == "wrong_key" {
			found = true
			if !regexp.MustCompile(`^hiera-eyaml backend error decrypting ENC\[PKCS7,MIIBeQYJ…\(\d+ more characters\)\] when looking up wrong_key in `).MatchString(d.Message) {
				t.Errorf("wrong_key: %s", d.Message)
			}
		}
	}
	if !found {
		t.Error("no diagnostic for wrong_key")
	}
	for _, k := range res.Bundles[0].Keys {
		if k.Name == "wrong_key" && (k.Err == nil || !quotesCiphertext(k.Err.Message, cts)) {
			t.Errorf("wrong_key's bundle error %v: want Puppet's message, ciphertext and all", k.Err)
		}
	}
}
