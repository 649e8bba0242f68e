package encode

import "github.com/hieracc/hieracc/format"

// errTable is the error table of the bundle being encoded: each distinct
// error once, in order of first use, referred to by its index.
type errTable struct {
	list []format.Error
	of   map[format.Error]int32 // index in list
}

// add adds an error to the table and returns its index; -1 for nil.
func (t *errTable) add(x *format.Error) int32 {
	if x == nil {
		return -1
	}
	if i, ok := t.of[*x]; ok {
		return i
	}
	i := int32(len(t.list))
	t.list = append(t.list, *x)
	t.of[*x] = i
	return i
}

// reset empties the table, for the next bundle.
func (t *errTable) reset() {
	if len(t.list) > 0 {
		clear(t.list)
		t.list = t.list[:0]
		clear(t.of)
	}
}

// appendTable appends the body's error table.
func (t *errTable) appendTable(w []byte) []byte {
	w = appendArrayLen(w, len(t.list))
	for i := range t.list {
		x := &t.list[i]
		w = appendArrayLen(w, 5)
		w = appendString(w, x.Message)
		w = appendString(w, x.File)
		w = appendInt(w, int64(x.Line))
		w = appendInt(w, int64(x.Column))
		w = appendString(w, x.Level)
	}
	return w
}
