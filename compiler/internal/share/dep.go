package share

import "slices"

// Dep is one thing a result read from its node: a scope variable, or a
// nested lookup. A result is reused on another node only when each of its
// reads gives the same answer there (Node.Reread).
type Dep struct {
	Lookup bool   // a nested lookup() (else a scope variable)
	Alias  bool   // the lookup was alias()'s
	Global bool   // the lookup was confined to the global layer
	Name   string // key text or variable expression
	Value  any
	Err    string // the error message the read gave, "" if none
	// Stack is the lookup stack of a nested lookup made deeper than the
	// key itself (while a looked-up value was interpolated again): its
	// answer depends on it.
	Stack []string
}

// ErrText is the text a Dep keeps of an error: its message, "" for none.
func ErrText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// cloneOrNil copies s into memory of its own, nil when empty.
func cloneOrNil[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}
