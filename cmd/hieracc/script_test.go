package main

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/compiler/build"
	"github.com/rogpeppe/go-internal/testscript"
)

// update rewrites golden files (and testscript cmp targets) in place:
// go test ./cmd/hieracc -update
var update = flag.Bool("update", false, "rewrite golden files with the current output")

func TestMain(m *testing.M) {
	// The tests compile this repository's testdata: its git state (which
	// commit, clean or not) must not reach their outputs through compile's
	// default --source-revision. git looks for no repository at or above
	// the module's root; tests of that default make their own in $WORK.
	// (A script's hieracc, this binary under that name, runs in $WORK and
	// gets the variable from the script's environment.)
	if filepath.Base(os.Args[0]) != "hieracc" {
		if root, err := filepath.Abs("../.."); err == nil {
			os.Setenv("GIT_CEILING_DIRECTORIES", root)
		}
	}
	testscript.Main(m, map[string]func(){
		"hieracc": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/<subcommand>_<topic>.txtar. Scripts see
// the example control repo as $EXAMPLE.
func TestScripts(t *testing.T) {
	example, err := filepath.Abs("../../testdata/example")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("EXAMPLE", example)
			e.Setenv("GIT_CEILING_DIRECTORIES", os.Getenv("GIT_CEILING_DIRECTORIES"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mode":         cmdMode,
			"notemp":       cmdNotemp,
			"exitcode":     cmdExitcode, // script_cmds_test.go
			"bigfile":      cmdBigfile,
			"pki":          cmdPKI,
			"cert":         cmdCert,
			"splitdetails": cmdSplitdetails,
			"corrupt":      cmdCorrupt,
		},
		Condition: scriptCondition,
	})
}

// cmdMode checks a file's permission bits: mode FILE 0640.
func cmdMode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: mode FILE PERM")
	}
	st, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	want, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	if got := st.Mode().Perm(); (got == fs.FileMode(want)) == neg {
		ts.Fatalf("%s: mode %#o, want %s%#o", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// cmdNotemp checks that a folder holds no temporary file of hieracc's
// atomic writes: notemp DIR.
func cmdNotemp(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: notemp DIR")
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	ts.Check(err)
	for _, e := range entries {
		if _, shard := build.ShardOfStateFile(e.Name()); shard || e.Name() == build.StateFile {
			continue // the incremental state: a finished file, not a temporary one
		}
		if strings.HasSuffix(e.Name(), ".tmp") || strings.HasPrefix(e.Name(), ".") {
			ts.Fatalf("%s: temporary file left behind: %s", args[0], e.Name())
		}
	}
}
