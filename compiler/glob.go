package compiler

// Globs in hierarchies (glob, globs), expanded as Ruby's Dir.glob does for
// Hiera, within the bounds of limits.go.

import (
	"io/fs"
	"path"
	"strings"

	"github.com/hieracc/hieracc/format"
)

// rubyGlob expands a glob as Ruby's Dir.glob does for Hiera: braces, *, ?,
// [...], and ** across directories; wildcards do not match a leading dot;
// directories are dropped. Each directory's entries are taken in name
// order, a sub-directory matched by ** searched where its name sorts (so
// "a/x.yaml" comes before "a.yaml", as in Ruby). A glob that asks for more
// patterns or directory entries than hieracc's limits is an error.
func rubyGlob(fsys fs.FS, pattern string) ([]string, *format.Error) {
	pats, ok := expandBraces(pattern, maxGlobPatterns)
	if !ok {
		return nil, limitError("glob %q expands to more than %d patterns", pattern, maxGlobPatterns)
	}
	g := globber{fsys: fsys}
	for _, p := range pats {
		var segs []string
		for _, s := range strings.Split(path.Clean(p), "/") {
			if s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
				continue // "**/**" is "**" (Ruby returns each file once)
			}
			segs = append(segs, s)
		}
		if !g.segs(".", segs) {
			if len(g.out) > maxLocations {
				return nil, limitError("glob %q matches more than %d data files", pattern, maxLocations)
			}
			return nil, limitError("glob %q reads more than %d directory entries", pattern, maxGlobEntries)
		}
	}
	return g.out, nil
}

// globber walks the folders a glob names, counting what it reads.
type globber struct {
	fsys    fs.FS
	out     []string
	entries int // directory entries read so far
}

// readDir reads a folder's entries (sorted by name), within the budget.
func (g *globber) readDir(dir string) ([]fs.DirEntry, bool) {
	entries, _ := fs.ReadDir(g.fsys, dir)
	g.entries += len(entries) + 1
	return entries, g.entries <= maxGlobEntries
}

// segs matches the pattern segments below dir; false when over budget.
func (g *globber) segs(dir string, segs []string) bool {
	if len(segs) == 0 {
		st, err := fs.Stat(g.fsys, dir)
		if err == nil && !st.IsDir() || err != nil && isLink(g.fsys, dir) {
			// A file, or a link that cannot be followed here (out of its
			// folder, as Ruby's glob lists it): reading it says how.
			g.out = append(g.out, dir)
		}
		return len(g.out) <= maxLocations
	}
	seg, rest := segs[0], segs[1:]
	join := func(name string) string {
		if dir == "." {
			return name
		}
		return dir + "/" + name
	}
	if seg == "**" && len(rest) == 0 {
		seg = "*" // a trailing ** matches names, as * does
	}
	if seg == "**" {
		// Zero or more folders: each entry is matched against what follows
		// the ** here, and a folder is searched again, in name order.
		entries, ok := g.readDir(dir)
		if !ok {
			return false
		}
		for _, e := range entries {
			name := e.Name()
			if matchName(rest[0], name) && !g.segs(join(name), rest[1:]) {
				return false
			}
			if e.IsDir() && !strings.HasPrefix(name, ".") && !g.segs(join(name), segs) {
				return false
			}
		}
		return true
	}
	if !strings.ContainsAny(seg, "*?[\\") {
		return g.segs(join(seg), rest)
	}
	entries, ok := g.readDir(dir)
	if !ok {
		return false
	}
	for _, e := range entries {
		if matchName(seg, e.Name()) && !g.segs(join(e.Name()), rest) {
			return false
		}
	}
	return true
}

// matchName matches one path segment: wildcards do not match a leading
// dot unless the pattern starts with one.
func matchName(seg, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
		return false
	}
	if !strings.ContainsAny(seg, "*?[\\") {
		return seg == name
	}
	ok, _ := path.Match(seg, name)
	return ok
}

// expandBraces expands {a,b} alternatives in order, as Ruby's glob does;
// false when that gives more than max patterns.
func expandBraces(p string, max int) ([]string, bool) {
	var out []string
	ok := expandBracesInto(p, max, &out)
	return out, ok
}

func expandBracesInto(p string, max int, out *[]string) bool {
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
				for _, a := range alts {
					if !expandBracesInto(p[:start]+a+p[i+1:], max, out) {
						return false
					}
				}
				return true
			}
		}
	}
	*out = append(*out, p)
	return len(*out) <= max
}

// isLink reports whether p is a symbolic link (false when the FS does not
// show its links).
func isLink(fsys fs.FS, p string) bool {
	rl, ok := fsys.(fs.ReadLinkFS)
	if !ok {
		return false
	}
	st, err := rl.Lstat(p)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}
