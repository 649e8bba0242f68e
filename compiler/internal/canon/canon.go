// Package canon writes the canonical text of a value that digests and
// cache keys are made of: unambiguous, types, lengths and order included,
// so that two values have the same text only when they are the same.
package canon

import (
	"fmt"
	"strconv"

	"github.com/hieracc/hieracc/format"
)

// Append appends v's canonical text to b.
func Append(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, 'n')
	case bool:
		if v {
			return append(b, 't')
		}
		return append(b, 'f')
	case int64:
		return append(strconv.AppendInt(append(b, 'i'), v, 10), ';')
	case float64:
		return append(strconv.AppendFloat(append(b, 'd'), v, 'g', -1, 64), ';')
	case string:
		return append(append(strconv.AppendInt(append(b, 's'), int64(len(v)), 10), ':'), v...)
	case []any:
		b = append(strconv.AppendInt(append(b, 'a'), int64(len(v)), 10), ':')
		for _, e := range v {
			b = Append(b, e)
		}
		return b
	case *format.Hash:
		b = append(strconv.AppendInt(append(b, 'h'), int64(v.Len()), 10), ':')
		for k, e := range v.All() {
			b = Append(Append(b, k), e)
		}
		return b
	}
	return fmt.Appendf(append(b, '?'), "%T:%v;", v, v)
}
