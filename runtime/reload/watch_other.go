//go:build !linux

package reload

import "errors"

var noInotify = true

// watchFile is not available here: Watch polls.
func watchFile(targets []watchTarget) (*fileWatch, error) {
	return nil, errors.New("no file watching on this system")
}
