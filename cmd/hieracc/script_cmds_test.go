package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/hieracc/hieracc/format/formattest"
)

// More commands and conditions for testdata/script.

// cmdExitcode runs a command and checks its exit code, keeping its output
// for stdout and stderr: exitcode 2 hieracc compile ...
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || neg {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// cmdBigfile writes a valid YAML data file of exactly N bytes, with one
// key, "big: 1", and comments; with -sparse, a file of N zero bytes that
// takes no room on disk (to be refused by its size, unread):
// bigfile [-sparse] FILE N.
func cmdBigfile(ts *testscript.TestScript, neg bool, args []string) {
	sparse := len(args) > 0 && args[0] == "-sparse"
	if sparse {
		args = args[1:]
	}
	if len(args) != 2 || neg {
		ts.Fatalf("usage: bigfile [-sparse] FILE BYTES")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	file := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(file), 0o755))
	if sparse {
		f, err := os.Create(file)
		ts.Check(err)
		ts.Check(f.Truncate(int64(n)))
		ts.Check(f.Close())
		return
	}
	head := "big: 1\n"
	line := "#" + strings.Repeat("x", 1022) + "\n"
	if n < len(head) {
		ts.Fatalf("bigfile: at least %d bytes", len(head))
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(head)
	for b.Len()+len(line) <= n {
		b.WriteString(line)
	}
	if rest := n - b.Len(); rest > 0 {
		b.WriteString("#" + strings.Repeat("x", rest-1))
	}
	ts.Check(os.WriteFile(file, []byte(b.String()), 0o644))
}

// scriptCondition adds conditions:
//
//	[root]     running as root, which reads files whatever their mode
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "root":
		return os.Geteuid() == 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// cmdPKI makes the keys and certificates of a test fleet in Puppet's
// layout (formattest.PKI): pki DIR [-ec] NODE...
func cmdPKI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: pki DIR [-ec] NODE...")
	}
	ec := len(args) > 1 && args[1] == "-ec"
	nodes := args[1:]
	if ec {
		nodes = args[2:]
	}
	ts.Check(formattest.PKI(ts.MkAbs(args[0]), ec, nodes...))
}
