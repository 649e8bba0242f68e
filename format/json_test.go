package format_test

import (
	"encoding/json"
	"testing"

	"github.com/hieracc/hieracc/format"
	. "github.com/hieracc/hieracc/format/formattest"
)

func TestHashMarshalJSON(t *testing.T) {
	var nilHash *format.Hash
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"order kept", H("b", int64(1), "a", int64(2)), `{"b":1,"a":2}`},
		{"nested", A(H("z", H("y", A("x")), "a", nil)), `[{"z":{"y":["x"]},"a":null}]`},
		{"scalar keys", H(int64(1), "i", true, "b", 1.5, "f", nil, "n"), `{"1":"i","true":"b","1.5":"f","":"n"}`},
		{"escaped key", H("a\"<b", 1.25), `{"a\"\u003cb":1.25}`},
		// Ruby 3.1: JSON.generate({1.0=>1, 1e20=>2, 1.5=>3, 100.0=>4, nil=>5})
		{"float keys", H(1.0, int64(1), 1e20, int64(2), 1.5, int64(3), 100.0, int64(4), nil, int64(5)), `{"1.0":1,"1.0e+20":2,"1.5":3,"100.0":4,"":5}`},
		{"empty", H(), `{}`},
		{"nil", nilHash, `null`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.v)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s: json.Marshal = %s, want %s", tt.name, got, tt.want)
		}
	}
	if _, err := json.Marshal(H("nan", 0.0/zero())); err == nil {
		t.Error("NaN value: no error")
	}
}

func zero() float64 { return 0 }
