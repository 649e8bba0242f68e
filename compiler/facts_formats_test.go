package compiler_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/internal/conformancetest"
)

// factsFormatsCase holds nodes/ as plain facts hashes, whose answers real
// Puppet gave (expected.yaml), and formats/, the same facts in every shape
// package facts reads (gen-formats.rb, through Puppet's own writers).
const factsFormatsCase = "../testdata/conformance/facts-formats"

// TestFactsFormats compiles the case once per folder of formats/, its
// facts read by facts.Load, and runs every check of the case: each shape
// must give every node exactly the answers Puppet gave for the plain hash.
func TestFactsFormats(t *testing.T) {
	checks, err := conformancetest.ReadChecks(factsFormatsCase)
	if err != nil {
		t.Fatal(err)
	}
	folders, _ := filepath.Glob(filepath.Join(factsFormatsCase, "formats", "*"))
	if len(folders) < 12 {
		t.Fatalf("%d folders in formats/: run gen-formats.rb", len(folders))
	}
	for _, folder := range folders {
		t.Run(filepath.Base(folder), func(t *testing.T) {
			read, probs := facts.Load([]string{folder})
			for _, p := range probs {
				t.Errorf("facts: %s", p)
			}
			var nodes []compiler.Node
			formats := map[facts.Format]bool{}
			for _, n := range read {
				nodes = append(nodes, compiler.NodeOf(n))
				formats[n.Format] = true
			}
			if filepath.Base(folder) == "one-of-each" {
				for _, f := range []facts.Format{facts.Plain, facts.FactsFind, facts.NodeFacts, facts.Factsets, facts.FactRows, facts.Inventory, facts.Command} {
					if !formats[f] {
						t.Errorf("no node read as %s", f)
					}
				}
			}
			bundles := compileNodes(t, factsFormatsCase, nodes)
			var names []string
			for _, ck := range checks {
				if !slices.Contains(names, ck.Node) {
					names = append(names, ck.Node)
				}
				if msg := runCheck(t, bundles, ck); msg != "" {
					t.Errorf("%s %q: %s", ck.Node, ck.Key, msg)
				}
			}
			if len(bundles) != len(names) {
				t.Errorf("%d bundles for the %d nodes of the checks", len(bundles), len(names))
			}
		})
	}
}
