package compiler

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
)

// FuzzHostileFacts compiles a repo whose hierarchy paths, datadir, globs
// and mapped_paths interpolate facts and the certname, and whose data
// interpolates them too, for hostile facts: the compile must not panic,
// read nothing outside the environment's data (the global layer and the
// "private" folder hold a secret no hierarchy names), and give bundles
// that encode.
func FuzzHostileFacts(f *testing.F) {
	f.Add("web01", "web", "ops", "a")
	f.Add("x", "../../private", "../..", "{a,b}")
	f.Add("*", "**/**", "/etc", "%{facts.role}")
	f.Add("n", strings.Repeat("{a,b}", 12), "t\x00", "%{lookup('k')}")
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(`version: 5
hierarchy:
  - name: Node
    path: "nodes/%{trusted.certname}.yaml"
  - name: Team
    datadir: "data/teams/%{facts.team}"
    path: common.yaml
  - name: Role
    glob: "roles/%{facts.role}/*.yaml"
  - name: Roles
    globs: ["roles/%{facts.role}*.yaml", "roles/{%{facts.other}}.yaml"]
  - name: List
    mapped_paths: [facts.list, x, "list/%{x}.yaml"]
  - name: Common
    path: common.yaml
`)},
		"env/data/common.yaml": {Data: []byte(`k: "%{facts.role}/%{facts.team}/%{trusted.certname}"
l: "%{lookup('k')}%{lookup('k')}"
m: "%{alias('l')}"
`)},
		"env/data/roles/web/a.yaml":      {Data: []byte("k: web\n")},
		"env/data/roles/db.yaml":         {Data: []byte("k: db\n")},
		"env/data/teams/ops/common.yaml": {Data: []byte("k: ops\n")},
		"env/data/nodes/web01.yaml":      {Data: []byte("k: node\n")},
		"env/data/list/a.yaml":           {Data: []byte("k: a\n")},
		"env/private/common.yaml":        {Data: []byte("k: SECRET\n")},
		"env/private/x.yaml":             {Data: []byte("k: SECRET\n")},
		"global/data/common.yaml":        {Data: []byte("g: SECRET\n")},
	}
	f.Fuzz(func(t *testing.T, certname, role, team, other string) {
		facts := format.NewHash(4)
		facts.Set("role", role)
		facts.Set("team", team)
		facts.Set("other", other)
		facts.Set("list", []any{role, team, other})
		res, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", Jobs: 1,
			Nodes: []Node{{Name: certname, Facts: facts}}})
		if err != nil {
			t.Fatal(err)
		}
		b := res.Bundles[0]
		for _, l := range b.Env.Levels {
			for _, loc := range l.Locations {
				if !strings.HasPrefix(loc.Path, "env/data/") || countDotDot(loc.Path) > 0 {
					t.Fatalf("level %q names %q, outside env/data", l.Name, loc.Path)
				}
			}
		}
		for _, k := range b.Keys {
			if v, ok := k.Value.(string); ok && strings.Contains(v, "SECRET") {
				t.Fatalf("key %s = %q: read from outside the hierarchy", k.Name, v)
			}
		}
		if _, err := encode.Encode(b); err != nil {
			t.Fatalf("bundle does not encode: %v", err)
		}
	})
}
