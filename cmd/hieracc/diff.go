package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/bundlediff"
	"github.com/hieracc/hieracc/cmd/hieracc/internal/progress"
	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/runtime"
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
	baseOut                 string    // --base-out: an earlier compile to build on (--git)
	revs                    [2]string // --git: the commits compared
	nodeList                string    // --nodes: summary or full
	showSecrets             bool
	ignoreOrder             bool
	compile                 compileFlags // --git only: what to compile at each revision
	stderr                  io.Writer    // where progress goes
	set                     map[string]bool
}

func runDiff(c *cmdEnv, args []string) int {
	var f diffFlags
	fl := flag.NewFlagSet("diff", flag.ContinueOnError)
	fl.Var(&f.nodes, "node", "")
	fl.Var(&f.keys, "key", "")
	fl.Var(&f.ignoreKeys, "ignore-key", "")
	fl.StringVar(&f.format, "format", "text", "")
	fl.StringVar(&f.nodeList, "nodes", "summary", "")
	fl.StringVar(&f.git, "git", "", "")
	fl.StringVar(&f.baseOut, "base-out", "", "")
	fl.BoolVar(&f.showSecrets, "show-secrets", false, "")
	fl.BoolVar(&f.ignoreOrder, "ignore-order-changes", false, "")
	fl.StringVar(&f.compile.env, "env", "", "")
	fl.StringVar(&f.compile.modules, "modules", "", "")
	fl.StringVar(&f.compile.global, "global", "", "")
	fl.StringVar(&f.compile.environment, "environment", "production", "")
	fl.Var(&f.compile.facts, "facts", "")
	fl.Var(&f.compile.factOverrides, "fact-override", "")
	fl.StringVar(&f.compile.progress, "progress", "auto", "")
	f.compile.eyamlFlags(fl)
	f.compile.rubyFlags(fl)
	rest, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	f.set = map[string]bool{}
	fl.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })

	write := map[string]func(io.Writer, *bundlediff.Report, bundlediff.Options) error{
		"text": bundlediff.WriteText, "json": bundlediff.WriteJSON, "markdown": bundlediff.WriteMarkdown,
		"github": bundlediff.WriteGitHub, "html": bundlediff.WriteHTML,
	}[f.format]
	if write == nil {
		return c.usageError("--format must be text, json, markdown, github or html, not %q", f.format)
	}
	f.stderr = c.term
	if !slices.Contains(progress.Modes, f.compile.progress) {
		return c.usageError("--progress must be %s, not %q", strings.Join(progress.Modes, ", "), f.compile.progress)
	}
	if f.nodeList != "summary" && f.nodeList != "full" {
		return c.usageError("--nodes must be summary or full, not %q", f.nodeList)
	}
	filter := bundlediff.Filter{Nodes: f.nodes, Keys: f.keys, IgnoreKeys: f.ignoreKeys, ShowSecrets: f.showSecrets, IgnoreOrder: f.ignoreOrder}
	if err := filter.Validate(); err != nil {
		return c.usageError("%v", err)
	}

	var oldDir, newDir, oldName, newName string
	var ctx context.Context // --git: done at a signal
	if f.set["git"] {
		if msg := f.gitUsage(rest); msg != "" {
			return c.usageError("%s", msg)
		}
		// The temporary folder holds both revisions' bundles, decrypted
		// secrets and all: SIGINT, and SIGTERM or SIGHUP (how CI cancels
		// a job), stop the compiles or the comparison, and it is removed
		// before the exit (the deferred calls run in reverse order: the
		// signals stay caught until it is gone).
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer stop()
		tmp, err := os.MkdirTemp("", "hieracc-diff-")
		if err != nil {
			c.errorf("%v", err)
			return bundlediff.ExitTrouble
		}
		defer os.RemoveAll(tmp)
		if oldDir, newDir, oldName, newName, err = f.compileRevisions(ctx, tmp); err != nil {
			if ctx.Err() != nil {
				err = errInterrupted
			}
			c.errorf("%v", err)
			return bundlediff.ExitTrouble
		}
	} else {
		for _, name := range []string{"environment", "facts", "fact-override", "ruby-backends", "keys", "base-out"} {
			if f.set[name] {
				return c.usageError("--%s is for --git (what to compile at each revision); OLD and NEW are compiled already", name)
			}
		}
		if (f.set["modules"] || f.set["global"]) && !f.set["env"] {
			return c.usageError("--modules and --global need --env: with OLD and NEW, they name the folders compiled, to print files as the repository has them")
		}
		if len(rest) != 2 {
			return c.usageError("give two folders of bundles, OLD and NEW (or --git REV1..REV2), not %s", plural(len(rest), "argument"))
		}
		if rest[0] == "" || rest[1] == "" {
			return c.usageError("OLD and NEW must name folders of bundles, not be empty")
		}
		oldDir, newDir, oldName, newName = rest[0], rest[1], rest[0], rest[1]
	}

	// The comparison keeps little alive (the views and shared details
	// files of the slices at hand, the distinct changes, the nodes'
	// names) and makes much garbage: collect less often, within a bound.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(384 << 20))
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	show, stop := meter(f.compile.progress, f.stderr, "diff")
	r, err := compare(ctx, oldDir, newDir, filter, show)
	stop()
	if err != nil {
		c.errorf("%v", cleanDiffErr(err))
		return bundlediff.ExitTrouble
	}
	r.Old, r.New = oldName, newName
	if f.baseOut != "" {
		// The bundles kept from --base-out carry the revision they were
		// compiled from: each side is its commit, as a full compile of
		// it would record in every bundle.
		r.OldRevision, r.NewRevision = f.revs[0], f.revs[1]
	}
	// Files as the repository has them: the bundles name them inside
	// compile's own file system (env/data/common.yaml). Without --env,
	// the folders each side's compile read say where they are, as its
	// state file records them; a side without one (a bare folder of
	// bundles, or its folders gone) is named as the other is.
	if f.compile.env == "" {
		oldShow, newShow := stateDisplay(oldDir), stateDisplay(newDir)
		if oldShow == nil {
			oldShow = newShow
		}
		if newShow == nil {
			newShow = oldShow
		}
		r.MapSidePaths(oldShow, newShow)
	} else {
		display, err := build.Config{Env: f.compile.env, Modules: f.compile.modules, Global: f.compile.global}.DisplayPaths()
		switch {
		case err == nil:
			r.MapPaths(display)
		case f.set["git"]:
			// The folders were read at each revision; the work tree
			// may lack them. Files are then named as compile names them.
			c.errorf("warning: files are named as the bundles record them: %v", err)
		default:
			c.errorf("%v", err)
			return bundlediff.ExitTrouble
		}
	}
	o := bundlediff.Options{Color: isTerminal(c.stdout), FullNodes: f.nodeList == "full", Links: bundlediff.LinksFromEnv(os.Getenv, r)}
	if o.Links != nil && f.compile.env != "" {
		o.Links.Dir = workDirInRepo(f.compile.env)
	}
	if err := write(c.stdout, r, o); err != nil {
		c.errorf("writing the report: %v", err)
		return bundlediff.ExitTrouble
	}
	return bundlediff.ExitCode(r, nil)
}

// errInterrupted: a signal stopped diff --git.
var errInterrupted = errors.New("interrupted; nothing compared")

// compare is bundlediff.Compare, given up when ctx (if not nil) is done:
// it only reads the folders, which may then be removed under it.
func compare(ctx context.Context, oldDir, newDir string, filter bundlediff.Filter, progress func(done, total int)) (*bundlediff.Report, error) {
	if ctx == nil {
		return bundlediff.CompareProgress(oldDir, newDir, filter, progress)
	}
	type result struct {
		r   *bundlediff.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := bundlediff.CompareProgress(oldDir, newDir, filter, progress)
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		return res.r, res.err
	case <-ctx.Done():
		return nil, errInterrupted
	}
}

// workDirInRepo is the current folder relative to the top of the git
// work tree holding env ("" at the top), where the paths of a report are
// relative to; "" when unknown.
func workDirInRepo(env string) string {
	top, err := repoTop(env)
	if err != nil {
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if wd, err = filepath.EvalSymlinks(wd); err != nil {
		return ""
	}
	rel, err := filepath.Rel(top, wd)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return ""
	}
	if rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// cleanDiffErr drops the "stat " of a missing folder's message; a
// missing shared details file is said as the runtime says it.
func cleanDiffErr(err error) error {
	if errors.Is(err, os.ErrNotExist) && !errors.Is(err, runtime.ErrNoSharedDetails) {
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
	if msg := f.compile.checkRuby(); msg != "" {
		return msg
	}
	if f.set["base-out"] && f.baseOut == "" {
		return "--base-out must name a folder of bundles, not be empty"
	}
	if msg := f.compile.parseOverrides(); msg != "" {
		return msg
	}
	if _, _, err := parseRange(f.git); err != nil {
		return err.Error()
	}
	return ""
}

const diffUsage = `Usage:
  hieracc diff OLD NEW [flags]
  hieracc diff --git REV1..REV2 --env DIR --facts PATH... [flags]

Compares two outputs of 'hieracc compile' (folders of bundles) to review a
data change before it ships: for each node and key, what was added, removed
or changed, down to the path inside the value (a JSON Pointer, /bob/shell),
with type changes (443 and "443") and hash key order changes, and where the
old and the new value came from (hierarchy level, file:line). Errors that
appear, disappear or change message are changes too. A summary comes
first; then each distinct change once, with the nodes it touches. A
changed array is shown whole, old beside new, with its elements' changes
inside it.

OLD and NEW may each be a folder of the folders of a compile's shards
(compile --shard K/N): their bundles are read as one folder. A node with
two bundles, or a missing shard (each shard's folder holds its state file,
.hieracc-state-K-of-N.json), is trouble.

A value that only moved to another file or line is not a change: what
counts is what 'puppet lookup' answers. Bundles with equal digests are not
decoded, but every bundle is checked whole (length, digest): a damaged one
is trouble, never "unchanged". The others are read with their shared
details files (details/ beside each bundle, where the values came from): a
missing or damaged one is trouble too.

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
                     the README), markdown (for a pull-request comment,
                     cut to fit one: under 60,000 bytes), github (GitHub
                     Actions annotations on the changed data lines), or
                     html (one self-contained page, for a CI artifact).
  --ignore-order-changes
                     leave out changes that only reorder an array or a
                     hash's keys.
  --nodes LIST       summary (the default): the nodes of each change by name
                     up to five, else by patterns of their names with counts,
                     web*.fra1.example.net (1200 of 1250); full: every name.
                     JSON always lists every node.
  --env DIR, --modules DIR, --global PATH
                     with OLD NEW: the folders compiled, as given to
                     compile; files are then named as the repository has
                     them (data/common.yaml for --env .), not as bundles
                     record them (env/data/common.yaml). Without them, each
                     side's files are named from the folders its compile
                     read, as its state file records them: from the top of
                     their git work tree (or the current folder); a side
                     without one is named as the other; as recorded when
                     neither has one or the folders are gone.
  --show-secrets     show the values of keys holding text decrypted from
                     eyaml's ENC[...]; otherwise such a key is reported as
                     one change, with where its values came from, not them.
  --git REV1..REV2   compile the two revisions and compare them.
  --base-out DIR     with --git: an output of 'hieracc compile' of REV1 (or
                     of an older revision: CI's cache of the base branch's
                     output), by the same hieracc. Each revision is compiled
                     into a copy of it (DIR is not changed), again only for
                     the nodes whose data or facts differ; the report is
                     the one without it.
  --progress WHEN    auto (the default) shows the comparison's progress (and
                     with --git each compile's) on stderr when it is a
                     terminal; always; never.
  --env DIR, --modules DIR, --global PATH, --environment NAME, --facts PATH...,
  --fact-override NAME=JSON, --pkcs7-private-key PATH, --pkcs7-public-key PATH,
  --ruby-backends MODE, --keys FILE
                     with --git: as for 'hieracc compile' (its --puppetdb
                     and --environment-from-facts are not taken here).

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
     that match no node), a bundle that cannot be read or is damaged (on
     either side, or on one only), a failed compile, or a bad command line
`
