package rubybackend

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// functions are the test's backends, by path under the environment.
var functions = map[string]string{
	"lib/puppet/functions/t_hash.rb": `Puppet::Functions.create_function(:t_hash) do
  dispatch :t_hash do
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end
  def t_hash(options, context)
    puts 'printed on stdout'
    { 'who' => closure_scope['trusted']['certname'], 'opt' => options['o'], 'path' => File.basename(options['path']),
      'int' => 1, 'float' => 1.0, 'nested' => { 'b' => [nil, true], 'a' => '%{facts.dc}' },
      'pw' => Puppet::Pops::Types::PSensitiveType::Sensitive.new('s3cret'), 'time' => Time.at(0) }
  end
end
`,
	"lib/puppet/functions/t_string.rb": `Puppet::Functions.create_function(:t_string) do
  dispatch :t_string do
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end
  def t_string(options, context)
    'not a hash'
  end
end
`,
	"lib/puppet/functions/environment/t_key.rb": `Puppet::Functions.create_function(:'environment::t_key') do
  dispatch :t_key do
    param 'Variant[String, Numeric]', :key
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end
  def t_key(key, options, context)
    case key
    when 'k' then context.interpolate('%{facts.dc} via ' + options['uri'])
    when 'boom' then raise ArgumentError, 'no such thing'
    else context.not_found
    end
  end
end
`,
	"modules/m/lib/puppet/functions/m/t_dig.rb": `Puppet::Functions.create_function(:'m::t_dig') do
  dispatch :t_dig do
    param 'Array[Variant[String, Numeric]]', :segments
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end
  def t_dig(segments, options, context)
    context.not_found unless segments == ['m::x']
    { 'segments' => segments.size, 'module' => context.module_name }
  end
end
`,
}

// TestPuppet runs the helper with the installed Puppet: a data_hash, a
// lookup_key and a data_dig function of the test's, each called as
// Puppet's lookup calls them, and Puppet's failures.
func TestPuppet(t *testing.T) {
	if _, err := exec.LookPath("puppet"); err != nil {
		t.Skip("runs the helper with the installed Puppet, and `puppet` is not on PATH")
	}
	dir := t.TempDir()
	env := filepath.Join(dir, "env")
	for p, src := range functions {
		full := filepath.Join(env, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(env, "data"), 0o755)
	os.WriteFile(filepath.Join(env, "data", "x.kv"), []byte("x"), 0o644)
	p, err := Start(context.Background(), Config{EnvDir: env, ModulePath: []string{filepath.Join(env, "modules")},
		Roots: []Root{{FS: "env", Disk: env}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	scope := func(node, dc string) Request {
		return Request{Node: node, Facts: hash("dc", dc), Trusted: hash("certname", node, "authenticated", "remote"),
			ServerFacts: hash("environment", "production")}
	}
	call := func(req Request) Answer {
		t.Helper()
		a, err := p.Call(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", req.Function, err)
		}
		return a
	}
	for _, node := range []string{"web01", "db01", "web01"} { // the helper changes scope between nodes
		dc := map[string]string{"web01": "ams", "db01": "fra"}[node]
		req := scope(node, dc)
		req.Kind, req.Function, req.Level, req.Path, req.Options = DataHash, "t_hash", "Hash", "env/data/x.kv", hash("o", "%{facts.dc}")
		a := call(req)
		want := `{"h":[["who","` + node + `"],["opt","` + dc + `"],["path","x.kv"],["int",{"i":"1"}],["float",{"f":"1"}],` +
			`["nested",{"h":[["b",[null,true]],["a","%{facts.dc}"]]}],["pw","s3cret"],["time",null]]}`
		if got := show(a.Data); got != want {
			t.Errorf("%s: data_hash answered\n%s\nwant\n%s", node, got, want)
		}
		if d := cmp.Diff(map[string]bool{"pw": true}, a.Secret); d != "" {
			t.Errorf("secret (-want +got):\n%s", d)
		}
		wantInvalid := map[string]string{"time": "Value for key 'time', in hash returned from data_hash function 't_hash', when using location 'env/data/x.kv', has wrong type, expects Puppet::LookupValue, got Runtime[ruby, 'Time']"}
		if d := cmp.Diff(wantInvalid, a.Invalid); d != "" {
			t.Errorf("invalid (-want +got):\n%s", d)
		}
	}

	req := scope("web01", "ams")
	req.Kind, req.Function, req.Level, req.URI, req.Keys = LookupKey, "environment::t_key", "Key", "cmdb://x", []string{"lookup_options", "k", "boom", "other"}
	a := call(req)
	if got := show(a.Data); got != `{"h":[["k","ams via cmdb://x"]]}` {
		t.Errorf("lookup_key answered %s", got)
	}
	if d := cmp.Diff(map[string]string{"boom": "no such thing"}, a.Invalid); d != "" {
		t.Errorf("lookup_key invalid (-want +got):\n%s", d)
	}

	req = scope("web01", "ams")
	req.Kind, req.Function, req.Level, req.Module, req.Keys = DataDig, "m::t_dig", "Dig", "m", []string{"lookup_options", "m::x"}
	if got := show(call(req).Data); got != `{"h":[["m::x",{"h":[["segments",{"i":"1"}],["module","m"]]}]]}` {
		t.Errorf("data_dig answered %s", got)
	}

	for _, tc := range []struct{ kind, function, want string }{
		{DataHash, "t_string", "Value returned from data_hash function 't_string', when using location 'env/data/x.kv', has wrong type, expects a Hash value, got String"},
		{DataHash, "nope", "Unable to find 'data_hash' function named 'nope'"},
		{LookupKey, "nope", "Unable to find 'lookup_key' function named 'nope'"},
	} {
		req := scope("db01", "fra")
		req.Kind, req.Function, req.Level, req.Path, req.Keys = tc.kind, tc.function, "L", "env/data/x.kv", []string{"k"}
		if got := call(req).Err; got != tc.want {
			t.Errorf("%s %s: error %q, want %q", tc.kind, tc.function, got, tc.want)
		}
	}
}
