package puppetdiff

// Asking both sides: real Puppet through batch.rb (one Ruby process for all
// the checks of a case) and hieracc through its command line.

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Answer is what one side answered to one check.
type Answer struct {
	Status  string `json:"status"`            // "value", "not_found" or "error"
	JSON    string `json:"json,omitempty"`    // the value as --render-as json printed it
	Message string `json:"message,omitempty"` // the error's message
}

func (a Answer) String() string {
	switch a.Status {
	case "value":
		return a.JSON
	case "error":
		return "error: " + a.Message
	}
	return a.Status
}

//go:embed batch.rb
var batchRB []byte

// Puppet asks real Puppet. PuppetInstalled says whether it can.
type Puppet struct {
	script string // batch.rb, written out
}

// PuppetInstalled reports why real Puppet cannot be asked, or "" when it can.
func PuppetInstalled() string {
	if _, err := exec.LookPath("puppet"); err != nil {
		return "puppet is not installed (apt-get install -y puppet)"
	}
	if _, err := exec.LookPath("ruby"); err != nil {
		return "ruby is not installed"
	}
	return ""
}

// NewPuppet writes the Ruby driver into dir.
func NewPuppet(dir string) (*Puppet, error) {
	p := filepath.Join(dir, "batch.rb")
	return &Puppet{script: p}, os.WriteFile(p, batchRB, 0o644)
}

// Answer runs every check of the case in caseDir (written by Case.Write) in
// one Puppet process.
func (p *Puppet) Answer(caseDir string, checks []Check) ([]Answer, error) {
	if len(checks) == 0 {
		return nil, nil
	}
	checksJSON, err := json.Marshal(checks)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "puppetdiff-run")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cf, rf := filepath.Join(tmp, "checks.json"), filepath.Join(tmp, "results.jsonl")
	if err := os.WriteFile(cf, checksJSON, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("ruby", p.script, caseDir, cf, rf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	raw, err := os.ReadFile(rf)
	if err != nil {
		return nil, fmt.Errorf("puppet: %v (%v)\n%s", err, runErr, stderr.String())
	}
	var out []Answer
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var a Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("puppet: bad result line %q: %v", sc.Text(), err)
		}
		out = append(out, a)
	}
	if len(out) != len(checks) {
		return nil, fmt.Errorf("puppet answered %d of %d checks (%v)\n%s", len(out), len(checks), runErr, stderr.String())
	}
	return out, nil
}

// Hieracc asks hieracc through its command line: the binary at Path.
type Hieracc struct {
	Path string
}

// BuildHieracc builds the hieracc command into dir.
func BuildHieracc(dir string) (*Hieracc, error) {
	bin := filepath.Join(dir, "hieracc")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/hieracc/hieracc/cmd/hieracc")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build hieracc: %v\n%s", err, out)
	}
	return &Hieracc{Path: bin}, nil
}

// Answer compiles the case in caseDir with `hieracc compile --keep-going`
// and runs every check as one `hieracc lookup --render-as json`. The case's
// flags are those of the conformance tests: the global layer is global/, or
// an empty confdir (Puppet's default global config over nothing).
func (h *Hieracc) Answer(caseDir string, checks []Check) ([]Answer, error) {
	tmp, err := os.MkdirTemp("", "puppetdiff-hieracc")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out, global := filepath.Join(tmp, "out"), filepath.Join(caseDir, "global")
	if !isDir(global) {
		global = filepath.Join(tmp, "global")
		if err := os.Mkdir(global, 0o755); err != nil {
			return nil, err
		}
	}
	args := []string{"compile", "--keep-going", "--jobs", "1", "--env", filepath.Join(caseDir, "env"),
		"--facts", filepath.Join(caseDir, "nodes"), "--out", out, "--global", global}
	if isDir(filepath.Join(caseDir, "modules")) {
		args = append(args, "--modules", filepath.Join(caseDir, "modules"))
	}
	code, stdout, stderr := h.run(args...)
	if code != 0 && code != 1 || strings.Contains(stderr, "internal error") {
		return nil, fmt.Errorf("hieracc compile: exit %d\n%s%s", code, stdout, stderr)
	}
	answers := make([]Answer, len(checks))
	for i, c := range checks {
		args := append([]string{"lookup", "--bundle", out, "--node", c.Node, "--render-as", "json"}, c.Merge.args()...)
		code, stdout, stderr := h.run(append(args, "--", c.Key)...)
		msg := strings.TrimSpace(strings.TrimPrefix(stderr, "hieracc lookup: "))
		switch {
		case code == 0:
			answers[i] = Answer{Status: "value", JSON: strings.TrimSpace(stdout)}
		case code == 1 && msg == fmt.Sprintf("Function lookup() did not find a value for the name '%s'", c.Key):
			answers[i] = Answer{Status: "not_found"}
		case code == 1:
			answers[i] = Answer{Status: "error", Message: msg}
		default:
			return nil, fmt.Errorf("hieracc lookup %s: exit %d\n%s%s", c, code, stdout, stderr)
		}
	}
	return answers, nil
}

func (h *Hieracc) run(args ...string) (int, string, string) {
	cmd := exec.Command(h.Path, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, o.String(), e.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), o.String(), e.String()
	}
	return -1, o.String(), err.Error()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
