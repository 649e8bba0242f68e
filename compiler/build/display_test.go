package build

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDisplayPaths(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"repo/data", "repo/site-modules/ntp", "mods/ntp", "conf"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "conf", "hiera-global.yaml"), []byte("version: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tc := range []struct {
		name     string
		cfg      Config
		in, want string
	}{
		{"--env .", Config{Env: "."}, "env/data/common.yaml", "data/common.yaml"},
		{"--env in a subfolder", Config{Env: "repo"}, "env/data/common.yaml", "repo/data/common.yaml"},
		{"--modules inside --env", Config{Env: "repo", Modules: "repo/site-modules"}, "env/site-modules/ntp/data/common.yaml", "repo/site-modules/ntp/data/common.yaml"},
		{"--modules apart", Config{Env: "repo", Modules: "mods"}, "modules/ntp/data/common.yaml", "mods/ntp/data/common.yaml"},
		{"--global a file", Config{Env: "repo", Global: "conf/hiera-global.yaml"}, "global/hiera.yaml", "conf/hiera-global.yaml"},
		{"--global a folder", Config{Env: "repo", Global: "conf"}, "global/data/common.yaml", "conf/data/common.yaml"},
		{"elsewhere", Config{Env: "repo"}, "somewhere/else.yaml", "somewhere/else.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			display, err := tc.cfg.DisplayPaths()
			if err != nil {
				t.Fatal(err)
			}
			if got := display(tc.in); got != tc.want {
				t.Errorf("display(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
