package build

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

func isFactsFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}
