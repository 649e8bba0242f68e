package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/runtime"
)

var lookupCmd = &command{
	name:     "lookup",
	synopsis: "look keys up in a node's bundle, as puppet lookup does",
	usage:    lookupUsage,
	run:      runLookup,
}

type lookupFlags struct {
	bundle, node, merge, knockout, def, renderAs string
	sortArrays, hashArrays, explain              bool
	explainOptions                               bool
	set                                          map[string]bool // flags given
}

func runLookup(c *cmdEnv, args []string) int {
	var f lookupFlags
	fl := flag.NewFlagSet("lookup", flag.ContinueOnError)
	fl.StringVar(&f.bundle, "bundle", "", "")
	fl.StringVar(&f.node, "node", "", "")
	fl.StringVar(&f.merge, "merge", "", "")
	fl.StringVar(&f.knockout, "knock-out-prefix", "", "")
	fl.BoolVar(&f.sortArrays, "sort-merged-arrays", false, "")
	fl.BoolVar(&f.hashArrays, "merge-hash-arrays", false, "")
	fl.StringVar(&f.def, "default", "", "")
	fl.StringVar(&f.renderAs, "render-as", "yaml", "")
	fl.BoolVar(&f.explain, "explain", false, "")
	fl.BoolVar(&f.explainOptions, "explain-options", false, "")
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
	switch {
	case len(keys) == 0:
		return c.usageError("No keys were given to lookup.")
	case f.bundle == "":
		return c.usageError("--bundle is required: the folder 'hieracc compile' wrote (its --out)")
	case f.node == "" && isDir(f.bundle):
		return c.usageError("--node is required: the certname of the node whose bundle to read")
	}
	b, err := f.open()
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	if f.explain || f.explainOptions {
		return explainKeys(c, b, keys, opts, f.explainOptions && !f.explain)
	}

	for _, key := range keys {
		v, err := b.LookupWith(key, opts)
		if errors.Is(err, runtime.ErrNotFound) {
			continue
		}
		if err != nil {
			c.errorf("%s", lookupError(err))
			return exitFail
		}
		return c.print(v, f.renderAs)
	}
	if f.set["default"] {
		// puppet lookup takes --default as a string, whatever it looks like.
		return c.print(f.def, f.renderAs)
	}
	c.errorf("%s", notFoundMessage(keys))
	return exitFail
}

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
		o.Merge = &format.Merge{Strategy: f.merge}
	}
	if (f.set["knock-out-prefix"] || f.set["sort-merged-arrays"] || f.set["merge-hash-arrays"]) && f.merge != "deep" {
		return o, "The options --knock-out-prefix, --sort-merged-arrays, and --merge-hash-arrays are only available with '--merge deep'"
	}
	if o.Merge != nil && o.Merge.Strategy == "deep" {
		o.Merge.KnockoutPrefix = f.knockout
		o.Merge.SortMergedArrays = f.sortArrays
		o.Merge.MergeHashArrays = f.hashArrays
	}
	return o, ""
}

// open opens the node's bundle: --bundle is the folder compile wrote, or a
// bundle file.
func (f *lookupFlags) open() (*runtime.Bundle, error) {
	st, err := os.Stat(f.bundle)
	if err != nil {
		return nil, fmt.Errorf("--bundle: %v", cleanPathErr(err))
	}
	file := f.bundle
	if st.IsDir() {
		if strings.ContainsAny(f.node, `/\`) || f.node == "." || f.node == ".." {
			return nil, fmt.Errorf("--node %q is not a certname", f.node)
		}
		file = filepath.Join(f.bundle, f.node+".bundle")
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no bundle for node %s in %s (%s does not exist)", f.node, f.bundle, file)
		}
	}
	b, err := runtime.Open(file)
	if err != nil {
		return nil, err
	}
	// A renamed or misplaced file must not answer for another node.
	if node := b.Header().Node; f.node != "" && node != f.node {
		return nil, fmt.Errorf("%s holds the bundle of node %s, not %s", file, node, f.node)
	}
	return b, nil
}

// notFoundMessage is Puppet's message when no key has a value.
func notFoundMessage(keys []string) string {
	if len(keys) == 1 {
		return fmt.Sprintf("Function lookup() did not find a value for the name '%s'", keys[0])
	}
	return fmt.Sprintf("Function lookup() did not find a value for any of the names [%s]", quoteAll(keys))
}

func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = "'" + k + "'"
	}
	return strings.Join(q, ", ")
}

// lookupError is the message of a failed lookup: Puppet's, followed by
// where the failure was recorded when the bundle knows.
func lookupError(err error) string {
	msg := err.Error()
	var fe *format.Error
	if errors.As(err, &fe) && fe.File != "" && !strings.Contains(msg, fe.File) {
		loc := fe.File
		if fe.Line > 0 {
			loc += fmt.Sprintf(":%d", fe.Line)
			if fe.Column > 0 {
				loc += fmt.Sprintf(":%d", fe.Column)
			}
		}
		msg += " (" + loc + ")"
	}
	return msg
}

var renderFormats = map[string]runtime.Format{"json": runtime.JSON, "yaml": runtime.YAML, "s": runtime.Text}

// print renders v to stdout as --render-as asks.
func (c *cmdEnv) print(v any, renderAs string) int {
	out, err := runtime.Render(v, renderFormats[renderAs])
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	c.stdout.Write(out)
	return exitOK
}
