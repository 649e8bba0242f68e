package runtime

import (
	"errors"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/format"
)

// ErrNotFound is matched by the error of every lookup that found no value:
// errors.Is(err, ErrNotFound). The error itself is a *NotFoundError.
var ErrNotFound = errors.New("not found")

// NotFoundError is the error of a lookup that found no value. Error() is
// Puppet's message, which names the keys:
//
//	Function lookup() did not find a value for the name 'ntp::servers'
type NotFoundError struct {
	Names []string // the names looked up, in order
}

func (e *NotFoundError) Error() string {
	if len(e.Names) == 1 {
		return "Function lookup() did not find a value for the name '" + e.Names[0] + "'"
	}
	var b strings.Builder
	b.WriteString("Function lookup() did not find a value for any of the names [")
	for i, n := range e.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + n + "'")
	}
	b.WriteString("]")
	return b.String()
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// MergeError is the failure of a merge a lookup asked for (Options.Merge):
// an unknown strategy, values that cannot merge, arrays that cannot be
// sorted. Error() is Puppet's message. Failures of the merge that
// lookup_options configure were found when the bundle was compiled and are
// returned as the *format.Error recorded for the key.
type MergeError struct {
	Key   string       // the key looked up
	Merge format.Merge // the merge asked for
	Err   error
}

func (e *MergeError) Error() string { return e.Err.Error() }
func (e *MergeError) Unwrap() error { return e.Err }

// misses keeps the *NotFoundError of each key name looked up in vain, so
// that a repeated miss, as when an agent probes an optional key, allocates
// nothing. It holds at most maxMisses names.
type misses struct {
	mu sync.RWMutex
	m  map[string]*NotFoundError
}

const maxMisses = 4096

func (c *misses) get(key string) *NotFoundError {
	c.mu.RLock()
	e := c.m[key]
	c.mu.RUnlock()
	if e != nil {
		return e
	}
	e = &NotFoundError{Names: []string{strings.Clone(key)}}
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[string]*NotFoundError)
	}
	if len(c.m) < maxMisses {
		c.m[e.Names[0]] = e
	}
	c.mu.Unlock()
	return e
}
