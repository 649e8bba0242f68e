package dataload

import "fmt"

// JSONValue parses src with the same rules as JSON (Ruby's JSON.parse),
// whatever its top-level value: readers of documents that are not data
// files (a PuppetDB export is an array of records) get the values Puppet's
// JSON reader would give them. An integer beyond 64 bits, which the value
// model cannot hold, is an error.
func JSONValue(name string, src []byte) (any, *Problem) {
	if len(src) > MaxFileSize {
		return nil, &Problem{Pos: Pos{1, 1}, Message: fmt.Sprintf("Unable to parse (%s): hieracc: file larger than %d bytes", name, MaxFileSize)}
	}
	p := &jsonParser{src: src}
	v, err := p.document()
	if err != nil {
		return nil, &Problem{Pos: offsetPos(src, err.off), Message: fmt.Sprintf("Unable to parse (%s): %s", name, err.msg)}
	}
	v = unwrapJSON(v)
	if hasBig(v) {
		return nil, &Problem{Pos: offsetPos(src, p.start), Message: fmt.Sprintf("(%s): hieracc cannot represent an integer beyond 64 bits", name)}
	}
	return v, nil
}
