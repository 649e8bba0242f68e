package hiera

// lookup_options convert_to: Puppet's LookupAdapter#convert_result applies
// new(Type, value, args...) to the result of every lookup of a key, after
// merging and digging. This file holds that call, as Puppet 7.23's `new`
// function makes it (functions/new.rb); the conversions of each type are in
// convert_number.go and convert_collection.go. The compiler and the
// runtime share them.
//
// Where hieracc differs from Puppet:
//   - A conversion whose result is not data (a Timestamp, a Timespan, a
//     Regexp...) or whose arguments are not strings, integers or booleans
//     (String's format hashes) is refused when the key is compiled
//     (format/hiera/lookupopts.ParseConvertTo); so is a String format
//     argument and Hash's tree options.
//   - An Integer beyond 64 bits (Integer of 1e20) fails the lookup.
//   - When no signature of a `new` function accepts the arguments, Puppet
//     lists every signature and why it rejected them; hieracc says only
//     the first line ("The function 'new' was called with arguments it
//     does not accept.").

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
)

// Convert applies a convert_to spec (from lookupopts.ParseConvertTo)
// other than Sensitive, which readers apply themselves, to v. Errors carry
// Puppet's message; when v is secret (it holds text decrypted from
// ENC[...]), the message says Redacted where Puppet's quotes the value
// (see RedactMessage).
func Convert(key string, spec []format.Value, v any, secret bool) (any, error) {
	if len(spec) == 0 || spec[0] == "Sensitive" {
		return v, nil
	}
	out, err := convert(spec[0].(string), spec[1:], v)
	if err != nil {
		msg := err.Error()
		if secret {
			msg = redactConvertError(err, v, out)
			// A secret's own convert_to (options that hold decrypted
			// text): its strings where quoted ("TypeReference['x']").
			msg = redactQuoted(msg, spec)
		}
		return nil, errors.New(convertErrorPrefix(key) + msg)
	}
	return out, nil
}

func convertErrorPrefix(key string) string {
	return "The convert_to lookup_option for key '" + key + "' raised error: "
}

// ConvertFailed reports whether msg is the error Convert gives for key:
// the key's value was found, but not converted. A lookup of a dotted key
// under it digs into the value first and converts what it finds (Puppet's
// convert_result wraps the lookup and its dig).
func ConvertFailed(key, msg string) bool {
	return strings.HasPrefix(msg, convertErrorPrefix(key))
}

// convert is Puppet's new(Type, v, args...): v itself when it already is
// an instance of the type (and no arguments are given), else what the
// type's new function makes of it, which must be an instance.
func convert(name string, args []format.Value, v any) (any, error) {
	t, err := ptype.Parse(name)
	if err != nil {
		return nil, err // ParseConvertTo let it through: a bundle from elsewhere
	}
	if len(args) == 0 && t.Match(v) {
		return v, nil
	}
	var out any
	switch tt := ConvertTarget(t); tt.Kind {
	case ptype.Integer:
		out, err = newInteger(v, args)
	case ptype.Float:
		out, err = newFloat(v, args)
	case ptype.Numeric:
		out, err = newNumeric(v, args)
	case ptype.Boolean:
		out, err = newBoolean(v, args)
	case ptype.String:
		out, err = newString(v, args)
	case ptype.Array, ptype.Tuple:
		out, err = newArray(v, args)
	case ptype.Hash, ptype.Struct:
		out, err = newHash(v, args)
	case ptype.NotUndef: // NotUndef without a type: Unit's new
		if len(args) > 0 {
			return nil, errors.New("'new_unit' expects 1 argument, got " + fmt.Sprint(len(args)+1))
		}
		out = v
	default:
		return nil, fmt.Errorf("Creation of new instance of type '%s' is not supported", typeName(tt))
	}
	if err != nil {
		return nil, err
	}
	if cerr := t.Check("Converted value from "+t.String()+".new()", out); cerr != nil {
		return out, cerr // out: for redactConvertError
	}
	return out, nil
}

// ConvertTarget is the type whose new function new(t) calls: Optional[T]'s
// and NotUndef[T]'s is T's.
func ConvertTarget(t *ptype.Type) *ptype.Type {
	for (t.Kind == ptype.Optional || t.Kind == ptype.NotUndef) && t.Elem() != nil {
		t = t.Elem()
	}
	return t
}

// typeName is t as Puppet prints it in "Creation of new instance of type"
// messages: the alias Data resolved.
func typeName(t *ptype.Type) string {
	if t.Kind == ptype.Data {
		return "Variant[ScalarData, Undef, Hash[String, Data], Array[Data]]"
	}
	return t.String()
}

// valueOfType is the message of a new function's argument_mismatch
// handler: "Value of type T cannot be converted to Integer", T the
// generalized inferred type of v, or "The string 's' cannot be converted".
func valueOfType(fn string, v any, to string) error {
	if s, ok := v.(string); ok {
		return &redactedError{fmt.Sprintf("'%s' The string '%s' cannot be converted to %s", fn, s, to),
			fmt.Sprintf("'%s' The string '%s' cannot be converted to %s", fn, Redacted, to)}
	}
	t, err := ptype.Infer(v)
	if err != nil {
		return err // Ruby raised while inferring
	}
	return fmt.Errorf("'%s' Value of type %s cannot be converted to %s", fn, t.Generalize(), to)
}

// notAccepted is the first line of Puppet's message when no signature of
// function fn accepts the arguments.
func notAccepted(fn string) error {
	return fmt.Errorf("The function '%s' was called with arguments it does not accept.", fn)
}
