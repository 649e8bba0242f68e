package hiera

// Secrets in messages: a value that holds text decrypted from eyaml's
// ENC[...] (or that lookup_options convert to Sensitive) never reaches a
// message. Puppet quotes such a value in some of its messages ("The string
// 'Pl41n' cannot be converted to Integer"); hieracc keeps Puppet's
// wording and writes Redacted where the value would be.

import (
	"errors"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// Redacted stands for a secret in a message.
const Redacted = "[value redacted]"

// RedactMessage returns msg with the strings of the values vals (their
// leaves, at any depth) written as Redacted wherever msg quotes them: in
// single quotes ('s'), as Ruby inspects them ("s") or as Puppet's types
// print them. A string of four characters or more is redacted wherever it
// occurs, quoted or not; a shorter one only where quoted, so that "a"
// does not take every "a" of the sentence with it. Hash keys are left
// alone: eyaml decrypts values only, and a key names what a message is
// about (a Struct's member, "entry 'password'").
func RedactMessage(msg string, vals ...any) string {
	return redact(msg, true, vals)
}

// redactQuoted is RedactMessage for strings redacted only where quoted.
func redactQuoted(msg string, vals ...any) string {
	return redact(msg, false, vals)
}

func redact(msg string, bare bool, vals []any) string {
	var ss []string
	for _, v := range vals {
		ss = appendStrings(ss, v)
	}
	if len(ss) == 0 {
		return msg
	}
	// The longest first: a string that holds another is redacted whole.
	slices.SortFunc(ss, func(a, b string) int { return len(b) - len(a) })
	ss = slices.Compact(ss)
	// A mark stands for Redacted until the end, so that a secret cannot
	// match the text that replaced another.
	const mark = "\x00"
	for _, s := range ss {
		for _, form := range [...]string{ruby.Inspect(s), ruby.PuppetQuote(s), "'" + s + "'"} {
			msg = strings.ReplaceAll(msg, form, "'"+mark+"'")
		}
		if bare && len(s) >= 4 {
			msg = strings.ReplaceAll(msg, s, mark)
		}
	}
	return strings.ReplaceAll(msg, mark, Redacted)
}

// appendStrings appends the non-empty strings v holds, but for hash keys.
func appendStrings(ss []string, v any) []string {
	switch v := v.(type) {
	case string:
		if v != "" {
			ss = append(ss, v)
		}
	case []any:
		for _, e := range v {
			ss = appendStrings(ss, e)
		}
	case *format.Hash:
		for i := range v.Len() {
			ss = appendStrings(ss, v.Value(i))
		}
	}
	return ss
}

// redactedError is an error whose message quotes a value, with the
// message that says Redacted instead.
type redactedError struct{ msg, redacted string }

func (e *redactedError) Error() string { return e.msg }

// redactConvertError is the message of a failed conversion of the secret
// v: out, when not nil, is what v was converted to before the result
// failed its type check (a number read from the secret text).
func redactConvertError(err error, v, out any) string {
	var re *redactedError
	if errors.As(err, &re) {
		return RedactMessage(re.redacted, v)
	}
	msg := RedactMessage(err.Error(), v)
	switch out.(type) {
	case int64, float64, bool:
		if _, isStr := v.(string); isStr {
			// The type check describes the number ("got Integer[42, 42]").
			msg = redactNumber(msg, ruby.ToS(out))
		}
	}
	return msg
}

// redactNumber replaces each occurrence of the number text n in msg that
// is not part of a longer number or word.
func redactNumber(msg, n string) string {
	var b strings.Builder
	for {
		i := strings.Index(msg, n)
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		end := i + len(n)
		if (i > 0 && wordByte(msg[i-1])) || (end < len(msg) && wordByte(msg[end])) {
			b.WriteString(msg[:end])
		} else {
			b.WriteString(msg[:i])
			b.WriteString(Redacted)
		}
		msg = msg[end:]
	}
}

func wordByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
