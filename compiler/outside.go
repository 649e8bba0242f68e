package compiler

// Paths on the Puppet server's disk. A hierarchy may name an absolute path
// (/etc/puppetlabs/puppet/local.yaml, a datadir in /srv) that lies outside
// every folder given to hieracc. hieracc never reads the disk it runs on in
// its place: such a location is absent, with a warning, unless a Mount says
// which input folder holds that server folder.

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/diagnostics"
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
func (nl *nodeLayers) serverPath(abs, tmpl string) string {
	if p, ok := nl.n.c.mapServer(abs); ok {
		return p
	}
	static, _, _ := strings.Cut(tmpl, "%{")
	nl.n.warnOutside(diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: nl.n.interp.at.pos, Level: nl.n.interp.at.level,
		Message: fmt.Sprintf("%s is on the Puppet server's disk, outside the folders given to hieracc: read as absent (compile --mount %s=LOCAL_DIR supplies it)", tmpl, path.Dir(static+"x"))})
	return abs
}

// warnOutside reports a location on the server's disk, once per node.
func (n *nodeRun) warnOutside(d diagnostics.Diagnostic) {
	n.warnings++
	if s := d.String(); !n.warned[s] {
		n.warned[s] = true
		n.diags = append(n.diags, d)
	}
}

// A symbolic link in the data to an absolute path (data/private.yaml ->
// /opt/puppet/shares/private.yaml, a folder data/shares -> /srv/shares)
// names the Puppet server's disk too: Puppet follows it there. hieracc
// never follows it on the machine it runs on; it reads the location as a
// hierarchy's absolute path (serverPath): from a mount, else absent with a
// warning naming the level and the link.

// linkOut describes the link that takes a data file's FS path to the
// server's disk.
type linkOut struct {
	link   string // the link's FS path
	target string // what it points to, as written (absolute)
	server string // the data file's path on the server: target + the rest
	file   bool   // the link is the data file itself (else a folder above it)
}

// linkOutOf returns the link that takes FS path p to an absolute path,
// following the relative links before it inside the FS; false when there
// is none (or the FS shows no links). It is asked only of a file that
// could not be read, and remembered.
func (c *compilation) linkOutOf(p string) (linkOut, bool) {
	if v, ok := c.links.Load(p); ok {
		lo, _ := v.(*linkOut)
		return derefLink(lo)
	}
	lo := findLinkOut(c.fsys, p)
	c.links.Store(p, lo)
	return derefLink(lo)
}

func derefLink(lo *linkOut) (linkOut, bool) {
	if lo == nil {
		return linkOut{}, false
	}
	return *lo, true
}

// maxLinkHops bounds the relative links findLinkOut follows (a loop).
const maxLinkHops = 40

func findLinkOut(fsys fs.FS, p string) *linkOut {
	rl, ok := fsys.(fs.ReadLinkFS)
	if !ok {
		return nil
	}
	segs := strings.Split(p, "/")
	cur, hops := ".", 0
	for i := 0; i < len(segs); i++ {
		next := path.Join(cur, segs[i])
		st, err := rl.Lstat(next)
		if err != nil {
			return nil
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		t, err := rl.ReadLink(next)
		if err != nil {
			return nil
		}
		rest := segs[i+1:]
		if path.IsAbs(t) {
			return &linkOut{link: next, target: t, server: path.Join(append([]string{t}, rest...)...), file: len(rest) == 0}
		}
		// A relative link inside the FS is followed here as the FS does;
		// one that leaves it is the FS's error to report.
		r := path.Join(cur, t)
		if hops++; hops > maxLinkHops || !fs.ValidPath(r) {
			return nil
		}
		segs, cur, i = append(strings.Split(r, "/"), rest...), ".", -1
	}
	return nil
}

// linkedFile is the data file at l, which leads out through a link: the
// file a mount gives its server path, else none (absent), with a warning.
// It returns the FS path read (l's own when none is).
func (nl *nodeLayers) linkedFile(c *config, lvl *levelConf, l location, lo linkOut) (*dataFile, string) {
	if p, ok := nl.n.c.mapServer(path.Clean(lo.server)); ok {
		return nl.n.c.file(location{path: p, original: l.original}, dataFunction(lvl), c.layer, c.module, keyringKey{c.root, lvl.keys}), p
	}
	dir := lo.target
	if lo.file {
		dir = path.Dir(dir)
	}
	nl.n.warnOutside(diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: lvl.pos.In(c.file), Level: lvl.name,
		Message: fmt.Sprintf("%s is a symbolic link to %s, on the Puppet server's disk, outside the folders given to hieracc: read as absent (compile --mount %s=LOCAL_DIR supplies it)", lo.link, lo.target, path.Clean(dir))})
	return nil, l.path
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
