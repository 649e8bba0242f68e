package hiera

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
)

// TestConvert pins conversions beyond the conformance case
// (testdata/conformance/convert-to), whose answers real Puppet gave.
func TestConvert(t *testing.T) {
	tests := []struct {
		spec    []format.Value
		in      any
		want    any
		wantErr string
	}{
		{[]format.Value{"Integer"}, "08", nil, `invalid value for Integer(): "08"`},
		{[]format.Value{"Integer"}, "- 5", int64(-5), ""},
		{[]format.Value{"Integer", int64(16)}, "ff", nil, "The string 'ff' cannot be converted to Integer"},
		{[]format.Value{"Integer", int64(3)}, "1", nil, "Illegal radix: 3, expected 2, 8, 10, 16, or default"},
		{[]format.Value{"Integer", "default", true}, "-1", nil, "The function 'new' was called with arguments it does not accept"},
		{[]format.Value{"Integer"}, -2.7, int64(-2), ""},
		{[]format.Value{"Float"}, "0b11", 3.0, ""},
		{[]format.Value{"Float", true}, "-1.5", 1.5, ""},
		{[]format.Value{"Boolean"}, "YES", true, ""},
		{[]format.Value{"Boolean"}, nil, nil, "Value of type Undef cannot be converted to Boolean"},
		{[]format.Value{"String"}, []any{"it's"}, `['it\'s']`, ""},
		{[]format.Value{"String"}, 1.5, "1.500000", ""},
		{[]format.Value{"String"}, []any{1.5}, "[1.5]", ""},
		{[]format.Value{"Array"}, "hé", []any{"h", "é"}, ""},
		{[]format.Value{"Array"}, true, nil, "Value of type Boolean cannot be converted to Array"},
		{[]format.Value{"Array", true}, []any{int64(1)}, []any{int64(1)}, ""},
		{[]format.Value{"Sensitive"}, "x", "x", ""}, // readers wrap it
	}
	for _, tt := range tests {
		got, err := Convert("k", tt.spec, tt.in, false)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "The convert_to lookup_option for key 'k' raised error: ") {
				t.Errorf("Convert(%v, %#v) = %#v, %v; want error %q", tt.spec, tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Convert(%v, %#v): %v", tt.spec, tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Convert(%v, %#v) (-want +got):\n%s", tt.spec, tt.in, d)
		}
	}
}
