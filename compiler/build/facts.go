package build

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
)

// factsFile is one node's facts file.
type factsFile struct{ path, certname string }

// listFacts finds the facts files that args name (files and folders),
// refusing two files for one certname.
func listFacts(args []string) (files []factsFile, errs []string) {
	seen := map[string]string{} // absolute path -> certname, to skip a file named twice
	byName := map[string]string{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", p, err))
			return
		}
		if _, dup := seen[abs]; dup {
			return
		}
		base := filepath.Base(p)
		name := strings.TrimSuffix(base, filepath.Ext(base))
		seen[abs] = name
		if msg := badCertname(name); msg != "" {
			errs = append(errs, fmt.Sprintf("%s: %s", quoted(p), msg))
			return
		}
		if first, dup := byName[name]; dup {
			errs = append(errs, fmt.Sprintf("%s: facts for node %s are also in %s: one file per certname", p, name, first))
			return
		}
		byName[name] = p
		files = append(files, factsFile{p, name})
	}
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			errs = append(errs, fmt.Sprintf("--facts: %v", inputfs.CleanPathErr(err)))
			continue
		}
		if !st.IsDir() {
			if !isFactsFile(arg) {
				errs = append(errs, fmt.Sprintf("%s: a facts file must be named <certname>.yaml, .yml or .json", arg))
				continue
			}
			add(arg)
			continue
		}
		entries, err := os.ReadDir(arg) // sorted by name
		if err != nil {
			errs = append(errs, fmt.Sprintf("--facts: %v", inputfs.CleanPathErr(err)))
			continue
		}
		n := 0
		for _, e := range entries {
			if !e.IsDir() && isFactsFile(e.Name()) {
				add(filepath.Join(arg, e.Name()))
				n++
			}
		}
		if n == 0 {
			errs = append(errs, fmt.Sprintf("%s: no facts files (*.yaml, *.yml, *.json) in this folder", arg))
		}
	}
	return files, errs
}

// parseFacts loads the facts files, or only those whose certname want
// accepts (want nil: all of them).
func parseFacts(files []factsFile, want func(certname string) bool) (nodes []compiler.Node, fsys *inputfs.FS, errs []string) {
	// Each file is shown to LoadFacts under its own name, through an
	// inputfs.FS of that one file (folder i holds the i-th file: two
	// folders may hold files of one name). One small FS per file keeps
	// loading linear: a fleet has tens of thousands of facts files.
	inFS := func(i int) string { return fmt.Sprintf("%d/%s", i, filepath.Base(files[i].path)) }
	mountOf := func(i int) inputfs.Mount {
		return inputfs.Mount{Name: inFS(i), Real: files[i].path, IsFile: true, Display: filepath.Clean(files[i].path)}
	}
	var ms []inputfs.Mount
	for i := range files {
		ms = append(ms, mountOf(i))
	}
	fsys = inputfs.New(ms)
	type parsed struct {
		node compiler.Node
		errs []string
		ok   bool
	}
	out := make([]parsed, len(files))
	forEach(len(files), func(i int) {
		ff := files[i]
		if want != nil && !want(ff.certname) {
			return
		}
		one := inputfs.New([]inputfs.Mount{mountOf(i)})
		n, ds := compiler.LoadFacts(one, inFS(i))
		n.Name = ff.certname
		n.Source = filepath.Clean(ff.path)
		bad := false
		for _, d := range ds {
			d.File = one.Display(d.File)
			// Messages quote the file as LoadFacts saw it, too.
			d.Message = strings.ReplaceAll(d.Message, inFS(i), d.File)
			out[i].errs = append(out[i].errs, d.String())
			bad = bad || d.Severity == compiler.Error
		}
		out[i].node, out[i].ok = n, !bad && n.Facts != nil
	})
	for _, p := range out {
		errs = append(errs, p.errs...)
		if p.ok {
			nodes = append(nodes, p.node)
		}
	}
	return nodes, fsys, errs
}

// maxCertname is the longest certname, in bytes: its bundle's file name,
// <certname>.bundle, must fit in the 255 bytes of a file name.
const maxCertname = 255 - len(".bundle")

// badCertname says why name cannot be a certname, or "". Puppet allows
// printable ASCII but "/" (Puppet::SSL::Base::VALID_CERTNAME); a facts
// file's name has no "/", and a control character or a byte that is not
// ASCII would break every one-line message that names the node.
func badCertname(name string) string {
	if len(name) > maxCertname {
		return fmt.Sprintf("certname of %d bytes: at most %d (its bundle's file name, <certname>.bundle, must fit in 255 bytes)", len(name), maxCertname)
	}
	for i, r := range name {
		if r < ' ' || r > '~' {
			if r == utf8.RuneError {
				return fmt.Sprintf("certname %s holds the byte %#x: a certname is printable ASCII, as for Puppet", quoted(name), name[i])
			}
			return fmt.Sprintf("certname %s holds %q: a certname is printable ASCII, as for Puppet", quoted(name), r)
		}
	}
	return ""
}

// quoted is s, in Go's quotes when it holds anything but printable
// characters: messages never echo raw bytes.
func quoted(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

func isFactsFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}
