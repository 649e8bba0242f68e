package render_test

import (
	"fmt"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/runtime/render"
)

// A value as puppet lookup --render-as json, yaml and s print it (Ruby 3.1
// prints the same: to_json, to_yaml and to_s).
func ExampleAs() {
	v := format.NewHash(2)
	v.Set("servers", []any{"0.pool.ntp.org", "1.pool.ntp.org"})
	v.Set("max", 1e15)
	for _, f := range []render.Format{render.JSON, render.YAML, render.Text} {
		out, err := render.As(v, f)
		if err != nil {
			panic(err)
		}
		fmt.Print(string(out))
	}
	// Output:
	// {"servers":["0.pool.ntp.org","1.pool.ntp.org"],"max":1.0e+15}
	// ---
	// servers:
	// - 0.pool.ntp.org
	// - 1.pool.ntp.org
	// max: 1.0e+15
	// {"servers"=>["0.pool.ntp.org", "1.pool.ntp.org"], "max"=>1.0e+15}
}
