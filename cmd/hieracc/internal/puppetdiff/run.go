package puppetdiff

// The runner: a case written out, both sides asked, answers compared.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Runner asks both sides about cases.
type Runner struct {
	Puppet  *Puppet
	Hieracc *Hieracc
}

// Differences writes c to a scratch folder, asks Puppet and hieracc about
// every check and returns the checks whose answers differ.
func (r *Runner) Differences(c *Case) ([]Difference, error) {
	dir, err := os.MkdirTemp("", "puppetdiff-case")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := c.Write(dir); err != nil {
		return nil, err
	}
	h, err := r.Hieracc.Answer(dir, c.Checks)
	if err != nil {
		return nil, err
	}
	p, err := r.Puppet.Answer(dir, c.Checks)
	if err != nil {
		return nil, err
	}
	return Compare(c.Checks, p, h), nil
}

// signature is what a smaller case must still show to count as the same
// difference: the kind, the known name, and each side's status, with the
// first line of its message when it failed (positions left out).
func signature(d Difference) string {
	return strings.Join([]string{d.Kind, d.Known, answerSignature(d.Puppet), answerSignature(d.Hieracc)}, "\x00")
}

func answerSignature(a Answer) string {
	if a.Status != "error" {
		return a.Status
	}
	first, _, _ := strings.Cut(strings.TrimSpace(a.Message), "\n")
	return "error: " + hieraccLocation.ReplaceAllString(first, "")
}

// Reduce shrinks c to a case of the one check of d that still differs the
// same way (see Minimize). It asks hieracc first, which is quick, and
// Puppet only when hieracc still answers as it did.
func (r *Runner) Reduce(c *Case, d Difference, budget int) *Case {
	start := c.clone()
	start.Checks = []Check{d.Check}
	want := signature(d)
	return Minimize(start, budget, func(cand *Case) bool {
		dir, err := os.MkdirTemp("", "puppetdiff-min")
		if err != nil {
			return false
		}
		defer os.RemoveAll(dir)
		if cand.Write(dir) != nil {
			return false
		}
		h, err := r.Hieracc.Answer(dir, cand.Checks)
		if err != nil || answerSignature(h[0]) != answerSignature(d.Hieracc) {
			return false
		}
		p, err := r.Puppet.Answer(dir, cand.Checks)
		if err != nil {
			return false
		}
		ds := Compare(cand.Checks, p, h)
		return len(ds) == 1 && signature(ds[0]) == want
	})
}

// Config says which cases Fuzz runs and what it does with a difference.
type Config struct {
	Seed uint64 // the first case's seed; case i has Seed+i
	N    int    // how many cases
	Gen  GenOptions
	// Budget is how many Puppet runs may shrink one new difference; 0
	// keeps the difference as found.
	Budget int
	// Save, when set, is a folder where each new difference's case is
	// written (SEED/ as generated, SEED-KEY/ reduced to its one check).
	Save string
	Log  io.Writer // progress, one line per case; nil for none
	// ReportKnown reports the known differences as new ones.
	ReportKnown bool
	// Stop, when closed, ends the run after the case under way.
	Stop <-chan struct{}
	// Case, when set, is run instead of generated ones (N is then 1).
	Case *Case
}

// Summary is what Fuzz found.
type Summary struct {
	Cases, Checks int
	Known         map[string]int // known differences by name
	New           []Finding
	Trouble       []string // cases that could not be run through one side
}

// Finding is a new difference and where it came from.
type Finding struct {
	Seed    uint64
	Diff    Difference
	Reduced *Case // nil when not reduced
}

// Fuzz generates cfg.N cases and compares both sides on each.
func (r *Runner) Fuzz(cfg Config) Summary {
	s := Summary{Known: map[string]int{}}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	for i := range cfg.N {
		select {
		case <-cfg.Stop:
			return s
		default:
		}
		seed := cfg.Seed + uint64(i)
		var c *Case
		if cfg.Case != nil {
			c = cfg.Case
		} else {
			c = Generate(seed, cfg.Gen)
		}
		ds, err := r.Differences(c)
		s.Cases++
		if err != nil {
			s.Trouble = append(s.Trouble, fmt.Sprintf("seed %d: %v", seed, err))
			logf("seed %d: TROUBLE: %v", seed, err)
			r.save(cfg, fmt.Sprint(seed), c)
			continue
		}
		s.Checks += len(c.Checks)
		var known []string
		fresh := 0
		seen := map[string]bool{} // one reduction per signature and case
		for _, d := range ds {
			if d.Known != "" && !cfg.ReportKnown {
				s.Known[d.Known]++
				known = append(known, d.Known)
				continue
			}
			fresh++
			f := Finding{Seed: seed, Diff: d}
			logf("seed %d: NEW %s", seed, d)
			if cfg.Budget > 0 && !seen[signature(d)] {
				seen[signature(d)] = true
				f.Reduced = r.Reduce(c, d, cfg.Budget)
				r.save(cfg, fmt.Sprintf("%d-%s", seed, safeName(d.Check.Key)), f.Reduced)
			}
			s.New = append(s.New, f)
		}
		if fresh > 0 {
			r.save(cfg, fmt.Sprint(seed), c)
		}
		logf("seed %d: %d checks, %d differ (%d known%s)", seed, len(c.Checks), len(ds), len(known), strings.Join(append([]string{""}, known...), "; "))
	}
	return s
}

func (r *Runner) save(cfg Config, name string, c *Case) {
	if cfg.Save == "" {
		return
	}
	dir := filepath.Join(cfg.Save, name)
	if err := os.RemoveAll(dir); err == nil {
		if err := c.Write(dir); err != nil && cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "saving %s: %v\n", dir, err)
		}
	}
}

func safeName(key string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, key)
}
