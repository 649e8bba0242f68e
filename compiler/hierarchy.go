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

// nodeLayers are the node's layers, each one's hierarchy expanded into the
// data files it names for the node: the global and environment layers at
// once, a module's on its first key.
type nodeLayers struct {
	n           *nodeRun // the node, whose scope the paths interpolate
	global, env *layerRun
	modules     map[string]*layerRun // expanded on first use
	// lastMod and lastLayer are what module found last: keys are
	// compiled in order, so a module's keys come one after another.
	lastMod   string
	lastLayer *layerRun
}

// of returns the layers a key is searched in.
func (nl *nodeLayers) of(mod string) [3]*layerRun {
	return [3]*layerRun{nl.global, nl.env, nl.module(mod)}
}

// module returns the module layer for a module name, nil if there is none.
func (nl *nodeLayers) module(name string) *layerRun {
	if name == "" {
		return nil
	}
	if name == nl.lastMod {
		return nl.lastLayer
	}
	lr, ok := nl.modules[name]
	if !ok {
		if conf := nl.n.c.modules[name]; conf != nil && conf.present {
			lr = nl.expandLayer(conf)
		}
		nl.modules[name] = lr
	}
	nl.lastMod, nl.lastLayer = name, lr
	return lr
}

// expandLayer resolves a config's hierarchies for node n.
func (nl *nodeLayers) expandLayer(c *config) *layerRun {
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
	lr.hier.Levels, lr.files, err = nl.expandLevels(c, c.hierarchy)
	if err == nil && c.hasDefault {
		def := format.Hierarchy{Present: true}
		def.Levels, lr.defFiles, err = nl.expandLevels(c, c.defaultHierarchy)
		lr.def = &def
	}
	lr.err = err
	return lr
}

func (nl *nodeLayers) expandLevels(c *config, levels []levelConf) ([]format.Level, [][]*dataFile, *format.Error) {
	out := make([]format.Level, 0, len(levels))
	files := make([][]*dataFile, 0, len(levels))
	for i := range levels {
		lvl := &levels[i]
		locs, memo, err := nl.n.share.expandLevel(c, lvl)
		if err != nil {
			err.File, err.Level = c.file, lvl.name
			if err.Line == 0 {
				err.Pos = lvl.pos.In(c.file)
			}
			return nil, nil, err
		}
		if c.isDefaultConfig && len(locs) == 0 {
			continue // Puppet's default config keeps only levels whose files exist
		}
		fl := format.Level{Name: lvl.name}
		if memo != nil {
			fl.Locations = memo.Locations // nil until its first node fills it below
		}
		built := fl.Locations == nil
		fs := nl.n.w.dataFiles(len(locs))
		for j, l := range locs {
			var df *dataFile
			switch {
			case lvl.foreign && (lvl.kind == locURIs || lvl.kind == locNone):
				df = nl.foreignFile(c, lvl, l)
			case outsideFS(l.path):
			case lvl.foreign:
				if nl.n.c.exists(l.path) {
					df = nl.foreignFile(c, lvl, l)
				}
			case lvl.optionsErr != "":
				if nl.n.c.exists(l.path) {
					df = nl.n.c.optionsFile(c, lvl)
				}
			default:
				df = nl.n.c.file(l, dataFunction(lvl), c.layer, c.module, keyringKey{c.root, lvl.keys})
				if df != nil && df.err != nil {
					if lo, ok := nl.n.c.linkOutOf(l.path); ok {
						// A link to the server's disk (outside.go): the
						// bundle records the file a mount gives it.
						df, l.path = nl.linkedFile(c, lvl, l, lo)
					}
				}
			}
			fs[j] = df
			if built {
				fl.Locations = append(fl.Locations, format.Location{Path: l.path, Exists: df != nil, Original: l.original})
			}
		}
		if memo != nil && built {
			memo.Locations = fl.Locations
		}
		out = append(out, fl)
		files = append(files, fs)
	}
	return out, files, nil
}

// dataFiles returns room for the n data files of a level's locations,
// cut from the worker's block: a node's levels, a few locations each, then
// cost one allocation, not one each.
func (w *worker) dataFiles(n int) []*dataFile {
	if n > dfBlock/8 {
		return make([]*dataFile, n)
	}
	if cap(w.dfBlock)-len(w.dfBlock) < n {
		w.dfBlock = make([]*dataFile, 0, dfBlock)
	}
	i := len(w.dfBlock)
	w.dfBlock = w.dfBlock[:i+n]
	return w.dfBlock[i : i+n : i+n]
}

// dfBlock is the size of the worker's blocks of data files (see dataFiles).
const dfBlock = 256

// location is a data file a level names: its FS path, the path Puppet
// shows in messages when that differs ("" if not; see shownPath), and what
// the hierarchy wrote for it (Puppet's "Original path" in --explain: the
// template, or for a glob the interpolated pattern).
type location struct {
	path, shown, original string
}

// expandLevel returns the data files a level names for the node.
func (nl *nodeLayers) expandLevel(c *config, lvl *levelConf) ([]location, *format.Error) {
	saved := nl.n.interp.at
	nl.n.interp.at = site{lvl.pos.In(c.file), lvl.name}
	defer func() { nl.n.interp.at = saved }()
	// In a glob, what interpolation inserts is literal text (see
	// interpolatePath), in the datadir too: both are part of the pattern.
	glob := lvl.kind == locGlob || lvl.kind == locGlobs
	// The datadir is relative to the config's folder, but an absolute one
	// stands alone (Ruby's Pathname#+), as does a version 3 one; Hiera 3's
	// default is the compiled environment's hieradata folder.
	tmpl, dir, top := lvl.datadir, c.root, nl.n.c.layerTop(c.root)
	switch {
	case lvl.envDatadir:
		tmpl, dir, top = path.Join(nl.n.c.envDir, "hieradata"), "", nl.n.c.layerTop(nl.n.c.envDir)
	case lvl.noRoot, path.IsAbs(lvl.datadir):
		dir = ""
	}
	dd := tmpl
	if !lvl.literalDatadir {
		var err *format.Error
		if dd, err = nl.n.interp.interpolatePath(tmpl, glob); err != nil {
			return nil, err
		}
	}
	if lvl.noRoot && !lvl.envDatadir && !path.IsAbs(dd) {
		return nil, &format.Error{Message: fmt.Sprintf("datadir %q is relative: Puppet resolves a Hiera 3 :datadir: against the working directory of its process, which hieracc cannot know", dd)}
	}
	// The datadir is held to the same rule as the paths below it: a fact
	// must not move it out of the folder the configuration names.
	datadir, err := nl.safeJoin("datadir", top, dir, tmpl, dd)
	if err != nil {
		return nil, err
	}
	if mt := nl.n.c.mountTop(datadir); mt != "" {
		top = mt // a datadir on the server's disk, which a mount supplies
	}
	// Messages name the datadir as Puppet does: an interpolation that came
	// out empty leaves its double slash ("data//dd").
	shownDir := datadir
	if dir != "" && strings.Contains(dd, "//") {
		if s := shownPath(dir, dd, datadir); s != "" {
			shownDir = strings.TrimRight(s, "/")
		}
	}
	resolve := func(tmpl string) (location, *format.Error) {
		p, err := nl.n.interp.interpolatePath(tmpl, glob)
		if err != nil {
			return location{}, err
		}
		if lvl.ext != "" && !strings.HasSuffix(p, lvl.ext) {
			p += lvl.ext // Hiera 3: the backend's extension
		}
		joined, err := nl.safeJoin("hierarchy path", top, datadir, tmpl, p)
		return location{joined, shownPath(shownDir, p, joined), tmpl}, err
	}
	var locs []location
	switch lvl.kind {
	case locPath, locPaths:
		for _, t := range lvl.locs {
			p, err := resolve(t)
			if err != nil {
				return nil, err
			}
			if c.isDefaultConfig && !nl.n.c.exists(p.path) {
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
			if outsideFS(p.path) {
				continue
			}
			matched, gerr := rubyGlob(nl.n.c.fsys, p.path)
			if gerr != nil {
				return nil, gerr
			}
			pattern := p.path
			if p.shown != "" {
				pattern = p.shown
			}
			for _, m := range matched {
				locs = append(locs, location{path: m, shown: globShown(pattern, m), original: pattern})
			}
		}
	case locMappedPaths:
		vars, err := nl.n.interp.scopeLookup(lvl.mapped[0], "mapped_path[0]")
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
		if len(elems) > maxLocations {
			return nil, limitError("hierarchy level '%s' maps %d values, more than %d", lvl.name, len(elems), maxLocations)
		}
		for _, e := range elems {
			nl.n.interp.local = map[string]any{lvl.mapped[1]: e}
			p, err := resolve(lvl.mapped[2])
			nl.n.interp.local = nil
			if err != nil {
				return nil, err
			}
			locs = append(locs, p)
		}
	case locURIs:
		for _, t := range lvl.locs {
			u, err := nl.n.interp.interpolatePath(t, false)
			if err != nil {
				return nil, err
			}
			locs = append(locs, location{path: u})
		}
	case locNone:
		if lvl.foreign {
			return []location{{path: c.file}}, nil // Puppet calls the function once, without a location
		}
		return nil, &format.Error{Message: fmt.Sprintf("hierarchy level '%s' names no data file (path, paths, glob, globs or mapped_paths)", lvl.name)}
	}
	if len(locs) > maxLocations {
		return nil, limitError("hierarchy level '%s' names %d data files, more than %d", lvl.name, len(locs), maxLocations)
	}
	return locs, nil
}

// interpolatePath interpolates a hierarchy path or datadir, where Puppet
// forbids lookup()/alias()/... . For a glob (literal set), the text it
// inserts has its glob characters escaped: a fact or certname holding "*"
// or "{a,b}" names one file, never other nodes' (Puppet would expand them;
// README, "Where hieracc differs").
func (ip *interpolator) interpolatePath(s string, literal bool) (string, *format.Error) {
	if !strings.Contains(s, "%{") {
		return s, nil
	}
	ip.globText = literal
	v, err := ip.interpolateString(s, false)
	ip.globText = false
	if err != nil {
		return "", asFormatError(err)
	}
	return ruby.ToS(v), nil
}

// escapeGlob escapes the characters Ruby's glob gives a meaning.
func escapeGlob(s string) string {
	if !strings.ContainsAny(s, globChars) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(globChars, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

const globChars = `\*?[]{}`

// shownPath is how Puppet names dir + p in messages (Ruby's Pathname#+):
// not cleaned, so an interpolation that came out empty leaves its double
// slash ("data/p//x.yaml"). Only that case is kept apart from the cleaned
// path; joined is returned otherwise ("" when it is the same).
func shownPath(dir, p, joined string) string {
	if !strings.Contains(p, "//") && !strings.Contains(dir, "//") || path.IsAbs(p) {
		return ""
	}
	rest := p
	for strings.HasPrefix(rest, "./") {
		rest = strings.TrimLeft(rest[2:], "/")
	}
	if strings.HasPrefix(rest, "../") || rest == "" {
		return ""
	}
	if shown := dir + "/" + rest; shown != joined {
		return shown
	}
	return ""
}

// globShown is how Puppet names a glob's match m in messages when the
// pattern holds a double slash (an interpolation came out empty): Ruby's
// Dir.glob keeps the pattern's text before its wildcards, so the match of
// "data/g//*.yml" is "data/g//x.yml". "" when that is m itself, or when
// the double slash follows a wildcard (not kept apart).
func globShown(pattern, m string) string {
	i := strings.LastIndex(pattern, "//")
	if i < 0 {
		return ""
	}
	lit := pattern[:i+2]
	if strings.ContainsAny(lit, globChars) {
		return ""
	}
	clean := path.Clean(lit) + "/"
	rest, ok := strings.CutPrefix(m, clean)
	if !ok {
		return ""
	}
	return lit + rest
}

// safeJoin joins a folder and an interpolated path (what, a "datadir" or a
// "hierarchy path", for messages) as Ruby's Pathname#+ does, refusing paths
// that interpolated values steer: a fact's value must never make hieracc
// read another node's data or a file like /etc/shadow. Paths that the
// repo's own hiera.yaml writes with ".." or "/" stay allowed, as long as
// they stay inside top, the input folder of their layer (see layerTop).
func (nl *nodeLayers) safeJoin(what, top, dir, tmpl, p string) (string, *format.Error) {
	if strings.ContainsRune(p, 0) {
		return "", &format.Error{Message: fmt.Sprintf("%s %q contains a NUL byte: refusing to read it", what, tmpl)}
	}
	if p != tmpl {
		if path.IsAbs(p) && !path.IsAbs(tmpl) {
			return "", &format.Error{Message: fmt.Sprintf("%s %q interpolates to the absolute path %q: refusing to read it", what, tmpl, p)}
		}
		if countDotDot(p) > countDotDot(tmpl) {
			return "", &format.Error{Message: fmt.Sprintf("%s %q interpolates to %q, whose \"..\" leaves the place the path names: refusing to read it", what, tmpl, p)}
		}
	}
	joined := path.Clean(path.Join(dir, p))
	if path.IsAbs(p) {
		joined = path.Clean(p)
	}
	if path.IsAbs(joined) {
		// On the Puppet server's disk: a mount supplies it, else it is
		// absent (outside.go). Never read here. An unmounted datadir is
		// warned of through the paths below it.
		if what == "datadir" {
			p, _ := nl.n.c.mapServer(joined)
			return p, nil
		}
		shown := tmpl
		if !path.IsAbs(tmpl) {
			shown = path.Join(dir, tmpl)
		}
		return nl.serverPath(joined, shown), nil
	}
	if !fs.ValidPath(joined) {
		return "", &format.Error{Message: fmt.Sprintf("%s %q resolves to %q, outside the control repo: refusing to read it", what, tmpl, joined)}
	}
	if !inside(joined, top) {
		return "", &format.Error{Message: fmt.Sprintf("%s %q resolves to %q, outside %s, the folder of its layer: refusing to read it", what, tmpl, joined, top)}
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
