package reload_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime/reload"
)

type reloadReport struct {
	changed bool
	err     error
}

// TestWatch replaces a bundle under a running Watch, with inotify and by
// polling: a good file is picked up, a bad one is reported and leaves the
// last good bundle in place.
func TestWatch(t *testing.T) {
	for _, poll := range []bool{false, true} {
		name := "inotify"
		if poll {
			name = "poll"
		}
		t.Run(name, func(t *testing.T) {
			old := reload.SetNoInotify(poll)
			defer reload.SetNoInotify(old)
			path := filepath.Join(t.TempDir(), "node.bundle")
			writeBundle(t, path, "r1", "one")
			r, err := reload.NewFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			reports := make(chan reloadReport, 10)
			done := make(chan error, 1)
			go func() {
				done <- r.Watch(ctx, 20*time.Millisecond, func(changed bool, err error) { reports <- reloadReport{changed, err} })
			}()
			next := func() reloadReport {
				t.Helper()
				select {
				case rep := <-reports:
					return rep
				case <-time.After(10 * time.Second):
					t.Fatal("no reload reported within 10s")
				}
				return reloadReport{}
			}
			time.Sleep(50 * time.Millisecond) // let the watch start
			writeBundle(t, path, "r2", "two")
			if rep := next(); !rep.changed || rep.err != nil {
				t.Fatalf("after a new bundle: %+v", rep)
			}
			if v, _ := r.Bundle().Lookup("k"); v != "two" {
				t.Fatalf("k = %v after the reload, want two", v)
			}
			formattest.Replace(t, path, []byte("not a bundle at all"))
			if rep := next(); rep.changed || rep.err == nil {
				t.Fatalf("after a bad file: %+v, want an error", rep)
			}
			if v, _ := r.Bundle().Lookup("k"); v != "two" {
				t.Fatalf("k = %v after a bad file, want the last good bundle's two", v)
			}
			// Several checks of the same bad file: it is reported once.
			time.Sleep(100 * time.Millisecond)
			writeBundle(t, path, "r3", "three")
			if rep := next(); !rep.changed || rep.err != nil {
				t.Fatalf("after a good file again: %+v", rep)
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Watch returned %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Watch did not return after its context was cancelled")
			}
		})
	}
}

// TestWatchInotifyOnly checks that inotify, not the poll, picks a change
// up: the poll interval is an hour.
func TestWatchInotifyOnly(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("inotify is Linux's")
	}
	path := filepath.Join(t.TempDir(), "node.bundle")
	writeBundle(t, path, "r1", "one")
	r, err := reload.NewFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 10)
	go r.Watch(ctx, time.Hour, func(c bool, err error) {
		if c {
			changed <- struct{}{}
		}
	})
	time.Sleep(50 * time.Millisecond)
	// An unrelated file in the folder is not a change.
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "other"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeBundle(t, path, "r2", "two")
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("inotify did not report the replaced bundle")
	}
}

// TestWatchSwitchedLinks: with inotify alone (the poll interval is an
// hour), Watch follows the links on the bundle's path: the usual deploy
// layout, current -> releases/A switched to releases/B (renamed over, or
// removed and made again, the old release then removed), and a bundle
// path that is a link whose target is replaced.
func TestWatchSwitchedLinks(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("inotify is Linux's")
	}
	dir := t.TempDir()
	rel := func(name, rev, value string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "releases", name), 0o755); err != nil {
			t.Fatal(err)
		}
		writeBundle(t, filepath.Join(dir, "releases", name, "n1.bundle"), rev, value)
	}
	rel("A", "r1", "one")
	rel("B", "r2", "two")
	rel("C", "r3", "three")
	current := filepath.Join(dir, "current")
	if err := os.Symlink("releases/A", current); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	writeBundle(t, filepath.Join(store, "x.bundle"), "s1", "store one")
	linked := filepath.Join(dir, "linked.bundle")
	if err := os.Symlink(filepath.Join(store, "x.bundle"), linked); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := func(path string) (*reload.File, chan struct{}) {
		t.Helper()
		r, err := reload.NewFile(path)
		if err != nil {
			t.Fatal(err)
		}
		changed := make(chan struct{}, 10)
		go r.Watch(ctx, time.Hour, func(c bool, err error) {
			if c {
				changed <- struct{}{}
			}
		})
		return r, changed
	}
	wait := func(r *reload.File, changed chan struct{}, what, want string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no reload within 5s", what)
		}
		if v, _ := r.Bundle().Lookup("k"); v != want {
			t.Fatalf("%s: k = %v, want %s", what, v, want)
		}
	}
	deploy, deployed := watch(filepath.Join(current, "n1.bundle"))
	link, linkChanged := watch(linked)
	time.Sleep(50 * time.Millisecond) // let the watches start

	// ln -sfn releases/B current, atomically.
	if err := os.Symlink("releases/B", current+".new"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(current+".new", current); err != nil {
		t.Fatal(err)
	}
	wait(deploy, deployed, "current renamed over to releases/B", "two")
	// The old release goes; then current is removed and made again.
	if err := os.RemoveAll(filepath.Join(dir, "releases", "A")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(current); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("releases/C", current); err != nil {
		t.Fatal(err)
	}
	wait(deploy, deployed, "current made again to releases/C", "three")
	// A new file in the release now current is picked up too.
	writeBundle(t, filepath.Join(dir, "releases", "C", "n1.bundle"), "r4", "four")
	wait(deploy, deployed, "the bundle of releases/C replaced", "four")

	writeBundle(t, filepath.Join(store, "x.bundle"), "s2", "store two")
	wait(link, linkChanged, "the link's target replaced", "store two")
}
