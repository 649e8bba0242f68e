package lookupopts

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
)

func TestParseConvertTo(t *testing.T) {
	for _, tt := range []struct {
		setting any
		want    []format.Value
		wantErr string
	}{
		{nil, nil, ""},
		{"Sensitive", []format.Value{"Sensitive"}, ""},
		{[]any{"Array", true}, []format.Value{"Array", true}, ""},
		{"Hash", []format.Value{"Hash"}, ""},
		{"Timestamp", nil, "cannot apply convert_to 'Timestamp'"},
		{[]any{"String", "%x"}, nil, "format arguments are not supported"},
		{"integer", nil, "Invalid data type in lookup_options for key 'k' could not parse 'integer'"},
		{[]any{"Integer", 1.5}, nil, "only string, integer and boolean"},
		{int64(3), nil, "only as a type name"},
	} {
		got, err := ParseConvertTo("k", tt.setting)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseConvertTo(%#v) = %v, %v; want error %q", tt.setting, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(tt.want, got) {
			t.Errorf("ParseConvertTo(%#v) = %v, %v; want %v", tt.setting, got, err, tt.want)
		}
	}
}
