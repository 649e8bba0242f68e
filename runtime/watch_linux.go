package runtime

import (
	"bytes"
	"os"
	"syscall"
	"unsafe"
)

// noInotify makes Watch poll, for tests.
var noInotify = false

// watchFile watches the folder dir for changes to the file name in it,
// with inotify: the folder, since the file is replaced by a rename and a
// watch of the file itself would follow the old one.
func watchFile(dir, name string) (*fileWatch, error) {
	if noInotify {
		return nil, syscall.ENOSYS
	}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	const mask = syscall.IN_CLOSE_WRITE | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
	if _, err := syscall.InotifyAddWatch(fd, dir, mask); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	// A non-blocking descriptor given to os.NewFile is read through Go's
	// poller, so that Close interrupts a pending Read.
	f := os.NewFile(uintptr(fd), "inotify")
	w := &fileWatch{events: make(chan struct{}, 1)}
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
			hit, ended := scanEvents(buf[:n], name)
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

// scanEvents reports whether a batch of inotify events concerns the file
// name (or may have: a queue overflow), and whether the watch ended.
func scanEvents(buf []byte, name string) (hit, ended bool) {
	for len(buf) >= syscall.SizeofInotifyEvent {
		ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[0]))
		end := syscall.SizeofInotifyEvent + int(ev.Len)
		if end > len(buf) {
			break
		}
		evName := string(bytes.TrimRight(buf[syscall.SizeofInotifyEvent:end], "\x00"))
		switch {
		case ev.Mask&syscall.IN_Q_OVERFLOW != 0:
			hit = true
		case ev.Mask&(syscall.IN_IGNORED|syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF) != 0:
			hit, ended = true, true
		case evName == name:
			hit = true
		}
		buf = buf[end:]
	}
	return hit, ended
}
