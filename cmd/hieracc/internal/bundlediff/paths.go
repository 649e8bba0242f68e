package bundlediff

// Paths as the repository has them. A bundle records the files its values
// came from inside the compiler's own file system (env/data/common.yaml,
// modules/ntp/data/common.yaml), which does not depend on where the control
// repo was checked out. A report for people names them as the repository
// does (data/common.yaml for compile --env .): MapPaths rewrites them.

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// MapPaths rewrites, in place, every file the report names (the sources of
// each side, the file of an error, and that file where the error's message
// names it) by display, as build.Config.DisplayPaths gives it. The
// comparison is not affected: call it after Compare, before writing.
func (r *Report) MapPaths(display func(string) string) {
	r.MapSidePaths(display, display)
}

// MapSidePaths is MapPaths with a display for each side: old for OLD's
// files, new for NEW's (OLD and NEW compiled from folders at different
// places); a nil one leaves its side as it is.
func (r *Report) MapSidePaths(old, new func(string) string) {
	if old == nil && new == nil {
		return
	}
	seen := map[*Side]bool{} // entries and groups share their sides
	var mapChange func(c *Change)
	mapSide := func(s *Side, display func(string) string) {
		if s == nil || display == nil || seen[s] {
			return
		}
		seen[s] = true
		for i := range s.Sources {
			s.Sources[i].File = display(s.Sources[i].File)
		}
		if s.Err != nil && s.Err.File != "" {
			e := *s.Err // the bundle's own error is shared: a copy is mapped
			shown := display(e.File)
			e.Message = strings.ReplaceAll(e.Message, e.File, shown)
			e.File = shown
			s.Err = &e
		}
	}
	mapChange = func(c *Change) {
		mapSide(c.Old, old)
		mapSide(c.New, new)
		for i := range c.Parts {
			mapChange(&c.Parts[i])
		}
	}
	for i := range r.Entries {
		mapChange(&r.Entries[i].Change)
	}
	for gi := range r.Groups {
		for i := range r.Groups[gi].Changes {
			mapChange(&r.Groups[gi].Changes[i])
		}
	}
}

// Links makes links to the files of a repository at a revision, for the
// markdown and HTML reports: GitHub's blob URLs.
type Links struct {
	// Base is the repository's web address: GITHUB_SERVER_URL + "/" +
	// GITHUB_REPOSITORY in a GitHub workflow.
	Base string
	// Old and New are the revisions of each side's files: the report's
	// revisions (format.Header.SourceRevision) when known; GITHUB_SHA for
	// NEW in a workflow. Files of a side without one are not linked.
	Old, New string
	// Dir is the folder, inside the repository, that the report's paths
	// are relative to (the current folder of `hieracc diff`); "" for
	// the repository's top.
	Dir string
}

// LinksFromEnv gives the links of a GitHub workflow (GITHUB_SERVER_URL,
// GITHUB_REPOSITORY, GITHUB_SHA from getenv), for report r: nil outside
// one. Each side links to its own revision when the report knows it; NEW
// otherwise to GITHUB_SHA, the commit the workflow runs on.
func LinksFromEnv(getenv func(string) string, r *Report) *Links {
	server, repo := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY")
	if server == "" || repo == "" {
		return nil
	}
	l := &Links{Base: strings.TrimSuffix(server, "/") + "/" + repo, Old: r.OldRevision, New: r.NewRevision}
	if l.New == "" {
		l.New = getenv("GITHUB_SHA")
	}
	return l
}

// url is the address of line of file on a side (old), or "" when it has
// none: no revision for the side, or a file that is not in the repository
// (an absolute path, or one out of it).
func (l *Links) url(old bool, file string, line int) string {
	if l == nil {
		return ""
	}
	rev := l.New
	if old {
		rev = l.Old
	}
	if rev == "" || file == "" || !filepath.IsLocal(file) {
		return ""
	}
	p := path.Join(l.Dir, filepath.ToSlash(file))
	if !filepath.IsLocal(p) {
		return ""
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := fmt.Sprintf("%s/blob/%s/%s", l.Base, url.PathEscape(rev), strings.Join(segs, "/"))
	if line > 0 {
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}
