package runtime

import (
	"slices"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
)

// Options are the arguments of Puppet's lookup() beyond the names.
//
// Their precedence is lookup()'s: for each name in turn, a value in
// Override, else the bundle's value, and the first name found wins; when
// no name is found, the first name present in DefaultValues; then
// DefaultFunc; then Default. A failure (a recorded error, a failed merge)
// stops the lookup: later names are not tried.
//
// Values given here are returned as they are, and must be of the kinds a
// format.Value holds (int64, not int) for ValueType and runtime/render to
// know them.
type Options struct {
	// Merge, when set, replaces the merge strategy lookup_options give the
	// key: the value is merged again from the contributions.
	Merge *format.Merge
	// ValueType, when set, is the type the value must have (lookup's
	// value_type; see ptype.Parse): a value of another type, wherever it
	// comes from, fails the lookup with a *ptype.MismatchError whose
	// message is Puppet's ("Found value has wrong type, expects ...").
	ValueType *ptype.Type
	// Override holds values that replace the bundle's, by name (lookup's
	// override).
	Override map[string]any
	// DefaultValues holds values used when no name is found, by name
	// (lookup's default_values_hash).
	DefaultValues map[string]any
	// DefaultFunc, when set, computes the value when nothing is found, as
	// lookup()'s lambda does; it is given the names looked up. An error it
	// returns is the lookup's.
	DefaultFunc func(names []string) (any, error)
	// Default is the value when nothing is found, when HasDefault is set
	// (lookup's default_value; nil is a valid default).
	Default    any
	HasDefault bool
}

// LookupWith is Lookup with lookup() options.
func (b *Bundle) LookupWith(key string, o Options) (any, error) {
	return b.LookupNames([]string{key}, o)
}

// LookupNames is lookup() given several names: the value of the first name
// found, with o's overrides and defaults as Options says. Nothing found
// gives a *NotFoundError naming every name.
func (b *Bundle) LookupNames(names []string, o Options) (any, error) {
	for _, name := range names {
		if v, ok := o.Override[name]; ok {
			return o.check("Value found for key '"+name+"' in override hash", v)
		}
		v, found, err := b.search(name, o.Merge)
		if err != nil {
			return nil, err
		}
		if found {
			return o.check("Found value", v)
		}
	}
	for _, name := range names {
		if v, ok := o.DefaultValues[name]; ok {
			return o.check("Value found for key '"+name+"' in default values hash", v)
		}
	}
	switch {
	case o.DefaultFunc != nil:
		v, err := o.DefaultFunc(slices.Clone(names))
		if err != nil {
			return nil, err
		}
		return o.check("Value returned from default block", v)
	case o.HasDefault:
		return o.check("Default value", o.Default)
	}
	return nil, &NotFoundError{Names: slices.Clone(names)}
}

// check asserts the value type, as Puppet's lookup does for subject.
func (o *Options) check(subject string, v any) (any, error) {
	if o.ValueType != nil {
		if err := o.ValueType.Check(subject, v); err != nil {
			return nil, err
		}
	}
	return v, nil
}
