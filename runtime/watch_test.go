package runtime_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/hieracc/hieracc/runtime"
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
			old := runtime.SetNoInotify(poll)
			defer runtime.SetNoInotify(old)
			path := filepath.Join(t.TempDir(), "node.bundle")
			writeBundle(t, path, "r1", "one")
			r, err := runtime.NewReloader(path)
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
			writeFile(t, path, []byte("not a bundle at all"))
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
	r, err := runtime.NewReloader(path)
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
