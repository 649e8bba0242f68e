package compiler

// Paths on the Puppet server's disk. A hierarchy may name an absolute path
// (/etc/puppetlabs/puppet/local.yaml, a datadir in /srv) that lies outside
// every folder given to hieracc. hieracc never reads the disk it runs on in
// its place: such a location is absent, with a warning, unless a Mount says
// which input folder holds that server folder.

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Mount supplies one folder of the Puppet server's disk.
type Mount struct {
	Server string // absolute, clean slash path on the Puppet server, e.g. /etc/puppetlabs/puppet
	Dir    string // the input folder (a path inside Input.FS) holding its files
}

// serverPath maps an absolute path that a hierarchy names to the FS path
// that a mount gives it. Without a mount it warns, naming the level and the
// path as written (tmpl, before interpolation, so that a fleet gets one
// warning per level), and returns abs unchanged: a location that is never
// read (outsideFS) and counts as absent, as a missing file does in Puppet.
func (n *nodeRun) serverPath(abs, tmpl string) string {
	if p, ok := n.c.mapServer(abs); ok {
		return p
	}
	static, _, _ := strings.Cut(tmpl, "%{")
	d := Diagnostic{Severity: Warning, Pos: n.at.pos, Level: n.at.level,
		Message: fmt.Sprintf("%s is on the Puppet server's disk, outside the folders given to hieracc: read as absent (compile --mount %s=LOCAL_DIR supplies it)", tmpl, path.Dir(static+"x"))}
	n.warnings++
	if s := d.String(); !n.warned[s] {
		n.warned[s] = true
		n.diags = append(n.diags, d)
	}
	return abs
}

// mapServer maps an absolute server path to the FS path a mount gives it
// (the longest server folder that holds abs wins); false when no mount
// holds it.
func (c *compilation) mapServer(abs string) (string, bool) { return mapServerPath(c.mounts, abs) }

// mapServerPath is mapServer over the mounts ms (cleaned: cleanMounts).
func mapServerPath(ms []Mount, abs string) (string, bool) {
	best := -1
	for i, m := range ms {
		if abs == m.Server || m.Server == "/" || strings.HasPrefix(abs, m.Server+"/") {
			if best < 0 || len(m.Server) > len(ms[best].Server) {
				best = i
			}
		}
	}
	if best < 0 {
		return abs, false
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(abs, ms[best].Server), "/")
	return path.Join(ms[best].Dir, rel), true
}

// mountTop returns the input folder of the mount that holds p (a path
// serverPath gave), or "" when no mount does.
func (c *compilation) mountTop(p string) string {
	for _, m := range c.mounts {
		if p == m.Dir || strings.HasPrefix(p, m.Dir+"/") {
			return m.Dir
		}
	}
	return ""
}

// outsideFS reports whether p is a server path that no mount supplied:
// hieracc never reads it.
func outsideFS(p string) bool { return path.IsAbs(p) }

// cleanMounts cleans and sorts an Input's mounts.
func cleanMounts(ms []Mount) []Mount {
	out := slices.Clone(ms)
	for i := range out {
		out[i].Server = path.Clean(out[i].Server)
	}
	slices.SortFunc(out, func(a, b Mount) int { return strings.Compare(a.Server, b.Server) })
	return out
}
