package compiler

import (
	"testing"
	"testing/fstest"

	"github.com/hieracc/hieracc/format"
)

// FuzzLoadConfig feeds arbitrary hiera.yaml bytes to every layer's config
// reader (versions 3, 4 and 5): it must never panic, and a config that
// fails must say why.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"version: 5\nhierarchy:\n  - name: C\n    path: c.yaml\n",
		"---\n:backends: [yaml, json, vault]\n:hierarchy: [\"nodes/%{::trusted.certname}\", common]\n:yaml:\n  :datadir: /srv/hiera\n:merge_behavior: deeper\n:deep_merge_options:\n  :knockout_prefix: '--'\n",
		"version: 4\ndatadir: data\nhierarchy:\n  - name: c\n    backend: json\n    paths: [a, b]\n",
		"base: &b {name: x, backend: yaml}\nversion: 4\nhierarchy: [*b, {<<: *b, name: y}]\n",
		"<<: {version: 3, backends: yaml}\n:extra: 1\n",
		"version: 5.0\ndefaults:\n  options: {a: 1, 1b: x}\nhierarchy: ~\n",
		"version: ~\ndefaults:\nhierarchy:\n  - name: c\n    path: c.yaml\n    options: foo\n",
		"- a\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fsys := fstest.MapFS{"l/hiera.yaml": {Data: src}}
		for _, layer := range []format.Layer{format.LayerGlobal, format.LayerEnvironment, format.LayerModule} {
			c, ds := loadConfig(fsys, "l", layer, "m")
			if c.err != nil && len(ds) == 0 {
				t.Fatalf("layer %v: error %q without a diagnostic", layer, c.err.Message)
			}
		}
	})
}
