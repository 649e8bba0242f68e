package main

// diff --git: the control repo checked out at two revisions, each compiled
// as 'hieracc compile' would, into folders that diff then compares.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// parseRange splits REV1..REV2 (or REV1...REV2, from their merge base, as
// git diff reads it); an empty side is HEAD.
func parseRange(spec string) (from, to string, err error) {
	sep := ".."
	if strings.Contains(spec, "...") {
		sep = "..."
	}
	from, to, ok := strings.Cut(spec, sep)
	if !ok {
		return "", "", fmt.Errorf("--git wants a range REV1..REV2 (like HEAD~1..HEAD), not %q", spec)
	}
	if from == "" {
		from = "HEAD"
	}
	if to == "" {
		to = "HEAD"
	}
	for _, r := range []string{from, to} {
		if strings.HasPrefix(r, "-") {
			return "", "", fmt.Errorf("--git: %q is not a revision", r)
		}
	}
	if sep == "..." {
		from += "..." + to // resolved to the merge base by the caller
	}
	return from, to, nil
}

// compileRevisions checks out the control repo at both revisions of --git
// under tmp and compiles each with the compile flags, --env, --modules and
// --global naming folders of the work tree (a folder outside the repo is
// used as it is at both revisions). Facts come from the work tree, as
// octocatalog-diff does: the comparison is of data, for the same nodes.
func (f *diffFlags) compileRevisions(ctx context.Context, tmp string) (oldDir, newDir, oldName, newName string, err error) {
	from, to, _ := parseRange(f.git)
	top, err := repoTop(f.compile.env)
	if err != nil {
		return "", "", "", "", err
	}

	dirs, names := [2]string{}, [2]string{}
	for i, rev := range []string{from, to} {
		commit, err := resolveRev(top, rev)
		if err != nil {
			return "", "", "", "", err
		}
		if base, tip, ok := strings.Cut(rev, "..."); ok {
			rev = fmt.Sprintf("merge-base(%s, %s)", base, tip)
		}
		names[i] = fmt.Sprintf("%s (%s)", rev, commit[:min(len(commit), 12)])
		side := filepath.Join(tmp, []string{"old", "new"}[i])
		tree := filepath.Join(side, "tree")
		switch {
		case f.baseOut == "":
			err = checkout(top, commit, side, tree)
		case i == 0:
			err = checkoutTree(top, commit, tmp, filepath.Join(tmp, "tree"), f.factsOnly(top))
		default:
			err = updateTree(top, f.revs[0], commit, tmp, filepath.Join(tmp, "tree"), f.factsOnly(top))
		}
		if err != nil {
			return "", "", "", "", fmt.Errorf("%s: %v", names[i], err)
		}
		if f.baseOut != "" {
			// One tree, the old revision's then updated to the new one:
			// writing a fleet's files is most of a checkout's time.
			tree = filepath.Join(tmp, "tree")
		}
		dirs[i] = filepath.Join(side, "bundles")
		f.revs[i] = commit
		if f.baseOut != "" {
			// Each side starts from the output before it (the base's
			// for the old one), compiled again only where its inputs
			// differ: the same bundles as a full compile of the side.
			from := f.baseOut
			if i > 0 {
				from = dirs[0]
			}
			if err := copyOut(from, dirs[i]); err != nil {
				return "", "", "", "", fmt.Errorf("--base-out %s: %v", f.baseOut, err)
			}
		}
		if err := f.compileAt(ctx, top, tree, commit, dirs[i], i == 0); err != nil {
			var fe factsError
			if errors.As(err, &fe) {
				return "", "", "", "", err
			}
			// Messages name the checkout: name the revision instead.
			return "", "", "", "", fmt.Errorf("%s: %s", names[i], strings.ReplaceAll(err.Error(), tree+string(filepath.Separator), ""))
		}
	}
	return dirs[0], dirs[1], names[0], names[1], nil
}

// compileAt compiles the checkout tree of one revision into out. Errors in
// the data do not stop it: bundles record them, and a diff shows the ones
// that appear or disappear. Facts that cannot be loaded do: the diff would
// leave their nodes out. With --base-out, out holds a copy of an earlier
// output; relocated says that it was compiled elsewhere (--base-out
// itself), not from this tree by the compile before (the old side's, for
// the new one).
func (f *diffFlags) compileAt(ctx context.Context, top, tree, commit string, out string, relocated bool) error {
	cf := f.compile
	for _, a := range []struct {
		flag string
		p    *string
	}{{"--env", &cf.env}, {"--modules", &cf.modules}, {"--global", &cf.global}} {
		if *a.p == "" {
			continue
		}
		rel, inRepo, err := repoPath(top, *a.p)
		if err != nil {
			return err
		}
		if inRepo {
			given := *a.p
			*a.p = filepath.Join(tree, rel)
			if outOfTree(tree, *a.p) {
				return fmt.Errorf("%s %s: %w", a.flag, given, errLinkOutOfTree)
			}
		}
	}
	if _, err := os.Stat(cf.env); err != nil {
		return fmt.Errorf("--env %s: not in this revision", f.compile.env)
	}
	cfg := cf.config()
	cfg.Out, cfg.Revision, cfg.SourceRevision, cfg.KeepGoing, cfg.Full = out, commit, commit, true, true
	if f.baseOut != "" {
		// Incremental, from a copy of an earlier output: each bundle
		// records the digest of its own inputs, as compile's do, so that
		// one whose inputs did not change is kept. --base-out's was
		// compiled at another place: every input is read again. The old
		// side's was compiled from this very tree, updated in place since
		// (updateTree), into a sibling of out, so its state's stats hold:
		// only the files the new revision changed are read again.
		cfg.Revision, cfg.Full, cfg.Relocated = "", false, relocated
	}
	var stopMeter func()
	cfg.Progress, stopMeter = meter(f.compile.progress, f.stderr, "compile "+commit[:min(len(commit), 12)])
	r, err := build.Run(ctx, cfg)
	stopMeter()
	var factErrs []string
	if r != nil {
		for _, d := range r.Facts {
			if d.Severity == diagnostics.Error {
				factErrs = append(factErrs, d.String())
			}
		}
	}
	switch {
	case len(factErrs) > 0:
		return factsError(factErrs)
	case err != nil:
		return err
	case r.Nodes+r.Unchanged == 0:
		return factsError(nil)
	}
	return nil
}

// copyOut makes dst a copy of the output folder src (--base-out, or the
// old side's output), its files hard links where it can: a compile into
// dst replaces a file by renaming another over it, and never writes
// into one, so src is never changed. Files of other kinds than regular
// ones and folders (symbolic links) are not copied: a compile does not
// make them; nor are the folders of a sharded output (compile --shard
// K/N), which a compile of the whole fleet would not read: the copy of
// such an output is compiled in full.
func copyOut(src, dst string) error {
	st, err := os.Stat(src)
	switch {
	case err != nil:
		return fmt.Errorf("not a folder of bundles (the output of 'hieracc compile' of the base revision, or of an earlier one): %v", unwrapPath(err))
	case !st.IsDir():
		return errors.New("not a folder of bundles (the output of 'hieracc compile' of the base revision, or of an earlier one)")
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case rel != "." && filepath.Dir(rel) == "." && (build.IsTemp(d.Name()) || d.IsDir() && rel != format.SharedDetailsDir):
			if d.IsDir() {
				return fs.SkipDir // a killed run's, or a shard's
			}
			return nil // a killed run's
		case d.IsDir():
			return os.MkdirAll(to, 0o700)
		case !d.Type().IsRegular():
			return nil
		}
		if os.Link(p, to) == nil {
			return nil
		}
		return copyFile(p, to)
	})
}

// copyFile copies the regular file src to dst, a new file.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// unwrapPath is err without the path an fs.PathError names (the flag's
// value is named already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// errLinkOutOfTree: a folder of a revision is, or is under, a symbolic
// link its commit holds that leads out of the revision's tree (to
// /srv/secret, or into the other revision's): it is not followed, as a
// compile does not follow a link out of the folders it is given.
var errLinkOutOfTree = errors.New("in this revision, a symbolic link out of the repository, which hieracc does not follow")

// outOfTree reports whether the path p of the checkout tree leads out of
// it through a symbolic link. The links are those of the commit (git
// writes them as it stores them); a path that does not exist is not out
// of the tree (the compile then says it is missing).
func outOfTree(tree, p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	root, err := filepath.EvalSymlinks(tree)
	if err != nil {
		return true
	}
	rel, err := filepath.Rel(root, real)
	return err != nil || !filepath.IsLocal(rel) && rel != "."
}

// factsError is the trouble of facts that cannot be loaded, the same at
// every revision.
type factsError []string

func (e factsError) Error() string {
	if len(e) == 0 {
		return "--facts: no node to compile"
	}
	return fmt.Sprintf("facts cannot be loaded; nothing compared:\n%s", strings.Join(e, "\n"))
}

// repoTop is the top of the git work tree holding dir (or, when dir does
// not exist in the work tree, its nearest existing parent). It is the
// repository that holds dir as it is written: a symbolic link a work tree
// tracks (a pull request's env -> /srv/secret, or site -> a checkout of
// another repository) does not make it the repository the link leads
// into; other links (--env ~/env, a link to repo/env) are followed.
func repoTop(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if top := lexicalRepo(abs); top != "" {
		if t, err := git(top, nil, "rev-parse", "--show-toplevel"); err == nil {
			return filepath.EvalSymlinks(t)
		}
	}
	for !isDir(abs) && filepath.Dir(abs) != abs {
		abs = filepath.Dir(abs)
	}
	top, err := git(abs, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("--git: --env %s is not in a git work tree: %v", dir, err)
	}
	return filepath.EvalSymlinks(top)
}

// lexicalRepo is the innermost git work tree (a folder with a .git) on
// the way to the absolute path abs, where the way follows a symbolic link
// unless the work tree it is in tracks it (a link a commit holds, such as
// a pull request's env -> /srv/secret, checked out); "" when the way
// enters no work tree.
func lexicalRepo(abs string) string {
	sep := string(filepath.Separator)
restart:
	for range 255 { // each round follows one more link
		vol := filepath.VolumeName(abs)
		cur, top := vol+sep, ""
		parts := strings.Split(abs[len(vol):], sep)
		for i, c := range parts {
			if c == "" {
				continue
			}
			next := filepath.Join(cur, c)
			st, err := os.Lstat(next)
			if err != nil {
				return top
			}
			if st.Mode()&fs.ModeSymlink != 0 {
				if top != "" && tracked(top, next) {
					return top // the repository is the one around the link
				}
				real, err := filepath.EvalSymlinks(next)
				if err != nil {
					return top
				}
				abs = filepath.Join(append([]string{real}, parts[i+1:]...)...)
				continue restart // the way to the link's target may enter work trees of its own
			}
			if _, err := os.Lstat(filepath.Join(next, ".git")); err == nil {
				top = next
			}
			cur = next
		}
		return top
	}
	return ""
}

// tracked reports whether the work tree top tracks its path p (or cannot
// say).
func tracked(top, p string) bool {
	rel, err := filepath.Rel(top, p)
	if err != nil {
		return true
	}
	out, err := git(top, nil, "ls-files", "--", filepath.ToSlash(rel))
	return err != nil || out != ""
}

// repoPath is p relative to the work tree top, when p lies inside it. A
// path through a folder of the work tree is inside it, whatever symbolic
// links the work tree holds below top: those of each revision are read
// there (env -> /srv/secret in the work tree is still the repository's
// env).
func repoPath(top, p string) (rel string, inRepo bool, err error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false, err
	}
	// The part of abs that is top, which git named with its symbolic
	// links resolved; what follows is taken as it is written.
	for d, below := abs, ""; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil && r == top {
			if below == "" {
				below = "."
			}
			return below, true, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		below, d = filepath.Join(filepath.Base(d), below), parent
	}
	// Resolve symbolic links in the part that exists, as git did for top.
	existing, rest := abs, ""
	for {
		if _, err := os.Lstat(existing); err == nil || filepath.Dir(existing) == existing {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = filepath.Dir(existing)
	}
	if resolved, err := filepath.EvalSymlinks(existing); err == nil {
		abs = filepath.Join(resolved, rest)
	}
	rel, err = filepath.Rel(top, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false, nil
	}
	return rel, true, nil
}

// resolveRev names the commit of rev; "A...B" is their merge base.
func resolveRev(top, rev string) (string, error) {
	if base, tip, ok := strings.Cut(rev, "..."); ok {
		out, err := git(top, nil, "merge-base", "--end-of-options", base, tip)
		if err != nil {
			return "", fmt.Errorf("--git: no merge base of %s and %s: %v", base, tip, err)
		}
		return out, nil
	}
	out, err := git(top, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("--git: %q is not a commit of the repository in %s", rev, top)
	}
	return out, nil
}

// checkout writes the files of commit to tree, through a temporary index:
// the work tree, the repository's index and its worktree list are not
// touched, and export-ignore attributes (which git archive honours) do not
// apply.
func checkout(top, commit, side, tree string) error {
	if err := os.MkdirAll(side, 0o700); err != nil {
		return err
	}
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(side, "index")}
	if _, err := git(top, env, "read-tree", commit); err != nil {
		return err
	}
	_, err := git(top, env, "checkout-index", "--all", "--prefix="+tree+string(filepath.Separator))
	return err
}

// checkoutTree writes the files of commit to tree, but for those under
// the folders skip (repository paths), through the index in folder side
// (which updateTree then uses): the repository's work tree, index and
// worktree list are not touched.
func checkoutTree(top, commit, side, tree string, skip []string) error {
	if err := os.MkdirAll(tree, 0o700); err != nil {
		return err
	}
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(side, "index")}
	if _, err := git(top, env, "read-tree", commit); err != nil {
		return err
	}
	if len(skip) == 0 {
		_, err := git(top, env, "--work-tree="+tree, "checkout-index", "--all")
		return err
	}
	list, err := gitIn(top, env, "", "ls-files", "-z")
	if err != nil {
		return err
	}
	return checkoutPaths(top, env, tree, strings.Split(list, "\x00"), skip)
}

// updateTree makes tree, which checkoutTree wrote at commit from, the
// files of commit to: only those that differ are written (or removed).
func updateTree(top, from, to, side, tree string, skip []string) error {
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(side, "index")}
	changes, err := gitIn(top, env, "", "diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to)
	if err != nil {
		return err
	}
	if _, err := git(top, env, "read-tree", to); err != nil {
		return err
	}
	var write []string
	fields := strings.Split(changes, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		status, p := fields[i], fields[i+1]
		if skipped(p, skip) {
			continue
		}
		// A file, or a folder that the new revision makes a file
		// (listed before the files it held).
		if err := os.RemoveAll(filepath.Join(tree, filepath.FromSlash(p))); err != nil {
			return err
		}
		if status != "D" {
			write = append(write, p)
		}
	}
	return checkoutPaths(top, env, tree, write, nil)
}

// checkoutPaths writes the files paths of the index of env to tree, but
// for those under the folders skip.
func checkoutPaths(top string, env []string, tree string, paths, skip []string) error {
	var in strings.Builder
	for _, p := range paths {
		if p != "" && !skipped(p, skip) {
			in.WriteString(p + "\x00")
		}
	}
	if in.Len() == 0 {
		return nil
	}
	_, err := gitIn(top, env, in.String(), "--work-tree="+tree, "checkout-index", "-f", "-z", "--stdin")
	return err
}

// skipped reports whether the repository path p is under one of the
// folders skip.
func skipped(p string, skip []string) bool {
	for _, s := range skip {
		if p == s || strings.HasPrefix(p, s+"/") {
			return true
		}
	}
	return false
}

// factsOnly are the folders and files of the facts flags inside the
// repository top that no folder a compile reads holds or is in (facts are
// read from the work tree): --base-out does not check them out.
func (f *diffFlags) factsOnly(top string) []string {
	var read []string
	for _, p := range []string{f.compile.env, f.compile.modules, f.compile.global} {
		if p == "" {
			continue
		}
		rel, inRepo, err := repoPath(top, p)
		if err != nil || !inRepo || rel == "." {
			return nil // the layer may hold anything
		}
		read = append(read, filepath.ToSlash(rel))
	}
	var skip []string
	for _, p := range f.compile.facts {
		rel, inRepo, err := repoPath(top, p)
		if err != nil || !inRepo || rel == "." {
			continue
		}
		rel = filepath.ToSlash(rel)
		if !slices.ContainsFunc(read, func(r string) bool { return skipped(r, []string{rel}) || skipped(rel, []string{r}) }) {
			skip = append(skip, rel)
		}
	}
	return skip
}

// git runs git in dir and returns its output, trimmed; an error holds
// what git printed.
func git(dir string, env []string, args ...string) (string, error) {
	out, err := gitIn(dir, env, "", args...)
	return strings.TrimSpace(out), err
}

// gitIn is git with stdin as its standard input, its output as it is.
func gitIn(dir string, env []string, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %v", args[0], err)
	}
	return stdout.String(), nil
}
