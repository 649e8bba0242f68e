// Package rubyfloat is Ruby's Float#to_s. format/ruby.Float is its one
// entry point for every renderer; it lives here only so that package
// format, which format/ruby imports, can name a hash's Float keys as Ruby
// does (Hash.MarshalJSON). Its tests are format/ruby's, recorded from Ruby.
package rubyfloat

import (
	"math"
	"strconv"
	"strings"
)

// Append appends Ruby's Float#to_s of f to b (see format/ruby.Float).
func Append(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	if math.Signbit(f) {
		b = append(b, '-')
		f = -f
	}
	if f == 0 {
		return append(b, "0.0"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d.dddde±XX
	mant, exp, _ := strings.Cut(string(e), "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	decpt := x + 1 // f = 0.digits × 10^decpt
	switch {
	case decpt > 0 && (decpt < len(digits) || decpt <= 15):
		if decpt < len(digits) {
			b = append(b, digits[:decpt]...)
			b = append(b, '.')
			return append(b, digits[decpt:]...)
		}
		b = append(b, digits...)
		for range decpt - len(digits) {
			b = append(b, '0')
		}
		return append(b, ".0"...)
	case decpt <= 0 && decpt > -4:
		b = append(b, "0."...)
		for range -decpt {
			b = append(b, '0')
		}
		return append(b, digits...)
	}
	b = append(b, digits[0], '.')
	if len(digits) > 1 {
		b = append(b, digits[1:]...)
	} else {
		b = append(b, '0')
	}
	b = append(b, 'e')
	if x < 0 {
		b = append(b, '-')
		x = -x
	} else {
		b = append(b, '+')
	}
	if x < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(x), 10)
}
