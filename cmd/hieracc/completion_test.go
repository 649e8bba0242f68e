package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestContribCurrent checks that the completions and the manual page in
// contrib/ are what the commands make now (go generate, or go test -update,
// writes them).
func TestContribCurrent(t *testing.T) {
	for file, args := range map[string][]string{
		"contrib/completion/hieracc.bash": {"completion", "bash"},
		"contrib/completion/_hieracc":     {"completion", "zsh"},
		"contrib/completion/hieracc.fish": {"completion", "fish"},
		"contrib/man/hieracc.1":           {"man"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitOK || stderr != "" {
			t.Fatalf("hieracc %v: exit %d, %s", args, code, stderr)
		}
		golden(t, filepath.FromSlash(file), stdout)
	}
}

// TestEveryFlagDocumented: every flag a command defines has a text in the
// command's help, which completions show.
func TestEveryFlagDocumented(t *testing.T) {
	for _, c := range cliSpec() {
		for _, f := range c.flags {
			if f.help == "" {
				t.Errorf("hieracc %s --%s: not described in 'hieracc help %s'", c.name, f.name, c.name)
			}
		}
	}
	spec := cliSpec()
	if len(spec) < 5 || len(spec[0].flags) < 10 {
		t.Fatalf("cliSpec found %d commands, the first with %d flags: the commands' flags are not read", len(spec), len(spec[0].flags))
	}
}

// TestCompletionScriptsParse checks the scripts' syntax with the shells
// that are installed.
func TestCompletionScriptsParse(t *testing.T) {
	for shell, args := range map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}} {
		path, err := exec.LookPath(args[0])
		if err != nil {
			t.Logf("%s is not installed: its script's syntax is not checked", shell)
			continue
		}
		_, stdout, _ := runCLI("completion", shell)
		cmd := exec.Command(path, args[1:]...)
		cmd.Stdin = bytes.NewReader([]byte(stdout))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s -n of 'hieracc completion %s': %v\n%s", shell, shell, err, out)
		}
	}
}
