package hiera

import (
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// TestConvertSecret pins the message of a failed conversion of a secret:
// Puppet's, with [value redacted] where Puppet's quotes the value, and
// nothing of the secret's text anywhere.
func TestConvertSecret(t *testing.T) {
	const prefix = "The convert_to lookup_option for key 'k' raised error: "
	tests := []struct {
		spec   []format.Value
		in     any
		secret []string // the texts that must not appear
		want   string
	}{
		{[]format.Value{"Integer"}, "Pl41n", []string{"Pl41n"}, "'new' The string '[value redacted]' cannot be converted to Integer"},
		{[]format.Value{"Integer"}, "08", []string{"08"}, "invalid value for Integer(): [value redacted]"},
		{[]format.Value{"Integer"}, "99999999999999999999", []string{"9999"}, "hieracc cannot hold the Integer [value redacted], beyond 64 bits"},
		{[]format.Value{"Integer[0, 10]"}, "4242", []string{"4242"}, "Converted value from Integer[0, 10].new() has wrong type, expects an Integer[0, 10] value, got Integer[[value redacted], [value redacted]]"},
		{[]format.Value{"Integer[0, 10]"}, "0x2A", []string{"42", "0x2A"}, "Converted value from Integer[0, 10].new() has wrong type, expects an Integer[0, 10] value, got Integer[[value redacted], [value redacted]]"},
		{[]format.Value{"Float"}, "x", []string{"'x'"}, "'new_float' The string '[value redacted]' cannot be converted to Float"},
		{[]format.Value{"Boolean"}, "maybe", []string{"maybe"}, "'new_boolean' The string '[value redacted]' cannot be converted to Boolean"},
		{[]format.Value{"Enum[a, b]"}, "S3cret", []string{"S3cret"}, "Creation of new instance of type 'Enum['a', 'b']' is not supported"},
		{[]format.Value{"Struct[{pw => Enum[x]}]"}, h("pw", "S3cret"), []string{"S3cret"}, "Converted value from Struct[{'pw' => Enum['x']}].new() has wrong type, entry 'pw' expects a match for Enum['x'], got '[value redacted]'"},
		{[]format.Value{"Array[Integer]"}, a("it's S3cret\n"), []string{"S3cret"}, "Converted value from Array[Integer].new() has wrong type, index 0 expects an Integer value, got String"},
		{[]format.Value{"Integer"}, h("from", "S3cret"), []string{"S3cret"}, ""},
		{[]format.Value{"Integer"}, h("from", "1", "radix", "ab"), []string{"ab"}, "Illegal radix: [value redacted], expected 2, 8, 10, 16, or default"},
		// The type itself, from options that hold decrypted text.
		{[]format.Value{"TypeS3cret"}, "x", []string{"TypeS3cret"}, "Creation of new instance of type 'TypeReference['[value redacted]']' is not supported"},
	}
	for _, tt := range tests {
		_, err := Convert("k", tt.spec, tt.in, true)
		if err == nil {
			t.Errorf("Convert(%v, %#v): no error", tt.spec, tt.in)
			continue
		}
		msg := err.Error()
		for _, s := range tt.secret {
			if strings.Contains(msg, s) {
				t.Errorf("Convert(%v, %#v) quotes %q: %s", tt.spec, tt.in, s, msg)
			}
		}
		if tt.want != "" && msg != prefix+tt.want {
			t.Errorf("Convert(%v, %#v) = %q, want %q", tt.spec, tt.in, msg, prefix+tt.want)
		}
		// Not secret, the message is Puppet's own: the same unless it
		// quotes the value.
		if _, err := Convert("k", tt.spec, tt.in, false); err == nil || (err.Error() == msg) == strings.Contains(err.Error(), tt.secret[0]) {
			t.Errorf("Convert(%v, %#v, not secret) = %v, want Puppet's message", tt.spec, tt.in, err)
		}
	}
}

func TestRedactMessage(t *testing.T) {
	tests := []struct {
		msg  string
		vals []any
		want string
	}{
		{"The string 'a' is a string", []any{"a"}, "The string '[value redacted]' is a string"},
		{`got "it's\n"`, []any{"it's\n"}, "got '[value redacted]'"},
		{"value redacted and value", []any{"value", "redacted"}, "[value redacted] [value redacted] and [value redacted]"},
		{"entry 'pw' got 'x'", []any{h("pw", "x")}, "entry 'pw' got '[value redacted]'"},
	}
	for _, tt := range tests {
		if got := RedactMessage(tt.msg, tt.vals...); got != tt.want {
			t.Errorf("RedactMessage(%q, %v) = %q, want %q", tt.msg, tt.vals, got, tt.want)
		}
	}
}
