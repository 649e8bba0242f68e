// Command cmd runs the differential fuzzer: N generated cases from a seed,
// each asked of real Puppet and of hieracc, every difference printed.
//
//	go run ./cmd/hieracc/internal/puppetdiff/cmd -seed 1 -n 100 -save /tmp/puppetdiff
//	go run ./cmd/hieracc/internal/puppetdiff/cmd -case /tmp/puppetdiff/1234   # again, and reduce
//
// It exits 1 when a difference not already known (puppetdiff.Known) was
// found, 2 on trouble (Puppet missing, a case neither side could run).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/puppetdiff"
)

func main() {
	seed := flag.Uint64("seed", 1, "the first case's seed; case i has seed+i")
	n := flag.Int("n", 10, "how many cases")
	budget := flag.Int("budget", 120, "Puppet runs allowed to shrink each new difference (0: do not shrink)")
	save := flag.String("save", "", "write each new difference's case (as generated, and reduced) into this folder")
	hieracc := flag.String("hieracc", "", "the hieracc binary (default: go build it)")
	globOrder := flag.Bool("glob-order", false, "generate ** globs where the known glob-order difference (#17.3) shows")
	convertTo := flag.Bool("convert-to", false, "generate lookup_options with convert_to (issue #10)")
	quiet := flag.Bool("q", false, "print only differences and the summary")
	all := flag.Bool("all", false, "report the known differences (puppetdiff.Known) as new ones")
	caseDir := flag.String("case", "", "run the case in this folder (files and checks.yaml) instead of generated ones")
	flag.Parse()

	if why := puppetdiff.PuppetInstalled(); why != "" {
		fmt.Fprintln(os.Stderr, "puppetdiff:", why)
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "puppetdiff")
	if err != nil {
		fmt.Fprintln(os.Stderr, "puppetdiff:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(tmp)
	r := &puppetdiff.Runner{Hieracc: &puppetdiff.Hieracc{Path: *hieracc}}
	if *hieracc == "" {
		if r.Hieracc, err = puppetdiff.BuildHieracc(tmp); err != nil {
			fmt.Fprintln(os.Stderr, "puppetdiff:", err)
			os.Exit(2)
		}
	}
	if r.Puppet, err = puppetdiff.NewPuppet(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "puppetdiff:", err)
		os.Exit(2)
	}
	cfg := puppetdiff.Config{Seed: *seed, N: *n, Budget: *budget, Save: *save, Log: os.Stdout, ReportKnown: *all,
		Gen: puppetdiff.GenOptions{GlobOrder: *globOrder, ConvertTo: *convertTo}}
	if *quiet {
		cfg.Log = nil
	}
	if *caseDir != "" {
		if cfg.Case, err = puppetdiff.ReadCase(*caseDir); err != nil {
			fmt.Fprintln(os.Stderr, "puppetdiff:", err)
			os.Exit(2)
		}
		cfg.N = 1
	}
	// An interrupt ends the run after the case under way, with the summary.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	stop := make(chan struct{})
	go func() { <-sig; close(stop) }()
	cfg.Stop = stop
	s := r.Fuzz(cfg)

	fmt.Printf("\n%d cases (seeds %d..%d), %d checks: %d new differences, %d troubles\n",
		s.Cases, *seed, *seed+uint64(s.Cases)-1, s.Checks, len(s.New), len(s.Trouble))
	names := make([]string, 0, len(s.Known))
	for k := range s.Known {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Printf("  known %s: %d checks\n", k, s.Known[k])
	}
	for _, f := range s.New {
		fmt.Printf("\nseed %d: %s\n", f.Seed, f.Diff)
		if f.Reduced != nil {
			fmt.Print(puppetdiff.Describe(f.Reduced))
		}
	}
	for _, t := range s.Trouble {
		fmt.Printf("\nTROUBLE %s\n", t)
	}
	switch {
	case len(s.Trouble) > 0:
		os.Exit(2)
	case len(s.New) > 0:
		os.Exit(1)
	}
}
