package compiler

import "testing"

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
		if got := n.serverPath(tc.abs, tc.abs); got != tc.want {
			t.Errorf("serverPath(%s) = %s, want %s", tc.abs, got, tc.want)
		}
		if warned := len(n.diags) > 0; warned != outsideFS(tc.want) {
			t.Errorf("serverPath(%s): warned = %v, want %v", tc.abs, warned, outsideFS(tc.want))
		}
	}
	root := &nodeRun{c: &compilation{mounts: []Mount{{Server: "/", Dir: "mount"}}}, warned: map[string]bool{}}
	if got := root.serverPath("/etc/x.yaml", "/etc/x.yaml"); got != "mount/etc/x.yaml" {
		t.Errorf("a mount of / gives %s, want mount/etc/x.yaml", got)
	}
}
