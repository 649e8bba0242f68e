package main

// Paths as the repository has them, without --env: the state file that
// 'hieracc compile' leaves with its bundles records the folders it read,
// and a report names the files of those folders from the top of their git
// work tree (or, out of one, from the current folder).

import (
	"os"
	"path/filepath"

	"github.com/hieracc/hieracc/compiler/build"
)

// stateDisplay maps the paths the bundles of the output folder dir record
// (env/data/common.yaml) to the repository's, by the first of its state
// files whose folders are still there: the folder's own, else a shard's
// (in the folder, then in its subfolders, as a folder of shards' folders
// holds them); nil when it has none (a bare folder of bundles, or an
// output whose folders are gone): paths are then printed as recorded.
func stateDisplay(dir string) func(string) string {
	for _, state := range stateFiles(dir) {
		if display, ok := build.StatePaths(state, repoDisplay); ok {
			return display
		}
	}
	return nil
}

// stateFiles lists the state files of the output folder dir, in the order
// stateDisplay tries them.
func stateFiles(dir string) []string {
	var found, shards, sub []string
	if isFile(filepath.Join(dir, build.StateFile)) {
		found = append(found, filepath.Join(dir, build.StateFile))
	}
	entries, _ := os.ReadDir(dir) // sorted; none when dir is not a folder
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if _, ok := build.ShardOfStateFile(e.Name()); ok && isFile(p) {
			shards = append(shards, p)
		} else if e.Name()[0] != '.' && isDir(p) {
			sub = append(sub, p)
		}
	}
	found = append(found, shards...)
	if len(found) > 0 {
		return found
	}
	for _, d := range sub {
		inner, _ := os.ReadDir(d)
		for _, e := range inner {
			p := filepath.Join(d, e.Name())
			if _, ok := build.ShardOfStateFile(e.Name()); (ok || e.Name() == build.StateFile) && isFile(p) {
				found = append(found, p)
			}
		}
	}
	return found
}

// repoDisplay names a folder a compile read, real (absolute, symbolic
// links resolved), for a report: from the top of the git work tree holding
// it, "." for the top itself; out of one, from the current folder when it
// lies below it; else "" (the compiler's name is kept: an absolute path
// of another machine's, or a climb out of the current folder, would open
// nothing more surely).
func repoDisplay(real string) string {
	dir := real
	if !isDir(dir) {
		dir = filepath.Dir(dir)
	}
	if top, err := git(dir, nil, "rev-parse", "--show-toplevel"); err == nil && top != "" {
		if rel, ok := below(top, real); ok {
			return rel
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, ok := below(wd, real); ok {
			return rel
		}
	}
	return ""
}

// below is p relative to the folder top (both resolved), when p is top or
// lies inside it.
func below(top, p string) (string, bool) {
	top, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(top, p)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", false
	}
	return rel, true
}

// isFile reports whether p is a regular file (or a link to one).
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
