package hiera

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// rubySort sorts a copy of a as Ruby's Array#sort! does for deep_merge's
// sort_merged_arrays: elements compare with <=>, and the first pair that
// does not compare fails with Ruby's "comparison of X with Y failed".
// Which pair fails first depends on the algorithm: Ruby hands the array to
// glibc's qsort_r, a top-down merge sort, reproduced here step for step.
func rubySort(a []any) ([]any, error) {
	out := append([]any(nil), a...)
	if len(out) < 2 {
		return out, nil
	}
	tmp := make([]any, len(out))
	if err := msort(out, tmp); err != nil {
		return nil, err
	}
	return out, nil
}

func msort(b, tmp []any) error {
	n := len(b)
	if n <= 1 {
		return nil
	}
	n1 := n / 2
	b1, b2 := b[:n1], b[n1:]
	if err := msort(b1, tmp); err != nil {
		return err
	}
	if err := msort(b2, tmp); err != nil {
		return err
	}
	t := tmp[:0]
	i, j := 0, 0
	for i < len(b1) && j < len(b2) {
		c, ok := rubyCmp(b1[i], b2[j])
		if !ok {
			return cmpError(b1[i], b2[j])
		}
		if c <= 0 {
			t = append(t, b1[i])
			i++
		} else {
			t = append(t, b2[j])
			j++
		}
	}
	t = append(t, b1[i:]...)
	// What remains of b2 is already in place.
	copy(b, t)
	return nil
}

// cmpError is rb_cmperr: the receiver's class, and the argument inspected
// when it is an immediate (nil, true, false, a Fixnum) or a Float.
func cmpError(a, b any) error {
	var arg string
	switch b := b.(type) {
	case nil:
		arg = "nil"
	case bool:
		arg = strconv.FormatBool(b)
	case int64:
		if b >= -(1<<62) && b < 1<<62 {
			arg = strconv.FormatInt(b, 10)
		} else {
			arg = "Integer" // a Bignum is a heap object
		}
	case float64:
		arg = ruby.Float(b)
	default:
		arg = ruby.ClassName(b)
	}
	return fmt.Errorf("comparison of %s with %s failed", ruby.ClassName(a), arg)
}

// rubyCmp is Ruby's a <=> b; ok=false where Ruby returns nil.
func rubyCmp(a, b any) (int, bool) {
	switch a := a.(type) {
	case int64:
		switch b := b.(type) {
		case int64:
			return cmpOrdered(a, b), true
		case float64:
			return cmpIntFloat(a, b)
		}
	case float64:
		switch b := b.(type) {
		case float64:
			if math.IsNaN(a) || math.IsNaN(b) {
				return 0, false
			}
			return cmpOrdered(a, b), true
		case int64:
			c, ok := cmpIntFloat(b, a)
			return -c, ok
		}
	case string:
		if b, ok := b.(string); ok {
			return strings.Compare(a, b), true
		}
	case []any:
		b, ok := b.([]any)
		if !ok {
			return 0, false
		}
		for i := 0; i < len(a) && i < len(b); i++ {
			if c, ok := rubyCmp(a[i], b[i]); !ok || c != 0 {
				return c, ok
			}
		}
		return cmpOrdered(len(a), len(b)), true
	default:
		// Object#<=>: 0 when ==, otherwise nil (nil, booleans, hashes).
		if rubyEqual(a, b) {
			return 0, true
		}
	}
	return 0, false
}

func cmpOrdered[T int | int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpIntFloat compares exactly, as Ruby's rb_integer_float_cmp does.
func cmpIntFloat(i int64, f float64) (int, bool) {
	switch {
	case math.IsNaN(f):
		return 0, false
	case f >= 9223372036854775808.0:
		return -1, true
	case f < -9223372036854775808.0:
		return 1, true
	}
	t := math.Trunc(f)
	ti := int64(t)
	if c := cmpOrdered(i, ti); c != 0 {
		return c, true
	}
	return cmpOrdered(0, f-t), true
}

// rubyEqual is Ruby's ==: numbers compare by value across Integer and
// Float, hashes as sets of entries (keys by eql?, values by ==).
func rubyEqual(a, b any) bool {
	switch a := a.(type) {
	case int64, float64:
		c, ok := rubyCmp(a, b)
		return ok && c == 0
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !rubyEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case *format.Hash:
		b, ok := b.(*format.Hash)
		if !ok || a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			bv, ok := b.Get(a.Key(i))
			if !ok || !rubyEqual(a.Value(i), bv) {
				return false
			}
		}
		return true
	}
	return a == b
}
