package reload

import (
	"bytes"
	"encoding/binary"
	"os"
	"syscall"
)

// noInotify makes Watch poll, for tests.
var noInotify = false

// watchFile watches the folders of targets for changes to their entries,
// with inotify: the folders, since a file is replaced by a rename and a
// watch of the file itself would follow the old one.
func watchFile(targets []watchTarget) (*fileWatch, error) {
	if noInotify {
		return nil, syscall.ENOSYS
	}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	const mask = syscall.IN_CLOSE_WRITE | syscall.IN_MOVED_TO | syscall.IN_MOVED_FROM | syscall.IN_CREATE | syscall.IN_DELETE |
		syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR
	names := map[int32]map[string]bool{} // watch -> its entries watched -> is a link
	for _, t := range targets {
		wd, err := syscall.InotifyAddWatch(fd, t.dir, mask)
		if err != nil {
			syscall.Close(fd)
			return nil, err
		}
		if names[int32(wd)] == nil {
			names[int32(wd)] = map[string]bool{}
		}
		names[int32(wd)][t.name] = names[int32(wd)][t.name] || t.link
	}
	// A non-blocking descriptor given to os.NewFile is read through Go's
	// poller, so that Close interrupts a pending Read.
	f := os.NewFile(uintptr(fd), "inotify")
	w := &fileWatch{targets: targets, events: make(chan struct{}, 1)}
	done := make(chan struct{})
	w.close = func() {
		close(done)
		f.Close()
	}
	go func() {
		defer close(w.events)
		buf := make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			hit, ended := scanEvents(buf[:n], names)
			if hit {
				select {
				case w.events <- struct{}{}:
				default: // a check is already due
				}
			}
			if ended {
				return
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	return w, nil
}

// scanEvents reports whether a batch of inotify events concerns an entry
// watched (names: by watch, each entry's name, true for a link), or may
// have (a queue overflow), and whether the watch ended. A file's own
// entry counts when it is written or renamed over (its creation, empty,
// is followed by its write); a link's, when it is created, renamed over,
// moved away or removed (a link is never written).
func scanEvents(buf []byte, names map[int32]map[string]bool) (hit, ended bool) {
	const linkMask = syscall.IN_CREATE | syscall.IN_MOVED_FROM | syscall.IN_DELETE
	for len(buf) >= syscall.SizeofInotifyEvent {
		ev := inotifyEvent(buf)
		end := syscall.SizeofInotifyEvent + int(ev.Len)
		if end > len(buf) {
			break
		}
		link, watched := names[ev.Wd][string(bytes.TrimRight(buf[syscall.SizeofInotifyEvent:end], "\x00"))]
		switch {
		case ev.Mask&syscall.IN_Q_OVERFLOW != 0:
			hit = true
		case ev.Mask&(syscall.IN_IGNORED|syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF) != 0:
			hit, ended = true, true
		case !watched:
		case ev.Mask&(syscall.IN_CLOSE_WRITE|syscall.IN_MOVED_TO) != 0:
			hit = true
		case link && ev.Mask&linkMask != 0:
			hit = true
		}
		buf = buf[end:]
	}
	return hit, ended
}

// inotifyEvent reads the fixed part of the event buf starts with (at least
// syscall.SizeofInotifyEvent bytes), in the kernel's byte order.
func inotifyEvent(buf []byte) syscall.InotifyEvent {
	return syscall.InotifyEvent{
		Wd:     int32(binary.NativeEndian.Uint32(buf[0:])),
		Mask:   binary.NativeEndian.Uint32(buf[4:]),
		Cookie: binary.NativeEndian.Uint32(buf[8:]),
		Len:    binary.NativeEndian.Uint32(buf[12:]),
	}
}
