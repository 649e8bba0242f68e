package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// sourceRevisionFlag is compile's --source-revision: the revision given,
// or, when the flag is not given, the git commit of the control repo
// holding dir when its work tree is clean (no change, no untracked file
// outside .gitignore); "" when there is none, git is not installed, or
// the tree has changes (the bundles then come from no commit).
type sourceRevisionFlag struct {
	value string
	set   bool
}

// maxSourceRevision bounds --source-revision: a commit, a tag or a build's
// name is far shorter, and a bundle's header (which holds it, with the
// node's name) is capped at 64 KiB. Checked when the flag is read, so that
// an incremental compile that writes no bundle refuses it too.
const maxSourceRevision = 4096

func (s *sourceRevisionFlag) String() string { return s.value }
func (s *sourceRevisionFlag) Set(v string) error {
	if len(v) > maxSourceRevision {
		return fmt.Errorf("%d bytes: at most %d (a commit, a tag, a build's name)", len(v), maxSourceRevision)
	}
	s.value, s.set = v, true
	return nil
}

// resolve returns the source revision of a compile of the control repo
// at dir.
func (s *sourceRevisionFlag) resolve(dir string) string {
	if s.set {
		return s.value
	}
	return gitCleanCommit(dir)
}

// gitCleanCommit returns the commit checked out in the git work tree that
// holds dir, when that tree has no change; "" otherwise.
func gitCleanCommit(dir string) string {
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	git := func(args ...string) (string, bool) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", abs}, args...)...)
		var out bytes.Buffer
		cmd.Stdout = &out
		if cmd.Run() != nil {
			return "", false
		}
		return strings.TrimSpace(out.String()), true
	}
	commit, ok := git("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if !ok || commit == "" {
		return ""
	}
	if status, ok := git("status", "--porcelain"); !ok || status != "" {
		return ""
	}
	return commit
}
