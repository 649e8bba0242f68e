// Command genrepo writes a generated control repo (benchmarks/internal/gen) to a directory, laid out
// like a conformance case: env/, modules/, nodes/.
//
//	go run ./benchmarks/cmd/genrepo -nodes 100 -keys 200 -out /tmp/repo
//
// Flags default to the reference data set (gen.Reference).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hieracc/hieracc/benchmarks/internal/gen"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	p := gen.Reference()
	fs := flag.NewFlagSet("genrepo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory to write the repo to (required; created when missing)")
	fs.Uint64Var(&p.Seed, "seed", p.Seed, "random seed")
	fs.IntVar(&p.Nodes, "nodes", p.Nodes, "nodes")
	fs.IntVar(&p.Keys, "keys", p.Keys, "distinct keys, module keys included")
	fs.IntVar(&p.Levels, "levels", p.Levels, fmt.Sprintf("hierarchy levels (2..%d)", gen.MaxLevels))
	fs.IntVar(&p.Roles, "roles", p.Roles, "distinct roles")
	fs.IntVar(&p.Datacenters, "dcs", p.Datacenters, "distinct datacenters")
	fs.IntVar(&p.OSFamilies, "os", p.OSFamilies, "distinct OS families")
	fs.IntVar(&p.Fanout, "fanout", p.Fanout, "distinct values of each further dimension")
	fs.IntVar(&p.Modules, "modules", p.Modules, "modules")
	fs.IntVar(&p.ModuleKeys, "module-keys", p.ModuleKeys, "keys per module")
	fs.Float64Var(&p.OverrideRatio, "override", p.OverrideRatio, "share of keys each dimension value sets")
	fs.Float64Var(&p.PerNodeRatio, "per-node", p.PerNodeRatio, "share of keys each node's own data sets")
	fs.Float64Var(&p.InterpolationRatio, "interp", p.InterpolationRatio, "share of strings interpolating a fact")
	fs.Float64Var(&p.MergeRatio, "merge", p.MergeRatio, "share of keys merged through lookup_options")
	fs.Float64Var(&p.RefRatio, "refs", p.RefRatio, "share of keys that are lookup()/alias() of another")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: genrepo -out DIR [flags]")
		fs.PrintDefaults()
		return 2
	}
	start := time.Now()
	repo, err := gen.Generate(p)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	generated := time.Since(start)
	if err := repo.WriteDir(*out); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %d files (%d nodes, %d keys) to %s: generated in %v, written in %v\n",
		len(repo.FS), len(repo.Nodes), len(repo.Keys), *out, generated.Round(time.Millisecond),
		(time.Since(start) - generated).Round(time.Millisecond))
	return 0
}
