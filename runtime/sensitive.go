package runtime

import (
	"fmt"
	"io"
)

// Sensitive is a value that Puppet's Sensitive type wraps: lookups of a key
// whose lookup_options say convert_to: Sensitive return one. Printing it
// (String, any fmt verb, JSON) gives Puppet's "Sensitive [value redacted]";
// only Unwrap gives the value.
type Sensitive struct{ v any }

// Redacted is what a Sensitive prints, as Puppet's does.
const Redacted = "Sensitive [value redacted]"

// Unwrap returns the wrapped value (shared with the bundle: do not modify it).
func (s *Sensitive) Unwrap() any { return s.v }

// String returns Redacted.
func (s *Sensitive) String() string { return Redacted }

// GoString returns Redacted, so that %#v does not show the value.
func (s *Sensitive) GoString() string { return Redacted }

// Format prints Redacted for every verb.
func (s *Sensitive) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, Redacted) }

// MarshalJSON gives the JSON string puppet lookup --render-as json prints.
func (s *Sensitive) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }
