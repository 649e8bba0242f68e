package reload

// SetNoInotify makes Watch poll, as where inotify is unavailable.
func SetNoInotify(v bool) (old bool) { old, noInotify = noInotify, v; return old }
