package diagnostics

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
)

// update rewrites golden files: go test ./compiler/diagnostics -update
var update = flag.Bool("update", false, "rewrite golden files with the current output")

const parseErr = "Unable to parse (env/data/common.yaml): did not find expected ',' or ']' while parsing a flow sequence at line 77 column 6"

// fleet is what a compile of 3,000 nodes reports when common.yaml does not
// parse: the file once for the run, then once per node; a warning on 2
// nodes, an error on one key of one node, and a facts file error.
func fleet() []Diagnostic {
	broken := Diagnostic{Pos: format.Pos{File: "env/data/common.yaml", Line: 78, Column: 1}, Message: parseErr}
	ds := []Diagnostic{{Message: "nodes/bad.yaml: facts file is not a hash"}, broken}
	for i := range 3000 {
		d := broken
		d.Node = fmt.Sprintf("web%04d.example.net", i)
		ds = append(ds, d)
	}
	for _, n := range []string{"ci01.example.org", "ci02.example.org"} {
		ds = append(ds, Diagnostic{Severity: Warning, Pos: format.Pos{File: "env/hiera.yaml", Line: 11, Column: 5},
			Level: "Datacenter", Node: n, Message: "Undefined variable '::datacenter'"})
	}
	ds = append(ds, Diagnostic{Pos: format.Pos{File: "env/data/roles/web.yaml", Line: 3, Column: 7}, Key: "motd", Level: "Role",
		Node: "web0001.example.net", Message: "Unknown interpolation method 'upcase'\nsecond line, 100% sure: really"})
	return ds
}

// TestGroupFleet: one broken file in a 3,000-node compile is one line.
func TestGroupFleet(t *testing.T) {
	gs := GroupAll(fleet())
	if len(gs) != 4 {
		t.Fatalf("%d groups, want 4", len(gs))
	}
	if n := len(gs[1].Nodes); n != 3000 || gs[1].Message != parseErr {
		t.Errorf("group 1: %d nodes, message %q; want the parse error on 3000", n, gs[1].Message)
	}
	var b bytes.Buffer
	if err := Write(&b, gs, Text, Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 5 { // the last message has two lines
		t.Errorf("%d lines, want 5:\n%s", len(lines), b.String())
	}
	if n := strings.Count(b.String(), parseErr); n != 1 {
		t.Errorf("the parse error is printed %d times, want once", n)
	}
	var v bytes.Buffer
	Write(&v, gs, Text, Options{Verbose: true})
	if !strings.Contains(v.String(), "web2999.example.net") || strings.Contains(v.String(), "more)") {
		t.Errorf("--verbose does not name every node")
	}
}

// TestFormats pins the three renderings: go test -update rewrites
// testdata/*.golden.
func TestFormats(t *testing.T) {
	gs := GroupAll(fleet())
	for _, f := range Formats {
		t.Run(f, func(t *testing.T) {
			format, err := ParseFormat(f)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := Write(&b, gs, format, Options{}); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if format == JSON { // 3,000 names: keep the golden file short
				got = strings.ReplaceAll(got, `","web`, "\",\n\"web")
				got = strings.Join(slicesHeadTail(strings.Split(got, "\n"), 8), "\n")
			}
			file := filepath.Join("testdata", f+".golden")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s differs (go test -update rewrites it) (-want +got):\n%s", file, d)
			}
		})
	}
	if _, err := ParseFormat("yaml"); err == nil || err.Error() != `must be text, json, github, not "yaml"` {
		t.Errorf("ParseFormat(yaml) = %v", err)
	}
}

func slicesHeadTail(s []string, n int) []string {
	if len(s) <= 2*n {
		return s
	}
	return append(append(s[:n:n], fmt.Sprintf("... %d lines ...", len(s)-2*n)), s[len(s)-n:]...)
}

// TestJSON: every group is one line of JSON with every node.
func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, GroupAll(fleet()), JSON, Options{}); err != nil {
		t.Fatal(err)
	}
	var got []jsonGroup
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		var g jsonGroup
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, g)
	}
	if len(got) != 4 || len(got[1].Nodes) != 3000 || got[0].Nodes == nil || got[2].Severity != "warning" {
		t.Errorf("JSON lines: %d, nodes of the 2nd %d; want 4 lines, 3000 nodes, [] not null, a warning", len(got), len(got[1].Nodes))
	}
}

// TestGitHubEscapes: a message cannot end the command or start another.
func TestGitHubEscapes(t *testing.T) {
	g := Group{Diagnostic: Diagnostic{Pos: format.Pos{File: "env/a,b:c.yaml", Line: 2}, Message: "50% done\n::error::injected"}}
	got := github(g, Options{})
	want := "::error file=env/a%2Cb%3Ac.yaml,line=2,title=hieracc::50%25 done%0A::error::injected"
	if got != want {
		t.Errorf("github =\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "\n") {
		t.Errorf("a command spans lines")
	}
}
