package dataload

import (
	"fmt"

	"github.com/hieracc/hieracc/compiler/diagnostics"
)

// JSONValue parses src with the same rules as JSON (Ruby's JSON.parse),
// whatever its top-level value: readers of documents that are not data
// files (a PuppetDB export is an array of records) get the values Puppet's
// JSON reader would give them. An integer beyond 64 bits, which the value
// model cannot hold, is an error.
func JSONValue(name string, src []byte) (any, *diagnostics.Diagnostic) {
	if len(src) > MaxFileSize {
		d := problem(name, Pos{1, 1}, fmt.Sprintf("Unable to parse (%s): hieracc: file larger than %d bytes", name, MaxFileSize))
		return nil, &d
	}
	p := &jsonParser{src: src}
	v, err := p.document()
	if err != nil {
		d := problem(name, offsetPos(src, err.off), fmt.Sprintf("Unable to parse (%s): %s", name, err.msg))
		return nil, &d
	}
	v = unwrapJSON(v)
	if hasBig(v) {
		d := problem(name, offsetPos(src, p.start), fmt.Sprintf("(%s): hieracc cannot represent an integer beyond 64 bits", name))
		return nil, &d
	}
	return v, nil
}
