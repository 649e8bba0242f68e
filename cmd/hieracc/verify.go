package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"slices"
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
	var signers stringList
	fl := flag.NewFlagSet("verify", flag.ContinueOnError)
	fl.StringVar(&key, "key", "", "")
	fl.StringVar(&ca, "ca", "", "")
	fl.Var(&signers, "signer", "")
	paths, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	switch {
	case (key == "") == (ca == ""):
		return c.usageError("give one of --key PUB (the signer's public key or certificate) and --ca CERT (the CA that issued the signer's certificate)")
	case ca != "" && len(signers) == 0:
		return c.usageError("--ca needs --signer: a CA issues every agent's certificate, and any agent could sign any node's bundle; " +
			"name who may sign: its certname (--signer ci.example.com), a pattern of certnames (--signer '*.ci.example.com') " +
			"or an extension its certificate carries (--signer pp_auth_role=hieracc-signer, or OID=VALUE)")
	case key != "" && len(signers) > 0:
		return c.usageError("--signer goes with --ca: --key names the signer's key itself")
	case len(paths) == 0:
		return c.usageError("no folder given: the folder 'hieracc compile' wrote (its --out), or bundle files")
	}
	if ca != "" {
		if _, err := trust.NewCAVerifier(nil, signers...); err != nil {
			return c.usageError("--%v", err) // signer "...": why
		}
	}
	var v *trust.Verifier
	var err error
	if key != "" {
		v, err = trust.ReadKeyVerifier(key)
	} else {
		v, err = trust.ReadCAVerifier(ca, signers...)
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
	var shared sharedChecks
	sources := map[string]int{} // source revision -> bundles verified
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
			b, err := runtime.Open(f.file, runtime.Trust{Verifier: v, Node: f.node})
			if err != nil {
				fail(f.file, err)
				continue
			}
			shared.check(b, f.file)
			sources[b.Header().SourceRevision]++
		}
	}
	for _, sc := range shared.bad() {
		failed += len(sc.bundles)
		c.errorf("%s", sc.message())
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
	if n := len(shared.order); n > 0 {
		fmt.Fprintf(c.stdout, "hieracc verify: %s whole, as the bundles name them\n", plural(n, "shared details file"))
	}
	// The bundles' strings: no control character reaches the terminal.
	fmt.Fprintf(safeWriter{c.stdout}, "hieracc verify: %s\n", describeSources(sources))
	return exitOK
}

// describeSources says which source revisions (compile --source-revision)
// the bundles verified were compiled from: one line, the revisions named
// when there are few.
func describeSources(sources map[string]int) string {
	named := 0
	var revs []string
	for rev, n := range sources {
		if rev != "" {
			named += n
			revs = append(revs, rev)
		}
	}
	slices.Sort(revs)
	count := len(revs)
	switch {
	case count == 0:
		return "compiled from no known source revision"
	case count == 1 && sources[""] == 0:
		return "compiled from source revision " + revs[0]
	case count > maxNamed:
		revs = append(revs[:maxNamed], "...")
	}
	s := fmt.Sprintf("%s compiled from %s (%s)", plural(named, "bundle"), plural(count, "source revision"), strings.Join(revs, ", "))
	if n := sources[""]; n > 0 {
		s += fmt.Sprintf(", %s from none known", plural(n, "bundle"))
	}
	return s
}

// sharedChecks are the shared details files of the bundles verified
// (runtime.Bundle.SharedDetailsFile), each read once, as an agent reads
// it: it must exist and be the file its bundles name (the bundle's digest,
// and so its signature, covers the file's digest).
type sharedChecks struct {
	order []string // the files, in the order first met
	files map[string]*sharedCheck
}

type sharedCheck struct {
	file    string
	err     error    // why the file cannot be used; nil when it can
	bundles []string // the bundles that name it, when err is set
}

// check reads the shared details file of b, a bundle read from file,
// unless it was read for another bundle.
func (s *sharedChecks) check(b *runtime.Bundle, file string) {
	sf := b.SharedDetailsFile()
	if sf == "" {
		return
	}
	sc := s.files[sf]
	if sc == nil {
		if s.files == nil {
			s.files = map[string]*sharedCheck{}
		}
		sc = &sharedCheck{file: sf, err: b.LoadSharedDetails()}
		s.files[sf] = sc
		s.order = append(s.order, sf)
	}
	if sc.err != nil {
		sc.bundles = append(sc.bundles, file)
	}
}

// bad lists the files that cannot be used, in the order first met.
func (s *sharedChecks) bad() []*sharedCheck {
	var out []*sharedCheck
	for _, f := range s.order {
		if sc := s.files[f]; sc.err != nil {
			out = append(out, sc)
		}
	}
	return out
}

// maxNamed bounds the bundles a message names.
const maxNamed = 3

// message says what is wrong with the file and which bundles need it.
func (sc *sharedCheck) message() string {
	what := sc.err.Error()
	var se *runtime.SharedDetailsError
	var pe *fs.PathError
	switch {
	case errors.Is(sc.err, fs.ErrNotExist):
		what = "missing"
	case errors.As(sc.err, &se) && errors.As(se.Err, &pe) && pe.Path == sc.file:
		what = "cannot be read: " + pe.Err.Error()
	case se != nil && se.Err != nil:
		what = "cannot be used: " + strings.TrimPrefix(se.Err.Error(), "format: ")
	}
	names := sc.bundles[:min(len(sc.bundles), maxNamed)]
	more := ""
	if n := len(sc.bundles) - len(names); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("%s: shared details file %s, needed by %s (%s%s) for explanations and lookup-time merges: "+
		"copy the details/ folder of the compile's output with the bundles",
		sc.file, what, plural(len(sc.bundles), "bundle"), strings.Join(names, ", "), more)
}

// verifyFile is a bundle to verify, and the node its folder holds it for
// ("" for a file given by name: runtime.Open takes the node from the
// file's name).
type verifyFile struct{ file, node string }

// verifyFiles lists the bundles of path: a folder compile wrote (or a
// folder of the shards' folders), or a bundle file.
func verifyFiles(path string) ([]verifyFile, []error, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		return []verifyFile{{file: path}}, nil, nil // the runtime takes its node from its name
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
