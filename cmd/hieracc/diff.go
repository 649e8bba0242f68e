package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/bundlediff"
	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/facts/puppetdb"
)

var diffCmd = &command{
	name:     "diff",
	synopsis: "compare two compile outputs (or two git revisions), key by key",
	usage:    diffUsage,
	run:      runDiff,
}

type diffFlags struct {
	nodes, keys, ignoreKeys stringList
	format, git             string
	compile                 compileFlags // --git only: what to compile at each revision
	set                     map[string]bool
}

func runDiff(c *cmdEnv, args []string) int {
	var f diffFlags
	fl := flag.NewFlagSet("diff", flag.ContinueOnError)
	fl.Var(&f.nodes, "node", "")
	fl.Var(&f.keys, "key", "")
	fl.Var(&f.ignoreKeys, "ignore-key", "")
	fl.StringVar(&f.format, "format", "text", "")
	fl.StringVar(&f.git, "git", "", "")
	fl.StringVar(&f.compile.env, "env", "", "")
	fl.StringVar(&f.compile.modules, "modules", "", "")
	fl.StringVar(&f.compile.global, "global", "", "")
	fl.StringVar(&f.compile.environment, "environment", "production", "")
	fl.Var(&f.compile.facts, "facts", "")
	rest, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	f.set = map[string]bool{}
	fl.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })

	write := map[string]func(io.Writer, *bundlediff.Report, bundlediff.Options) error{
		"text": bundlediff.WriteText, "json": bundlediff.WriteJSON, "markdown": bundlediff.WriteMarkdown,
	}[f.format]
	if write == nil {
		return c.usageError("--format must be text, json or markdown, not %q", f.format)
	}
	filter := bundlediff.Filter{Nodes: f.nodes, Keys: f.keys, IgnoreKeys: f.ignoreKeys}
	if err := filter.Validate(); err != nil {
		return c.usageError("%v", err)
	}

	var oldDir, newDir, oldName, newName string
	if f.set["git"] {
		if msg := f.gitUsage(rest); msg != "" {
			return c.usageError("%s", msg)
		}
		tmp, err := os.MkdirTemp("", "hieracc-diff-")
		if err != nil {
			c.errorf("%v", err)
			return bundlediff.ExitTrouble
		}
		defer os.RemoveAll(tmp)
		if oldDir, newDir, oldName, newName, err = f.compileRevisions(tmp); err != nil {
			c.errorf("%v", err)
			return bundlediff.ExitTrouble
		}
	} else {
		for _, name := range []string{"env", "modules", "global", "environment", "facts"} {
			if f.set[name] {
				return c.usageError("--%s is for --git (what to compile at each revision); OLD and NEW are compiled already", name)
			}
		}
		if len(rest) != 2 {
			return c.usageError("give two folders of bundles, OLD and NEW (or --git REV1..REV2), not %s", plural(len(rest), "argument"))
		}
		if rest[0] == "" || rest[1] == "" {
			return c.usageError("OLD and NEW must name folders of bundles, not be empty")
		}
		oldDir, newDir, oldName, newName = rest[0], rest[1], rest[0], rest[1]
	}

	r, err := bundlediff.Compare(oldDir, newDir, filter)
	if err != nil {
		c.errorf("%v", cleanDiffErr(err))
		return bundlediff.ExitTrouble
	}
	r.Old, r.New = oldName, newName
	if err := write(c.stdout, r, bundlediff.Options{Color: isTerminal(c.stdout)}); err != nil {
		c.errorf("writing the report: %v", err)
		return bundlediff.ExitTrouble
	}
	return bundlediff.ExitCode(r, nil)
}

// cleanDiffErr drops the "stat " of a missing folder's message.
func cleanDiffErr(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return cleanPathErr(err)
	}
	return err
}

// isTerminal reports whether w is a terminal, the only place colour goes.
// NO_COLOR (no-color.org) turns it off there too.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// gitUsage checks the command line of --git; arguments that are not flags
// are facts paths, as for compile.
func (f *diffFlags) gitUsage(rest []string) string {
	f.compile.facts = append(f.compile.facts, rest...)
	switch {
	case f.compile.env == "":
		return "--env is required with --git: the environment folder, in the git work tree"
	case len(f.compile.facts) == 0:
		return "--facts is required with --git: facts files or folders of them (read from the work tree)"
	case f.compile.environment == "":
		return "--environment must not be empty"
	}
	if _, _, err := parseRange(f.git); err != nil {
		return err.Error()
	}
	return ""
}

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
func (f *diffFlags) compileRevisions(tmp string) (oldDir, newDir, oldName, newName string, err error) {
	from, to, _ := parseRange(f.git)
	top, err := repoTop(f.compile.env)
	if err != nil {
		return "", "", "", "", err
	}
	set, probs, err := gatherFacts(f.compile.facts, puppetdb.Config{}, nil, nil)
	if err != nil {
		return "", "", "", "", err
	}
	nodes, more := set.compile(func(string) bool { return true })
	probs = append(probs, more...)
	var factErrs []string
	for _, p := range probs {
		if !p.Warning {
			factErrs = append(factErrs, p.String())
		}
	}
	if len(factErrs) > 0 {
		return "", "", "", "", fmt.Errorf("facts cannot be loaded; nothing compared:\n%s", strings.Join(factErrs, "\n"))
	}
	if len(nodes) == 0 {
		return "", "", "", "", errors.New("--facts: no node to compile")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

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
		if err := checkout(top, commit, side, tree); err != nil {
			return "", "", "", "", fmt.Errorf("%s: %v", names[i], err)
		}
		dirs[i] = filepath.Join(side, "bundles")
		if err := f.compileAt(ctx, top, tree, commit, nodes, dirs[i]); err != nil {
			// Messages name the checkout: name the revision instead.
			return "", "", "", "", fmt.Errorf("%s: %s", names[i], strings.ReplaceAll(err.Error(), tree+string(filepath.Separator), ""))
		}
	}
	return dirs[0], dirs[1], names[0], names[1], nil
}

// compileAt compiles the checkout tree of one revision into out. Errors in
// the data do not stop it: bundles record them, and a diff shows the ones
// that appear or disappear.
func (f *diffFlags) compileAt(ctx context.Context, top, tree, commit string, nodes []compiler.Node, out string) error {
	cf := f.compile
	for _, p := range []*string{&cf.env, &cf.modules, &cf.global} {
		if *p == "" {
			continue
		}
		rel, inRepo, err := repoPath(top, *p)
		if err != nil {
			return err
		}
		if inRepo {
			*p = filepath.Join(tree, rel)
		}
	}
	if _, err := os.Stat(cf.env); err != nil {
		return fmt.Errorf("--env %s: not in this revision", f.compile.env)
	}
	in, _, err := cf.input()
	if err != nil {
		return err
	}
	in.Nodes = nodes
	res, err := compiler.Compile(ctx, in)
	if err != nil {
		return err
	}
	for _, b := range res.Bundles {
		b.Revision = commit
	}
	return writeBundles(out, res.Bundles)
}

// repoTop is the top of the git work tree holding dir (or, when dir does
// not exist in the work tree, its nearest existing parent).
func repoTop(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
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

// repoPath is p relative to the work tree top, when p lies inside it.
func repoPath(top, p string) (rel string, inRepo bool, err error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false, err
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

// git runs git in dir and returns its output, trimmed; an error holds
// what git printed.
func git(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %v", args[0], err)
	}
	return strings.TrimSpace(stdout.String()), nil
}

const diffUsage = `Usage:
  hieracc diff OLD NEW [flags]
  hieracc diff --git REV1..REV2 --env DIR --facts PATH... [flags]

Compares two outputs of 'hieracc compile' (folders of bundles) to review a
data change before it ships: for each node and key, what was added, removed
or changed, down to the path inside the value (a JSON Pointer, /bob/shell),
with type changes (443 and "443") and hash key order changes, and where the
old and the new value came from (hierarchy level, file:line). Errors that
appear, disappear or change message are changes too. Nodes with the same
changes are shown together; a summary line ends the report.

A value that only moved to another file or line is not a change: what
counts is what 'puppet lookup' answers. Bundles with equal digests are not
read past their header.

With --git, the control repo is compiled at both revisions of a git work
tree, then compared. --env, --modules and --global name folders of the work
tree, read at each revision (a folder outside the repository is read as it
is, for both); facts are read from the work tree, so both revisions are
compiled for the same nodes. REV1...REV2 compares REV2 with the merge base,
as git diff does. Git submodules are not checked out.

Flags:
  --node GLOB        compare only the nodes matching GLOB (path.Match syntax:
                     *, ?, [a-z]). Repeatable: a node matching any is kept.
  --key GLOB         report only the keys matching GLOB. Repeatable.
  --ignore-key GLOB  never report the keys matching GLOB. Repeatable.
  --format FORMAT    text (the default; in colour on a terminal, unless
                     NO_COLOR is set), json (one document; the schema is in
                     the README), or markdown (for a pull-request comment).
  --git REV1..REV2   compile the two revisions and compare them.
  --env DIR, --modules DIR, --global PATH, --environment NAME, --facts PATH...
                     with --git: as for 'hieracc compile'.

A node error (every lookup on the node fails) is reported whatever --key
says; a module's error is reported unless the --key and --ignore-key globs
leave out every key of the module.

Example:
  hieracc diff bundles-main/ bundles-pr/ --key 'ntp::*'
  hieracc diff --git origin/main...HEAD --env . --facts facts/ --format markdown

Exit codes (as diff's):
  0  no differences
  1  differences
  2  trouble: nothing to compare (an empty or missing folder, --node globs
     that match no node), a bundle that cannot be read, a failed compile,
     or a bad command line
`
