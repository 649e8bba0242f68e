package runtime

import (
	"context"
	"path/filepath"
	"time"
)

// DefaultPollInterval is how often Watch checks the file when it cannot
// be told of changes.
const DefaultPollInterval = time.Second

// Watch keeps r current until ctx is done, then returns ctx's error: it
// calls Reload whenever the file is replaced (renamed over, as the
// compiler does) or rewritten. On Linux it waits for inotify events on the
// file's folder, and still checks every minute; elsewhere, or when inotify
// is unavailable, it checks every pollInterval (DefaultPollInterval when
// 0). A check of an unchanged file costs one stat.
//
// report, when not nil, is told the outcome of every reload that changed
// the bundle or failed. A file that cannot be read or verified (being
// written in place, say) leaves the last good bundle in place: report gets
// the error once, and the next change is tried again.
func (r *Reloader) Watch(ctx context.Context, pollInterval time.Duration, report func(changed bool, err error)) error {
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
	poll := pollInterval
	var events <-chan struct{}
	if w, err := watchFile(filepath.Dir(r.path), filepath.Base(r.path)); err == nil {
		defer w.close()
		events = w.events
		poll = time.Minute // inotify can miss changes on network file systems
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	// The file may have changed before the watch began.
	check()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case _, ok := <-events:
			if !ok { // the watch ended (its folder was removed): poll
				events = nil
				tick.Reset(pollInterval)
				continue
			}
			check()
		case <-tick.C:
			check()
		}
	}
}

// fileWatch is a running watch of one file: a value on events for each
// batch of changes; events is closed when the watch ends.
type fileWatch struct {
	events chan struct{}
	close  func()
}
