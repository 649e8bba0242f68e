package ptype_test

import (
	"strings"
	"testing"

	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/format/ptype"
)

// FuzzParse feeds Parse any text (a --type flag is user input): it must
// never panic, and a type it accepts must print as a type that parses
// back to it, and normalize, match and check values without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"String", "Integer[0, 10]", "Array[String, 1]", "Hash[String, Data]",
		"Struct[{a => Optional[Integer], NotUndef[b] => String}]", "Variant[Enum[a, 'b'], Pattern[/^c/]]",
		"Tuple[String, 1, 3]", "Optional[Sensitive[String]]", "Foo::Bar[1]", "Float[default, 1.5]", "{", "Enum[", "Pattern[/(/]"} {
		f.Add(s)
	}
	values := []any{nil, true, int64(3), 1.5, "a", A("a", int64(1)), A(), H("a", int64(1)), H(), H(int64(1), A(nil))}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ptype.Parse(s)
		if err != nil {
			return
		}
		// What String prints parses back to the same type (a reference
		// aside: Puppet prints it as TypeReference['...']).
		if str := typ.String(); !strings.Contains(str, "TypeReference[") {
			if again, err := ptype.Parse(str); err != nil || again.String() != str {
				t.Errorf("%s prints as %s, which parses as %v, %v", s, str, again, err)
			}
		}
		_ = typ.Normalize().String()
		for _, v := range values {
			if err := typ.Check("Found value", v); (err == nil) != typ.Match(v) {
				t.Errorf("%s: Check and Match disagree on %v", s, v)
			}
		}
	})
}
