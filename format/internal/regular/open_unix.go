//go:build unix

package regular

import "syscall"

// openNonBlock opens a named pipe without waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK
