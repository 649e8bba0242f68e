package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/bundleset"
	"github.com/hieracc/hieracc/format/trust"
	"github.com/hieracc/hieracc/runtime"
)

var verifyCmd = &command{
	name:     "verify",
	synopsis: "check that every bundle of a folder is whole and signed by a trusted signer",
	usage:    verifyUsage,
	run:      runVerify,
}

func runVerify(c *cmdEnv, args []string) int {
	var key, ca string
	fl := flag.NewFlagSet("verify", flag.ContinueOnError)
	fl.StringVar(&key, "key", "", "")
	fl.StringVar(&ca, "ca", "", "")
	paths, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	switch {
	case (key == "") == (ca == ""):
		return c.usageError("give one of --key PUB (the signer's public key or certificate) and --ca CERT (the CA that issued the signer's certificate)")
	case len(paths) == 0:
		return c.usageError("no folder given: the folder 'hieracc compile' wrote (its --out), or bundle files")
	}
	var v *trust.Verifier
	var err error
	if key != "" {
		v, err = trust.ReadKeyVerifier(key)
	} else {
		v, err = trust.ReadCAVerifier(ca)
	}
	if err != nil {
		flagName := "--key"
		if ca != "" {
			flagName = "--ca"
		}
		return c.usageError("%s: %v", flagName, cleanPathErr(err))
	}
	total, failed := 0, 0
	fail := func(file string, err error) {
		failed++
		msg := strings.TrimPrefix(err.Error(), "runtime: ")
		msg = strings.TrimPrefix(msg, "open "+file+": ") // named once
		c.errorf("%s: %s", file, msg)
	}
	for _, p := range paths {
		files, bad, err := verifyFiles(p)
		if err != nil {
			c.errorf("%v", cleanPathErr(err))
			failed++
			continue
		}
		for _, e := range bad {
			total++
			fail(p, e)
		}
		for _, f := range files {
			total++
			b, err := runtime.OpenWith(f.file, runtime.Trust{Verifier: v})
			if err == nil && f.node != "" && b.Header().Node != f.node {
				err = fmt.Errorf("holds the bundle of node %s, not %s", b.Header().Node, f.node)
			}
			if err != nil {
				fail(f.file, err)
			}
		}
	}
	switch {
	case failed > 0:
		fmt.Fprintf(c.stdout, "hieracc verify: %d of %s failed\n", failed, plural(total, "bundle"))
		return exitFail
	case total == 0:
		c.errorf("no bundles (*%s) in %s", bundleset.Ext, strings.Join(paths, ", "))
		return exitFail
	}
	fmt.Fprintf(c.stdout, "hieracc verify: %s whole and signed by a trusted signer\n", plural(total, "bundle"))
	return exitOK
}

// verifyFile is a bundle to verify, and the node its name says it holds
// ("" for a file given by name).
type verifyFile struct{ file, node string }

// verifyFiles lists the bundles of path: a folder compile wrote (or a
// folder of the shards' folders), or a bundle file.
func verifyFiles(path string) ([]verifyFile, []error, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		node, _ := strings.CutSuffix(filepath.Base(path), bundleset.Ext) // "x": not a bundle's name, no node
		if node == filepath.Base(path) {
			node = ""
		}
		return []verifyFile{{file: path, node: node}}, nil, nil
	}
	set, bad, err := bundleset.Read(path)
	if err != nil {
		return nil, nil, err
	}
	files := make([]verifyFile, len(set.Nodes))
	for i, n := range set.Nodes {
		files[i] = verifyFile{file: set.File(n), node: n}
	}
	return files, bad, nil
}
