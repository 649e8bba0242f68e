package facts

// Finding facts files and loading every node they hold.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
	"golang.org/x/sync/errgroup"
)

// MaxFileSize is the largest facts file read, in bytes: the data file
// reader's limit. A larger PuppetDB export can be split into pages
// (PuppetDB's limit and offset parameters).
const MaxFileSize = dataload.MaxFileSize

// Find lists the facts files that paths name: a file whose name ends in
// one of Extensions (another is an error), a folder for the files directly
// inside it whose names do, in name order. Everything else in a folder (another file, a subfolder) is
// reported as a warning, so that facts are never left out in silence;
// names starting with "." (.git, .gitkeep) are passed over, as a shell's
// * does. A file named twice is listed once.
func Find(paths []string) (files []string, probs []diagnostics.Diagnostic) {
	seen := map[string]bool{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil {
			probs = append(probs, diagnostics.Diagnostic{Pos: format.Pos{File: p}, Message: err.Error()})
			return
		}
		if !seen[abs] {
			seen[abs] = true
			files = append(files, p)
		}
	}
	for _, arg := range paths {
		st, err := os.Stat(arg)
		if err != nil {
			probs = append(probs, diagnostics.Diagnostic{Pos: format.Pos{File: arg}, Message: "cannot read facts: " + pathErr(err)})
			continue
		}
		if !st.IsDir() {
			if !IsFactsFile(arg) {
				probs = append(probs, diagnostics.Diagnostic{Pos: format.Pos{File: arg}, Message: fmt.Sprintf("is not read as facts: a facts file's name ends in %s", strings.Join(Extensions, ", "))})
				continue
			}
			add(arg)
			continue
		}
		entries, err := os.ReadDir(arg) // sorted by name
		if err != nil {
			probs = append(probs, diagnostics.Diagnostic{Pos: format.Pos{File: arg}, Message: "cannot read facts: " + pathErr(err)})
			continue
		}
		n := 0
		for _, e := range entries {
			p := filepath.Join(arg, e.Name())
			switch {
			case strings.HasPrefix(e.Name(), "."):
			case e.IsDir():
				probs = append(probs, diagnostics.Diagnostic{Pos: format.Pos{File: p}, Severity: diagnostics.Warning, Message: "folder not read: facts folders are read one level deep (name it with --facts to read it)"})
			case !IsFactsFile(e.Name()):
				probs = append(probs, diagnostics.Diagnostic{Pos: format.Pos{File: p}, Severity: diagnostics.Warning, Message: fmt.Sprintf("not read as facts: only files ending in %s are", strings.Join(Extensions, ", "))})
			default:
				add(p)
				n++
			}
		}
		if n == 0 {
			probs = append(probs, diagnostics.Diagnostic{Pos: format.Pos{File: arg}, Message: fmt.Sprintf("no facts files (%s) in this folder", strings.Join(Extensions, ", "))})
		}
	}
	return files, probs
}

// Load reads every facts file that paths name (see Find) and returns their
// nodes, in file order, then record order. A certname given by two places
// (two files, two records) is an error naming both, and only the first is
// kept; a file that cannot be read or parsed is an error, and none of its
// nodes is returned.
func Load(paths []string) ([]Node, []diagnostics.Diagnostic) {
	files, probs := Find(paths)
	nodes, more := readFiles(files)
	return nodes, append(probs, more...)
}

// readFiles reads and parses the files (on every CPU at once), and checks
// that no certname comes from two places.
func readFiles(files []string) ([]Node, []diagnostics.Diagnostic) {
	type result struct {
		nodes []Node
		probs []diagnostics.Diagnostic
	}
	out := make([]result, len(files))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, f := range files {
		g.Go(func() error {
			out[i].nodes, out[i].probs = ReadFile(f)
			return nil
		})
	}
	_ = g.Wait()
	var nodes []Node
	var probs []diagnostics.Diagnostic
	for _, r := range out {
		probs = append(probs, r.probs...)
		if !diagnostics.HasErrors(r.probs) { // a file read in part is not read
			nodes = append(nodes, r.nodes...)
		}
	}
	nodes, more := Unique(nodes)
	return nodes, append(probs, more...)
}

// Unique returns the nodes without those whose certname an earlier node
// has, and an error for each of those, naming both places.
func Unique(nodes []Node) ([]Node, []diagnostics.Diagnostic) {
	var out []Node
	var probs []diagnostics.Diagnostic
	first := map[string]string{} // certname -> where its facts are
	for _, n := range nodes {
		if prev, dup := first[n.Certname]; dup {
			probs = append(probs, diagnostics.Diagnostic{Pos: n.Pos, Node: n.Certname,
				Message: fmt.Sprintf("facts for node %s are also at %s: one place per certname", n.Certname, prev)})
			continue
		}
		out = append(out, n)
		first[n.Certname] = n.Pos.String()
	}
	return out, probs
}

// ReadFile reads and parses one facts file (see Parse).
func ReadFile(file string) ([]Node, []diagnostics.Diagnostic) {
	src, err := readFile(file)
	if err != nil {
		return nil, []diagnostics.Diagnostic{{Pos: format.Pos{File: file}, Node: fileCertname(file), Message: "cannot read facts: " + err.Error()}}
	}
	return Parse(file, src)
}

// readFile reads a regular file of at most MaxFileSize bytes, as
// format.ReadRegular does. Anything else (a FIFO, which would block, a
// device, which may never end) is an error, found before the file is
// opened.
func readFile(name string) ([]byte, error) {
	b, err := format.ReadRegular(name, MaxFileSize)
	if err != nil {
		return nil, errors.New(pathErr(err))
	}
	return b, nil
}

// pathErr keeps "stat x: no such file or directory" readable.
func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
