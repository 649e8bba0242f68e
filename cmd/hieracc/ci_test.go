package main

import (
	"bytes"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The files that wire hieracc into other people's CI, at the repository's
// top: the pre-commit framework's hook list, and the GitHub Action (whose
// script ci_action.txtar runs).
const (
	preCommitHooks = "../../.pre-commit-hooks.yaml"
	actionDir      = "../../.github/actions/hieracc/"
)

// preCommitHook is a hook as pre-commit's manifest schema defines it
// (pre_commit/clientlib.py, MANIFEST_HOOK_DICT): a field it does not know
// is an error here, as a misspelt one would be ignored there.
type preCommitHook struct {
	ID                      string   `yaml:"id"`
	Name                    string   `yaml:"name"`
	Entry                   string   `yaml:"entry"`
	Language                string   `yaml:"language"`
	Alias                   string   `yaml:"alias"`
	Files                   string   `yaml:"files"`
	Exclude                 string   `yaml:"exclude"`
	Types                   []string `yaml:"types"`
	TypesOr                 []string `yaml:"types_or"`
	ExcludeTypes            []string `yaml:"exclude_types"`
	AdditionalDependencies  []string `yaml:"additional_dependencies"`
	Args                    []string `yaml:"args"`
	AlwaysRun               *bool    `yaml:"always_run"`
	FailFast                *bool    `yaml:"fail_fast"`
	PassFilenames           *bool    `yaml:"pass_filenames"`
	Description             string   `yaml:"description"`
	LanguageVersion         string   `yaml:"language_version"`
	LogFile                 string   `yaml:"log_file"`
	MinimumPreCommitVersion string   `yaml:"minimum_pre_commit_version"`
	RequireSerial           *bool    `yaml:"require_serial"`
	Stages                  []string `yaml:"stages"`
	Verbose                 *bool    `yaml:"verbose"`
}

// TestPreCommitHooks: .pre-commit-hooks.yaml is a list of hooks with the
// fields pre-commit requires; hieracc-check runs `hieracc check` once (no
// file names) when a hiera.yaml or a data file changes, built by Go.
func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile(preCommitHooks)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var hooks []preCommitHook
	if err := dec.Decode(&hooks); err != nil {
		t.Fatalf("%s: %v", preCommitHooks, err)
	}
	if len(hooks) == 0 {
		t.Fatalf("%s: no hooks", preCommitHooks)
	}
	ids := map[string]bool{}
	for i, h := range hooks {
		if h.ID == "" || h.Name == "" || h.Entry == "" || h.Language == "" {
			t.Errorf("hook %d: id %q, name %q, entry %q, language %q: pre-commit requires each", i, h.ID, h.Name, h.Entry, h.Language)
		}
		if ids[h.ID] {
			t.Errorf("hook id %q twice", h.ID)
		}
		ids[h.ID] = true
		for _, re := range []string{h.Files, h.Exclude} {
			if _, err := regexp.Compile(re); err != nil {
				t.Errorf("hook %s: %v", h.ID, err)
			}
		}
	}
	i := slices.IndexFunc(hooks, func(h preCommitHook) bool { return h.ID == "hieracc-check" })
	if i < 0 {
		t.Fatal("no hieracc-check hook")
	}
	h := hooks[i]
	if h.Entry != "hieracc check" || h.Language != "golang" {
		t.Errorf("hieracc-check: entry %q, language %q; want `hieracc check` built by golang", h.Entry, h.Language)
	}
	if h.PassFilenames == nil || *h.PassFilenames {
		t.Error("hieracc-check: pass_filenames must be false: check reads the whole environment")
	}
	files := regexp.MustCompile(h.Files)
	for _, p := range []string{"hiera.yaml", "site/hiera.yaml", "data/common.yaml", "data/nodes/web01.yml", "data/secrets.eyaml", "data/common.json"} {
		if !files.MatchString(p) {
			t.Errorf("hieracc-check: files %q does not match %s", h.Files, p)
		}
	}
	for _, p := range []string{"manifests/site.pp", "README.md", "hiera.yaml.orig"} {
		if files.MatchString(p) {
			t.Errorf("hieracc-check: files %q matches %s", h.Files, p)
		}
	}
}

// TestActionMetadata: the action's action.yml is a composite action whose
// expressions name inputs it defines, whose steps run its run.sh in a mode
// run.sh has, and which gives run.sh every variable run.sh reads.
func TestActionMetadata(t *testing.T) {
	data, err := os.ReadFile(actionDir + "action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Inputs      map[string]struct {
			Description string `yaml:"description"`
			Required    bool   `yaml:"required"`
			Default     string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Value string `yaml:"value"`
		} `yaml:"outputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID    string            `yaml:"id"`
				Uses  string            `yaml:"uses"`
				Run   string            `yaml:"run"`
				Shell string            `yaml:"shell"`
				Env   map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Name == "" || action.Description == "" || action.Runs.Using != "composite" {
		t.Fatalf("action.yml: name %q, description %q, runs.using %q: want a composite action", action.Name, action.Description, action.Runs.Using)
	}
	for _, m := range regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)`).FindAllStringSubmatch(string(data), -1) {
		if _, ok := action.Inputs[m[1]]; !ok {
			t.Errorf("action.yml uses inputs.%s, which it does not define", m[1])
		}
	}
	for name, in := range action.Inputs {
		if in.Description == "" {
			t.Errorf("input %s: no description", name)
		}
	}

	script, err := os.ReadFile(actionDir + "run.sh")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(actionDir + "run.sh"); err != nil || st.Mode().Perm()&0o111 == 0 {
		t.Errorf("run.sh is not executable: %v", err)
	}
	modes := regexp.MustCompile(`(?m)^([a-z]+)\) run_|^([a-z]+)\) install_hieracc`).FindAllStringSubmatch(string(script), -1)
	var known []string
	for _, m := range modes {
		known = append(known, m[1]+m[2])
	}
	set := map[string]bool{}
	ids := map[string]bool{}
	var runLines string
	runs := 0
	for _, st := range action.Runs.Steps {
		ids[st.ID] = true
		if st.Run == "" {
			continue
		}
		runs++
		runLines += st.Run + "\n"
		if st.Shell != "bash" {
			t.Errorf("step %q: shell %q; a composite action's run step must name one (bash)", st.Run, st.Shell)
		}
		if !strings.HasPrefix(st.Run, `"$GITHUB_ACTION_PATH/run.sh" `) {
			t.Errorf("step %q: runs something else than run.sh", st.Run)
		}
		mode := strings.TrimPrefix(st.Run, `"$GITHUB_ACTION_PATH/run.sh" `)
		if mode == `"$HIERACC_MODE"` {
			mode = action.Inputs["mode"].Default
		}
		if !slices.Contains(known, mode) {
			t.Errorf("step %q: run.sh has no mode %q (it has %v)", st.Run, mode, known)
		}
		for k := range st.Env {
			set[k] = true
		}
	}
	if runs == 0 {
		t.Error("no step runs run.sh")
	}
	for _, m := range regexp.MustCompile(`\$\{?(HIERACC_[A-Z_]+)`).FindAllStringSubmatch(string(script), -1) {
		if !set[m[1]] {
			t.Errorf("run.sh reads %s, which action.yml does not set", m[1])
		}
	}
	for k := range set {
		if strings.HasPrefix(k, "HIERACC_") && !bytes.Contains(script, []byte(k)) && !strings.Contains(runLines, k) {
			t.Errorf("action.yml sets %s, which neither run.sh nor a step reads", k)
		}
	}
	for name, out := range action.Outputs {
		m := regexp.MustCompile(`steps\.([a-z]+)\.outputs\.([a-z-]+)`).FindStringSubmatch(out.Value)
		if m == nil || !ids[m[1]] || !bytes.Contains(script, []byte("output "+m[2]+" ")) {
			t.Errorf("output %s: %q is no output run.sh sets", name, out.Value)
		}
	}

	// The README's section on the action names every input and output.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n### GitHub Actions\n")
	section, _, _ = strings.Cut(section, "\n### ")
	for kind, names := range map[string][]string{"input": slices.Collect(maps.Keys(action.Inputs)), "output": slices.Collect(maps.Keys(action.Outputs))} {
		for _, name := range names {
			if !strings.Contains(section, "`"+name+"`") {
				t.Errorf("README.md, GitHub Actions: the %s `%s` is not named", kind, name)
			}
		}
	}
}
