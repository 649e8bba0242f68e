package build

import (
	"context"

	"github.com/hieracc/hieracc/compiler"
)

// Check lints the control repo cfg names (hieracc check): every data file
// its hierarchies can name is read, whether or not a node reaches it (see
// compiler.Check). The nodes of cfg.Facts and cfg.PuppetDB, when given,
// tell which facts the hierarchies may interpolate. Of cfg, only Env,
// Modules, Global, Mounts, Facts, PuppetDB, FactOverrides, the eyaml keys
// and Strict are read: nothing is written. Report.Nodes counts the nodes
// given.
func Check(ctx context.Context, cfg Config) (*Report, error) {
	in, fsys, _, err := cfg.input()
	if err != nil {
		return nil, err
	}
	r := &Report{}
	if len(cfg.Facts) > 0 || cfg.PuppetDB.URL != "" {
		set, probs, err := gatherFacts(ctx, cfg.Facts, cfg.PuppetDB, cfg.FactOverrides, nil, nil, ".")
		if err != nil {
			return nil, err
		}
		nodes, _, more, _ := set.compile(func(string) bool { return true })
		in.Nodes = nodes
		r.addFacts(append(probs, more...), cfg.Strict)
	}
	r.Nodes = len(in.Nodes)
	res, err := compiler.Check(ctx, in)
	if err != nil {
		return nil, err
	}
	for _, d := range res.Diagnostics {
		d.File = fsys.Display(d.File) // as the user named its folder
		r.add(d, cfg.Strict)
	}
	return r, nil
}
