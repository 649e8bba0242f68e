package build

// The folders a build read, from its state file: what readers of an output
// ('hieracc diff OLD NEW', 'lookup --explain') need to print the paths the
// bundles record as the repository has them, when they are not told the
// folders compiled.

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
)

// StatePaths returns how to print a path that the build whose state file
// is state recorded ("env/data/common.yaml"), as DisplayPaths does from
// the folders given to compile, but from the folders that build read,
// which its state records relative to its output folder (so that they are
// found again when the output and the folders moved together, as a CI
// workspace restored at another place). show names each folder (or file)
// read for print, given its real path, absolute: "." for the folder the
// printed paths are relative to, "" to keep the compiler's name (one that
// show cannot place). A folder that is no longer there keeps the
// compiler's name too. ok is false, and display nil, when state is not a
// state file this hieracc reads or no folder it names is shown otherwise.
// The folders are the environment, modules and global ones (and a global
// hiera.yaml of another name): a --mount's files keep their names.
func StatePaths(state string, show func(real string) string) (display func(string) string, ok bool) {
	read, ok := readOfState(state)
	if !ok {
		return nil, false
	}
	base := realPath(filepath.Dir(state))
	var mounts []inputfs.Mount
	shown := false
	for _, r := range splitRead(read) {
		name, p := r[0], r[1]
		if strings.HasPrefix(name, "-") || strings.HasPrefix(name, "mount/") || p == "" {
			// An eyaml key's digest; a --mount's folder, whose files
			// keep the names that say where they are on the Puppet
			// server (mount/etc/puppetlabs/...), as DisplayPaths, given
			// no Mounts, keeps them.
			continue
		}
		p = filepath.FromSlash(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		m := inputfs.Mount{Name: name, Real: p, Display: filepath.FromSlash(name)}
		if st, err := os.Stat(p); err == nil {
			m.IsFile = !st.IsDir()
			if d := show(p); d != "" {
				m.Display, shown = d, true
			}
		}
		// Kept when not shown: a nested mount (a global hiera.yaml
		// inside the environment) must not be taken for the folder
		// around it.
		mounts = append(mounts, m)
	}
	if !shown {
		return nil, false
	}
	return inputfs.New(mounts).Display, true
}

// readOfState is the Read of the state file p (the folders its build read),
// when p is a state of this hieracc's version. Only the fields up to it
// are read: a fleet's state file is large, and they come first.
func readOfState(p string) (read string, ok bool) {
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, inputfs.MaxFile))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	version, hasRead := 0, false
	for dec.More() && (version == 0 || !hasRead) {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		key, _ := t.(string)
		switch key {
		case "version":
			err = dec.Decode(&version)
		case "read":
			err, hasRead = dec.Decode(&read), true
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return "", false
		}
	}
	return read, version == stateVersion && hasRead
}

// readName is how an entry of a state's Read starts: the name of a
// folder in the compiler's file system (env, modules, global, a mount's
// mount/..., a global hiera.yaml of another name shown as .../hiera.yaml),
// or the flag of a key file's digest.
var readName = regexp.MustCompile(`^(env|modules|global|mount/[^=]*|[^=]*/hiera\.yaml|--[a-z0-9-]+)=`)

// splitRead splits a state's Read ("env=../repo;modules=../mods") into
// its (name, path) pairs. Entries are joined with ";", which a path may
// hold too: a piece that does not start with a name continues the path
// before it.
func splitRead(read string) [][2]string {
	var out [][2]string
	for _, piece := range strings.Split(read, ";") {
		if m := readName.FindStringSubmatch(piece); m != nil {
			out = append(out, [2]string{m[1], piece[len(m[0]):]})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1][1] += ";" + piece
		}
	}
	return out
}
