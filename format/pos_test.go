package format_test

import (
	"testing"

	"github.com/hieracc/hieracc/format"
)

func TestPosString(t *testing.T) {
	tests := []struct {
		pos   format.Pos
		want  string
		valid bool
	}{
		{format.Pos{}, "", false},
		{format.Pos{Line: 3, Column: 5}, "", false}, // no file: nothing to point at
		{format.Pos{File: "data/common.yaml"}, "data/common.yaml", true},
		{format.Pos{File: "data/common.yaml", Line: 3}, "data/common.yaml:3", true},
		{format.Pos{File: "data/common.yaml", Line: 3, Column: 5}, "data/common.yaml:3:5", true},
		{format.Pos{File: "data/common.yaml", Column: 5}, "data/common.yaml", true}, // a column without its line says nothing
		{format.Pos{File: "f", Line: -1, Column: -2}, "f", true},                    // as a hostile bundle may hold
		{format.Pos{File: "https://pdb:8081/pdb/query/v4/factsets", Line: 1, Column: 2}, "https://pdb:8081/pdb/query/v4/factsets:1:2", true},
	}
	for _, tt := range tests {
		if got := tt.pos.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.pos, got, tt.want)
		}
		if got := tt.pos.IsValid(); got != tt.valid {
			t.Errorf("%#v.IsValid() = %v, want %v", tt.pos, got, tt.valid)
		}
	}
}
