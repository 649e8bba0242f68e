package reload

import (
	"syscall"
	"testing"
	"unsafe"
)

// TestInotifyEvent: an event read from the kernel's bytes is the struct
// the kernel wrote (its memory, as syscall declares it).
func TestInotifyEvent(t *testing.T) {
	want := syscall.InotifyEvent{Wd: -7, Mask: syscall.IN_MOVED_TO | syscall.IN_ISDIR, Cookie: 0xdeadbeef, Len: 16}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&want)), syscall.SizeofInotifyEvent)
	if got := inotifyEvent(b); got != want {
		t.Errorf("inotifyEvent = %+v, want %+v", got, want)
	}
}
