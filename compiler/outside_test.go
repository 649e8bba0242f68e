package compiler

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestServerPath pins how mounts map server paths: the longest server
// folder holding the path wins, on whole path segments only, and a path no
// mount holds stays as it is (absent), with one warning.
func TestServerPath(t *testing.T) {
	c := &compilation{mounts: cleanMounts([]Mount{
		{Server: "/srv", Dir: "mount/srv"},
		{Server: "/srv/hiera/", Dir: "mount/srv/hiera"},
		{Server: "/etc/puppetlabs/puppet", Dir: "m/etc"},
	})}
	for _, tc := range []struct{ abs, want string }{
		{"/srv/hiera/nodes/a.yaml", "mount/srv/hiera/nodes/a.yaml"},
		{"/srv/other.yaml", "mount/srv/other.yaml"},
		{"/srv/hiera", "mount/srv/hiera"},
		{"/srvx/a.yaml", "/srvx/a.yaml"},
		{"/etc/puppetlabs/puppet/local.yaml", "m/etc/local.yaml"},
		{"/etc/puppetlabs/puppetx/local.yaml", "/etc/puppetlabs/puppetx/local.yaml"},
	} {
		n := &nodeRun{c: c, warned: map[string]bool{}}
		n.layers.n = n
		if got := n.layers.serverPath(tc.abs, tc.abs); got != tc.want {
			t.Errorf("serverPath(%s) = %s, want %s", tc.abs, got, tc.want)
		}
		if warned := len(n.diags) > 0; warned != outsideFS(tc.want) {
			t.Errorf("serverPath(%s): warned = %v, want %v", tc.abs, warned, outsideFS(tc.want))
		}
	}
	root := &nodeRun{c: &compilation{mounts: []Mount{{Server: "/", Dir: "mount"}}}, warned: map[string]bool{}}
	root.layers.n = root
	if got := root.layers.serverPath("/etc/x.yaml", "/etc/x.yaml"); got != "mount/etc/x.yaml" {
		t.Errorf("a mount of / gives %s, want mount/etc/x.yaml", got)
	}
}

// TestFindLinkOut pins which links name the Puppet server's disk: a link to
// an absolute path, the data file's or a folder's above it, reached through
// relative links inside the FS; not a relative link out of the FS (the FS
// refuses it), a loop, or a path without links.
func TestFindLinkOut(t *testing.T) {
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink}
	}
	fsys := fstest.MapFS{
		"env/data/common.yaml":  {Data: []byte("a: 1\n")},
		"env/data/private.yaml": link("/opt/puppet/shares/private.yaml"),
		"env/data/shares":       link("/srv/shares/"),
		"env/data/rel":          link("sub"),
		"env/data/sub":          link("/srv/sub"),
		"env/data/inside":       link("nodes"),
		"env/data/nodes/a.yaml": {Data: []byte("a: 1\n")},
		"env/data/up":           link("../../../outside"),
		"env/data/l1":           link("l2"),
		"env/data/l2":           link("l1"),
	}
	for _, tc := range []struct {
		p    string
		want *linkOut
	}{
		{"env/data/private.yaml", &linkOut{link: "env/data/private.yaml", target: "/opt/puppet/shares/private.yaml", server: "/opt/puppet/shares/private.yaml", file: true}},
		{"env/data/shares/nodes/web01.yaml", &linkOut{link: "env/data/shares", target: "/srv/shares/", server: "/srv/shares/nodes/web01.yaml"}},
		{"env/data/rel/x.yaml", &linkOut{link: "env/data/sub", target: "/srv/sub", server: "/srv/sub/x.yaml"}},
		{"env/data/common.yaml", nil},
		{"env/data/inside/a.yaml", nil},
		{"env/data/missing.yaml", nil},
		{"env/data/up/x.yaml", nil},
		{"env/data/l1/x.yaml", nil},
	} {
		if d := cmp.Diff(tc.want, findLinkOut(fsys, tc.p), cmp.AllowUnexported(linkOut{})); d != "" {
			t.Errorf("findLinkOut(%s) (-want +got):\n%s", tc.p, d)
		}
	}
	if got := findLinkOut(plainFS{fsys}, "env/data/private.yaml"); got != nil {
		t.Errorf("an FS that shows no links: got %+v, want none", got)
	}
}

// plainFS hides an FS's links (it implements fs.FS only).
type plainFS struct{ fs fs.FS }

func (p plainFS) Open(name string) (fs.File, error) { return p.fs.Open(name) }

// TestGlobShown pins how a glob's matches are named when the pattern holds
// a double slash: with it, as Ruby's Dir.glob names them.
func TestGlobShown(t *testing.T) {
	for _, tc := range []struct{ pattern, m, want string }{
		{"env/data/g//*.yml", "env/data/g/a.yml", "env/data/g//a.yml"},
		{"env/data/g//h//*.yml", "env/data/g/h/a.yml", "env/data/g//h//a.yml"},
		{"env/data/g/*.yml", "env/data/g/a.yml", ""},
		{"env/data/*//x.yml", "env/data/g/x.yml", ""},
		{"env/data/g//*.yml", "env/other/a.yml", ""},
	} {
		if got := globShown(tc.pattern, tc.m); got != tc.want {
			t.Errorf("globShown(%q, %q) = %q, want %q", tc.pattern, tc.m, got, tc.want)
		}
	}
}
