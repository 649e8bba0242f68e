package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/bundleset"
	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
	"github.com/hieracc/hieracc/format/trust"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/render"
)

var lookupCmd = &command{
	name:     "lookup",
	synopsis: "look keys up in a node's bundle, as puppet lookup does",
	usage:    lookupUsage,
	run:      runLookup,
}

type lookupFlags struct {
	bundle, merge, knockout, def, renderAs, typ  string
	nodes                                        stringList // --node, repeatable; globs allowed
	sortArrays, hashArrays, explain, showSecrets bool
	explainOptions                               bool
	privateKey                                   string          // --private-key: opens sealed keys
	env, modules, global                         string          // --env, --modules, --global: the folders compiled, for --explain
	trust                                        *runtime.Trust  // of privateKey, once read
	set                                          map[string]bool // flags given
	folder                                       *bundleset.Set  // the bundles of --bundle, once read
}

func runLookup(c *cmdEnv, args []string) int {
	var f lookupFlags
	fl := flag.NewFlagSet("lookup", flag.ContinueOnError)
	fl.StringVar(&f.bundle, "bundle", "", "")
	fl.Var(&f.nodes, "node", "")
	fl.StringVar(&f.merge, "merge", "", "")
	fl.StringVar(&f.knockout, "knock-out-prefix", "", "")
	fl.BoolVar(&f.sortArrays, "sort-merged-arrays", false, "")
	fl.BoolVar(&f.hashArrays, "merge-hash-arrays", false, "")
	fl.StringVar(&f.def, "default", "", "")
	fl.StringVar(&f.renderAs, "render-as", "yaml", "")
	fl.StringVar(&f.typ, "type", "", "")
	fl.BoolVar(&f.explain, "explain", false, "")
	fl.BoolVar(&f.explainOptions, "explain-options", false, "")
	fl.StringVar(&f.env, "env", "", "")
	fl.StringVar(&f.modules, "modules", "", "")
	fl.StringVar(&f.global, "global", "", "")
	fl.BoolVar(&f.showSecrets, "show-secrets", false, "")
	fl.StringVar(&f.privateKey, "private-key", "", "")
	keys, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	f.set = map[string]bool{}
	fl.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })

	opts, msg := f.options()
	if msg != "" {
		return c.usageError("%s", msg)
	}
	multi := len(f.nodes) > 1 || len(f.nodes) == 1 && isGlob(f.nodes[0])
	switch {
	case len(keys) == 0:
		return c.usageError("No keys were given to lookup.")
	case f.bundle == "":
		return c.usageError("--bundle is required: the folder 'hieracc compile' wrote (its --out)")
	case len(f.nodes) == 0 && isDir(f.bundle):
		return c.usageError("--node is required: the certname of the node whose bundle to read")
	case multi && !isDir(f.bundle):
		return c.usageError("several nodes (or a --node pattern) need --bundle to be the folder 'hieracc compile' wrote")
	case multi && (f.explain || f.explainOptions):
		return c.usageError("--explain looks up one node: give one --node")
	case (f.set["env"] || f.set["modules"] || f.set["global"]) && !(f.explain || f.explainOptions):
		return c.usageError("--env, --modules and --global are for --explain: they name the folders compiled, to print files as the repository has them")
	case (f.set["modules"] || f.set["global"]) && !f.set["env"]:
		return c.usageError("--modules and --global need --env")
	case multi && f.renderAs == "yaml" && f.set["render-as"]:
		return c.usageError("with several nodes, each value is printed on one line: --render-as json or s")
	}
	if multi {
		return f.lookupNodes(c, keys, opts)
	}
	node := ""
	if len(f.nodes) == 1 {
		node = f.nodes[0]
	}
	b, err := f.open(node)
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	if f.explain || f.explainOptions {
		opts.Default, opts.HasDefault = nil, false // --explain says what was found
		var display func(string) string
		if f.env != "" {
			if display, err = (build.Config{Env: f.env, Modules: f.modules, Global: f.global}).DisplayPaths(); err != nil {
				c.errorf("%v", err)
				return exitFail
			}
		} else {
			// The folders the bundle's compile read, as its state
			// file beside it says.
			file := f.bundle
			if isDir(file) {
				if set, err := f.bundles(); err == nil {
					file = set.File(node)
				}
			}
			display = stateDisplay(filepath.Dir(file))
		}
		return explainKeys(c, b, keys, opts, f.explainOptions && !f.explain, f.showSecrets, display)
	}
	v, err := b.LookupNames(keys, opts)
	if err != nil {
		c.errorf("%s", lookupError(err))
		return exitFail
	}
	return c.print(v, f.renderAs)
}

// lookupNodes looks the keys up for every node --node names or matches,
// in node order, and prints one line per node: "node: value". A node whose
// lookup fails is reported on stderr, and the others are still printed.
func (f *lookupFlags) lookupNodes(c *cmdEnv, keys []string, opts runtime.Options) int {
	nodes, err := f.matchNodes()
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	format := render.JSON
	if f.renderAs == "s" {
		format = render.Text
	}
	code := exitOK
	for _, node := range nodes {
		b, err := f.open(node)
		var v any
		if err == nil {
			v, err = b.LookupNames(keys, opts)
		}
		var out []byte
		if err == nil {
			out, err = render.As(v, format)
		}
		if err != nil {
			c.errorf("%s: %s", node, lookupError(err))
			code = exitFail
			continue
		}
		fmt.Fprintf(c.stdout, "%s: %s\n", node, strings.TrimSuffix(string(out), "\n"))
	}
	return code
}

// matchNodes lists the nodes the --node flags name, sorted: a pattern
// (Go's path.Match) stands for every node with a bundle in --bundle whose
// name it matches, and must match one.
func (f *lookupFlags) matchNodes() ([]string, error) {
	set, err := f.bundles()
	if err != nil {
		return nil, err
	}
	have := set.Nodes
	seen := map[string]bool{}
	var nodes []string
	for _, pat := range f.nodes {
		if !isGlob(pat) {
			if !seen[pat] {
				seen[pat] = true
				nodes = append(nodes, pat)
			}
			continue
		}
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("--node %q: bad pattern", pat)
		}
		n := 0
		for _, h := range have {
			if ok, _ := path.Match(pat, h); ok {
				n++
				if !seen[h] {
					seen[h] = true
					nodes = append(nodes, h)
				}
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("--node %q matches no bundle in %s", pat, f.bundle)
		}
	}
	sort.Strings(nodes)
	return nodes, nil
}

func isGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// options checks the merge flags as puppet lookup does and turns them into
// runtime options; msg is the usage error, if any.
func (f *lookupFlags) options() (runtime.Options, string) {
	var o runtime.Options
	switch f.renderAs {
	case "s", "json", "yaml":
	default:
		return o, fmt.Sprintf("--render-as must be s, json or yaml, not %q", f.renderAs)
	}
	if f.set["merge"] {
		switch f.merge {
		case "first", "unique", "hash", "deep":
		default:
			return o, "The --merge option only accepts 'first', 'hash', 'unique', or 'deep'"
		}
		o.Merge = &format.Merge{Strategy: format.Strategy(f.merge)}
	}
	if (f.set["knock-out-prefix"] || f.set["sort-merged-arrays"] || f.set["merge-hash-arrays"]) && f.merge != "deep" {
		return o, "The options --knock-out-prefix, --sort-merged-arrays, and --merge-hash-arrays are only available with '--merge deep'"
	}
	if f.set["default"] {
		// puppet lookup takes --default as a string, whatever it looks like.
		o.Default, o.HasDefault = f.def, true
	}
	if f.set["type"] {
		t, err := ptype.Parse(f.typ)
		if err != nil {
			return o, fmt.Sprintf("--type %s: %v", f.typ, err)
		}
		o.ValueType = t
	}
	if o.Merge != nil && o.Merge.Strategy == format.MergeDeep {
		o.Merge.KnockoutPrefix = f.knockout
		o.Merge.SortMergedArrays = f.sortArrays
		o.Merge.MergeHashArrays = f.hashArrays
	}
	return o, ""
}

// bundles lists the bundles of the folder --bundle: the folder compile
// wrote, or a folder of the shards' folders (package bundleset). It is
// read once, however many nodes are looked up.
func (f *lookupFlags) bundles() (*bundleset.Set, error) {
	if f.folder == nil {
		var err error
		if f.folder, _, err = bundleset.Read(f.bundle); err != nil {
			return nil, fmt.Errorf("--bundle: %v", cleanPathErr(err))
		}
	}
	return f.folder, nil
}

// open opens the node's bundle: --bundle is the folder compile wrote (or
// a folder of the shards' folders), or a bundle file.
func (f *lookupFlags) open(node string) (*runtime.Bundle, error) {
	st, err := os.Stat(f.bundle)
	if err != nil {
		return nil, fmt.Errorf("--bundle: %v", cleanPathErr(err))
	}
	file := f.bundle
	if st.IsDir() {
		if strings.ContainsAny(node, `/\`) || node == "." || node == ".." {
			return nil, fmt.Errorf("--node %q is not a certname", node)
		}
		set, err := f.bundles()
		if err != nil {
			return nil, err
		}
		file = set.File(node)
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no bundle for node %s in %s (%s does not exist)", node, f.bundle, file)
		}
	}
	if f.trust == nil {
		f.trust = &runtime.Trust{}
		if f.privateKey != "" {
			key, _, err := trust.ReadPrivateKey(f.privateKey)
			if err != nil {
				return nil, fmt.Errorf("--private-key: %v", cleanPathErr(err))
			}
			f.trust.Key = key
		}
	}
	// A renamed or misplaced file must not answer for another node.
	t := *f.trust
	t.Node = node
	return runtime.Open(file, t)
}

// notFoundMessage is Puppet's message when no key has a value.
func notFoundMessage(keys []string) string {
	return (&runtime.NotFoundError{Names: keys}).Error()
}

// lookupError is the message of a failed lookup: Puppet's, followed by
// where the failure was recorded when the bundle knows.
func lookupError(err error) string {
	msg := err.Error()
	if errors.Is(err, runtime.ErrSealed) {
		return msg + " (--private-key FILE: the node's ssl/private_keys/<certname>.pem)"
	}
	var fe *format.Error
	if errors.As(err, &fe) && fe.File != "" && !strings.Contains(msg, fe.File) {
		msg += " (" + fe.Pos.String() + ")"
	}
	return msg
}

var renderFormats = map[string]render.Format{"json": render.JSON, "yaml": render.YAML, "s": render.Text}

// print renders v to stdout as --render-as asks.
func (c *cmdEnv) print(v any, renderAs string) int {
	out, err := render.As(v, renderFormats[renderAs])
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	c.stdout.Write(out)
	return exitOK
}
