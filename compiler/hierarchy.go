package compiler

// Stage: expand each layer's hierarchy for one node into the data files it
// names (Puppet's create_configured_data_providers and LocationResolver).

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// layerRun is one layer's hierarchy as expanded for one node.
type layerRun struct {
	conf  *config
	hier  format.Hierarchy
	files [][]*dataFile // [level][location]; nil where the file does not exist
	// def is the module's default_hierarchy, when it has one.
	def      *format.Hierarchy
	defFiles [][]*dataFile
	// err fails every lookup that reaches the layer.
	err *format.Error
}

// expandLayer resolves a config's hierarchies for node n.
func (n *nodeRun) expandLayer(c *config) *layerRun {
	lr := &layerRun{conf: c}
	if c == nil || !c.present {
		return lr
	}
	lr.hier.Present = true
	if c.err != nil {
		lr.err = c.err
		return lr
	}
	var err *format.Error
	lr.hier.Levels, lr.files, err = n.expandLevels(c, c.hierarchy)
	if err == nil && c.hasDefault {
		def := format.Hierarchy{Present: true}
		def.Levels, lr.defFiles, err = n.expandLevels(c, c.defaultHierarchy)
		lr.def = &def
	}
	lr.err = err
	return lr
}

func (n *nodeRun) expandLevels(c *config, levels []levelConf) ([]format.Level, [][]*dataFile, *format.Error) {
	var out []format.Level
	var files [][]*dataFile
	for i := range levels {
		lvl := &levels[i]
		locs, err := n.expandLevel(c, lvl)
		if err != nil {
			err.File, err.Level = c.file, lvl.name
			if err.Line == 0 {
				err.Line, err.Column = lvl.line, lvl.column
			}
			return nil, nil, err
		}
		if c.isDefaultConfig && len(locs) == 0 {
			continue // Puppet's default config keeps only levels whose files exist
		}
		fl := format.Level{Name: lvl.name}
		fs := make([]*dataFile, len(locs))
		for j, p := range locs {
			df := n.c.file(p, lvl.function, c.layer, c.module, keyringKey{c.root, lvl.keys})
			fs[j] = df
			fl.Locations = append(fl.Locations, format.Location{Path: p, Exists: df != nil})
		}
		out = append(out, fl)
		files = append(files, fs)
	}
	return out, files, nil
}

// expandLevel returns the FS paths a level names for the node.
func (n *nodeRun) expandLevel(c *config, lvl *levelConf) ([]string, *format.Error) {
	saved := n.at
	n.at = site{c.file, lvl.line, lvl.column, lvl.name}
	defer func() { n.at = saved }()
	dd, err := n.interpolatePath(path.Join(c.root, lvl.datadir))
	if err != nil {
		return nil, err
	}
	datadir := path.Clean(dd)
	resolve := func(tmpl string) (string, *format.Error) {
		p, err := n.interpolatePath(tmpl)
		if err != nil {
			return "", err
		}
		return n.safeJoin(datadir, tmpl, p)
	}
	var locs []string
	switch lvl.kind {
	case locPath, locPaths:
		for _, t := range lvl.locs {
			p, err := resolve(t)
			if err != nil {
				return nil, err
			}
			if c.isDefaultConfig && !n.c.exists(p) {
				continue
			}
			locs = append(locs, p)
		}
	case locGlob, locGlobs:
		for _, t := range lvl.locs {
			p, err := resolve(t)
			if err != nil {
				return nil, err
			}
			locs = append(locs, rubyGlob(n.c.fsys, p)...)
		}
	case locMappedPaths:
		vars, err := n.scopeLookup(lvl.mapped[0], "mapped_path[0]")
		if err != nil {
			return nil, asFormatError(err)
		}
		var elems []any
		switch v := vars.(type) {
		case nil:
		case string:
			if v != "" {
				elems = []any{v}
			}
		case []any:
			elems = v
		case *format.Hash:
			for k, e := range v.All() {
				elems = append(elems, []any{k, e})
			}
		default:
			elems = []any{v}
		}
		for _, e := range elems {
			n.local = map[string]any{lvl.mapped[1]: e}
			p, err := resolve(lvl.mapped[2])
			n.local = nil
			if err != nil {
				return nil, err
			}
			locs = append(locs, p)
		}
	case locNone:
		return nil, &format.Error{Message: fmt.Sprintf("hierarchy level '%s' names no data file (path, paths, glob, globs or mapped_paths)", lvl.name)}
	}
	return locs, nil
}

// interpolatePath interpolates a hierarchy path or datadir, where Puppet
// forbids lookup()/alias()/... .
func (n *nodeRun) interpolatePath(s string) (string, *format.Error) {
	if !strings.Contains(s, "%{") {
		return s, nil
	}
	v, err := n.interpolateString(s, false)
	if err != nil {
		return "", asFormatError(err)
	}
	return ruby.ToS(v), nil
}

// safeJoin joins a data dir and an interpolated path as Ruby's Pathname#+
// does, refusing paths that interpolated values steer: a fact's value must
// never make hieracc read another node's data or a file like /etc/shadow.
// Paths that the repo's own hiera.yaml writes with ".." or "/" stay allowed,
// as long as they stay inside the input tree.
func (n *nodeRun) safeJoin(datadir, tmpl, p string) (string, *format.Error) {
	if strings.ContainsRune(p, 0) {
		return "", &format.Error{Message: fmt.Sprintf("hierarchy path %q contains a NUL byte: refusing to read it", tmpl)}
	}
	if p != tmpl {
		if path.IsAbs(p) && !path.IsAbs(tmpl) {
			return "", &format.Error{Message: fmt.Sprintf("hierarchy path %q interpolates to the absolute path %q: refusing to read it", tmpl, p)}
		}
		if countDotDot(p) > countDotDot(tmpl) {
			return "", &format.Error{Message: fmt.Sprintf("hierarchy path %q interpolates to %q, whose \"..\" leaves the place the path names: refusing to read it", tmpl, p)}
		}
	}
	joined := path.Clean(path.Join(datadir, p))
	if path.IsAbs(p) {
		joined = path.Clean(p)
	}
	if !fs.ValidPath(joined) {
		return "", &format.Error{Message: fmt.Sprintf("hierarchy path %q resolves to %q, outside the control repo: refusing to read it", tmpl, joined)}
	}
	return joined, nil
}

func countDotDot(p string) int {
	n := 0
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			n++
		}
	}
	return n
}

// rubyGlob expands a glob as Ruby's Dir.glob does for Hiera: braces, *, ?,
// [...], and ** across directories; wildcards do not match a leading dot;
// directories are dropped; each directory is read in sorted order.
func rubyGlob(fsys fs.FS, pattern string) []string {
	var out []string
	for _, p := range expandBraces(pattern) {
		segs := strings.Split(path.Clean(p), "/")
		globSegs(fsys, ".", segs, &out)
	}
	return out
}

func globSegs(fsys fs.FS, dir string, segs []string, out *[]string) {
	if len(segs) == 0 {
		if st, err := fs.Stat(fsys, dir); err == nil && !st.IsDir() {
			*out = append(*out, dir)
		}
		return
	}
	seg, rest := segs[0], segs[1:]
	join := func(name string) string {
		if dir == "." {
			return name
		}
		return dir + "/" + name
	}
	if seg == "**" {
		globSegs(fsys, dir, rest, out) // zero directories
		entries, _ := fs.ReadDir(fsys, dir)
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				globSegs(fsys, join(e.Name()), segs, out)
			}
		}
		return
	}
	if !strings.ContainsAny(seg, "*?[\\") {
		globSegs(fsys, join(seg), rest, out)
		return
	}
	entries, _ := fs.ReadDir(fsys, dir) // sorted by name
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
			continue
		}
		if ok, _ := path.Match(seg, name); ok {
			globSegs(fsys, join(name), rest, out)
		}
	}
}

// expandBraces expands {a,b} alternatives in order, as Ruby's glob does.
func expandBraces(p string) []string {
	depth, start := 0, -1
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				start = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth == 0 {
				var alts []string
				level, from := 0, start+1
				for j := start + 1; j < i; j++ {
					switch p[j] {
					case '{':
						level++
					case '}':
						level--
					case ',':
						if level == 0 {
							alts = append(alts, p[from:j])
							from = j + 1
						}
					}
				}
				alts = append(alts, p[from:i])
				var out []string
				for _, a := range alts {
					out = append(out, expandBraces(p[:start]+a+p[i+1:])...)
				}
				return out
			}
		}
	}
	return []string{p}
}
