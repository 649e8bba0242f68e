package reload

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultPollInterval is how often Watch checks the file when it cannot
// be told of changes.
const DefaultPollInterval = time.Second

// Watch keeps r current until ctx is done, then returns ctx's error: it
// calls Reload whenever the file is replaced (renamed over, as the
// compiler does) or rewritten, or a link on its path is switched (a
// deploy's current -> releases/B, or the file a link to another whose
// target is replaced). On Linux it waits for inotify events on the
// file's folder and those of the links on its path, and still checks
// every minute; elsewhere, or when inotify is unavailable, it checks
// every pollInterval (DefaultPollInterval when 0). A check of an
// unchanged file costs one stat, and a few more to resolve its path.
//
// report, when not nil, is told the outcome of every reload that changed
// the bundle or failed. A file that cannot be read or verified (being
// written in place, say) leaves the last good bundle in place: report gets
// the error once, and the next change is tried again.
func (r *File) Watch(ctx context.Context, pollInterval time.Duration, report func(changed bool, err error)) error {
	if pollInterval <= 0 {
		pollInterval = DefaultPollInterval
	}
	var reported error // the failure last reported, told once
	check := func() {
		changed, err := r.Reload()
		if err != nil && err == reported {
			return
		}
		reported = err
		if report != nil && (changed || err != nil) {
			report(changed, err)
		}
	}
	// The watch follows the path as it resolves now: the folder of each
	// link on the way (a deploy's current -> releases/B) and the file's
	// own. A change to any of them is checked, and the watch follows the
	// path again when it resolves otherwise.
	var w *fileWatch
	var events <-chan struct{}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	defer func() {
		if w != nil {
			w.close()
		}
	}()
	follow := func() {
		// A path that resolves otherwise once its watch began may have
		// changed before it did: watched again.
		for range maxLinks {
			targets := watchTargets(r.path)
			if w != nil {
				if slices.Equal(w.targets, targets) {
					return
				}
				w.close()
				w, events = nil, nil
			}
			nw, err := watchFile(targets)
			if err != nil {
				tick.Reset(pollInterval)
				return
			}
			w, events = nw, nw.events
			tick.Reset(time.Minute) // inotify can miss changes on network file systems
		}
	}
	follow()
	// The file may have changed before the watch began.
	check()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case _, ok := <-events:
			if !ok { // the watch ended (a folder of it was removed)
				w.close()
				w, events = nil, nil
			}
			follow()
			check()
		case <-tick.C:
			follow()
			check()
		}
	}
}

// watchTarget is a folder entry a watch looks at: the file's, or a link's
// on the way to it. dir is a real folder (no link in it).
type watchTarget struct {
	dir, name string
	link      bool // a link (or missing): its creation, replacement or removal counts
}

// maxLinks bounds the links followed resolving a path, as the kernel's 40.
const maxLinks = 40

// watchTargets resolves path one element at a time, as the kernel does,
// and returns the entries it went through that can change what path
// names: each link's, and the last one's (the file's, or the first that
// is missing: its creation counts).
func watchTargets(path string) []watchTarget {
	// Not cleaned (as filepath.Abs would): link/.. is the folder above
	// the link's target, not the link's.
	sep := string(filepath.Separator)
	abs := path
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return []watchTarget{{dir: filepath.Dir(path), name: filepath.Base(path)}}
		}
		abs = wd + sep + path
	}
	vol := filepath.VolumeName(abs)
	root := vol + sep
	var out []watchTarget
	resolved := root
	rest := strings.Split(abs[len(vol):], sep)
	for links := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil { // missing: its creation counts
			return append(out, watchTarget{dir: resolved, name: c, link: true})
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			if len(rest) == 0 {
				out = append(out, watchTarget{dir: resolved, name: c})
			}
			resolved = next
			continue
		}
		out = append(out, watchTarget{dir: resolved, name: c, link: true})
		target, err := os.Readlink(next)
		if links++; err != nil || links > maxLinks {
			return out
		}
		if filepath.IsAbs(target) {
			resolved = filepath.VolumeName(target) + sep
			target = target[len(filepath.VolumeName(target)):]
		}
		rest = append(strings.Split(target, sep), rest...)
	}
	if len(out) == 0 { // path is the root
		out = append(out, watchTarget{dir: resolved, name: "."})
	}
	return out
}

// fileWatch is a running watch of targets: a value on events for each
// batch of changes; events is closed when the watch ends.
type fileWatch struct {
	targets []watchTarget
	events  chan struct{}
	close   func()
}
