package hiera

// The new functions of Integer, Float, Numeric and Boolean (Puppet 7.23,
// pops/types/types.rb), with Ruby's Integer() and Float() on the strings
// their patterns let through.

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
	"github.com/hieracc/hieracc/format/ruby"
)

// Puppet's patterns of convertible strings (types.rb); Ruby's \s is
// [ \t\r\n\f\v], [[:blank:]] is [ \t].
const (
	rbSpace    = `[ \t\r\n\f\v]`
	signPrefix = `^[+-]?` + rbSpace + `*`
	intHex     = `(?:0[xX][0-9A-Fa-f]+)`
	intOct     = `(?:0[0-7]+)`
	intBin     = `(?:0[bB][01]+)`
	intDec     = `(?:0|[1-9][0-9]*)`
	floatDec   = `(?:` + intDec + `(?:\.[0-9]+)?(?:[eE]-?[0-9]+)?)`
)

var (
	integerLenient = regexp.MustCompile(signPrefix + `(?:[0-9]+|` + intHex + `|` + intBin + `)$`)
	floatPattern   = regexp.MustCompile(signPrefix + `(?:` + floatDec + `|` + intHex + `|` + intOct + `|` + intBin + `)$`)
	// Patterns::WS_BETWEEN_SIGN_AND_NUMBER
	wsAfterSign = regexp.MustCompile(`^([+-])[ \t]+(.*)$`)
	// Patterns::NUMERIC, for Utils.to_n
	numericPattern = regexp.MustCompile(`^[ \t]*([-+]?)[ \t]*((0[xX][0-9A-Fa-f]+)|(0?[0-9]+)((?:\.[0-9]+)?(?:[eE]-?[0-9]+)?))[ \t]*$`)
	zeroExponent   = regexp.MustCompile(`^\.?0*[eE]`)
)

// errTooBig refuses an Integer that format cannot hold.
func errTooBig(what string) error {
	return &redactedError{fmt.Sprintf("hieracc cannot hold the Integer %s, beyond 64 bits", what),
		"hieracc cannot hold the Integer " + Redacted + ", beyond 64 bits"}
}

// newInteger is Integer.new(from, radix = default, abs = false), and
// Integer.new({from => ..., radix => ..., abs => ...}).
func newInteger(v any, args []format.Value) (any, error) {
	if len(args) > 2 {
		return nil, notAccepted("new")
	}
	radix, abs := int64(0), false
	if len(args) > 0 {
		r, ok := args[0].(int64)
		if !ok { // data cannot spell Puppet's default: no signature takes it
			return nil, notAccepted("new")
		}
		radix = r
	}
	if len(args) > 1 {
		b, ok := args[1].(bool)
		if !ok {
			return nil, notAccepted("new")
		}
		abs = b
	}
	if h, ok := v.(*format.Hash); ok && len(args) == 0 {
		return integerFromHash(h)
	}
	if !validRadix(radix) {
		// argument_mismatch on_error checks the radix first.
		return nil, illegalRadix(radix)
	}
	if !integerConvertible(v) {
		return nil, valueOfType("new", v, "Integer")
	}
	return integerArgs(v, int(radix), abs)
}

func validRadix(r int64) bool { return r == 0 || r == 2 || r == 8 || r == 10 || r == 16 }

func illegalRadix(r int64) error {
	return fmt.Errorf("Illegal radix: %d, expected 2, 8, 10, 16, or default", r)
}

// integerArgs is from_args of Integer's new function; radix 0 is default.
func integerArgs(from any, radix int, abs bool) (int64, error) {
	n, err := integerFrom(from, radix)
	if err != nil {
		return 0, err
	}
	if abs && n < 0 {
		if n == math.MinInt64 {
			return 0, errTooBig("9223372036854775808")
		}
		n = -n
	}
	return n, nil
}

// integerConvertible is Integer's Convertible type: Numeric (a NaN is
// not), Boolean, or a string of INTEGER_PATTERN_LENIENT.
func integerConvertible(v any) bool { return numberConvertible(v, integerLenient) }

// integerFrom is from_convertible of Integer's new function.
func integerFrom(v any, radix int) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float64:
		if math.IsInf(x, 0) {
			return 0, errors.New(ruby.Float(x)) // Ruby's FloatDomainError
		}
		t := math.Trunc(x)
		if t >= 9223372036854775808.0 || t < -9223372036854775808.0 {
			return 0, errTooBig(strconv.FormatFloat(t, 'f', 0, 64))
		}
		return int64(t), nil
	}
	s := v.(string)
	n, err := rubyInteger(s, radix)
	if err != nil {
		// Whitespace between the sign and the number: tried again without.
		if m := wsAfterSign.FindStringSubmatch(s); m != nil {
			if n2, err2 := integerFrom(m[1]+m[2], radix); err2 == nil {
				return n2, nil
			}
		}
		return 0, err
	}
	return n, nil
}

// integerFromHash is Integer.new(hash): the NamedArgs signature
// (Struct[{from => Convertible, Optional[radix] => Radix, Optional[abs] =>
// Boolean}]), else its argument_mismatch handler on_error_hash.
func integerFromHash(h *format.Hash) (any, error) {
	from, hasFrom := h.Get("from")
	radixV, _ := h.Get("radix")
	absV, _ := h.Get("abs")
	radix, radixOK := radixV.(int64)
	radixOK = radixV == nil || radixOK && radix != 0 && validRadix(radix)
	_, absOK := absV.(bool)
	absOK = absOK || absV == nil
	onlyKnown := true
	for _, k := range h.Keys() {
		if k != "from" && k != "radix" && k != "abs" {
			onlyKnown = false
		}
	}
	if hasFrom && onlyKnown && integerConvertible(from) && radixOK && absOK {
		return integerArgs(from, int(radix), absV == true)
	}
	if hasFrom && !integerConvertible(from) {
		return nil, valueOfType("new", from, "Integer")
	}
	if radixV != nil && !radixOK { // assert_radix
		return nil, &redactedError{fmt.Sprintf("Illegal radix: %s, expected 2, 8, 10, 16, or default", ruby.ToS(radixV)),
			"Illegal radix: " + Redacted + ", expected 2, 8, 10, 16, or default"}
	}
	// TypeAsserter.assert_instance_of('Integer.new', NamedArgs, hash)
	// describe_PStructType: a hash that is not typed a Struct (a key that
	// is not a non-empty string) is described by its size, else as a
	// whole; a Struct by its keys.
	if !ptype.IsStruct(h) {
		if h.Len() == 0 || h.Len() > 3 {
			return nil, fmt.Errorf("Integer.new has wrong type, expects size to be between 1 and 3, got %d", h.Len())
		}
		return nil, errors.New("Integer.new has wrong type, expects a " + namedArgsName + " value, got " + ptype.HashTypeOf(h))
	}
	for _, t := range namedArgs {
		if err := t.Check("Integer.new", h); err != nil {
			return nil, err
		}
	}
	return nil, errors.New("Integer.new has wrong type, expects a " + namedArgsName + " value")
}

// Integer's NamedArgs type, as Puppet prints it, and as ptype can check
// it: the keys first, then abs (from and radix are checked before).
const namedArgsName = `NamedArgs = Struct[{'from' => Convertible = Variant[Numeric, Boolean, Pattern[/\A[+-]?\s*(?:(?:\d+)|(?:0[xX][0-9A-Fa-f]+)|(?:0[bB][01]+))\z/], Timespan, Timestamp], Optional['radix'] => Radix = Variant[Default, Integer[2, 2], Integer[8, 8], Integer[10, 10], Integer[16, 16]], Optional['abs'] => Boolean}]`

var namedArgs = []*ptype.Type{
	ptype.MustParse("Struct[{from => Scalar, Optional[radix] => Any, Optional[abs] => Any}]"),
	ptype.MustParse("Struct[{from => Scalar, Optional[radix] => Any, Optional[abs] => Boolean}]"),
}

// rubyInteger is Ruby's Integer(s) (radix 0) or Integer(s, radix) for the
// strings of Puppet's lenient integer pattern; its error is Ruby's.
func rubyInteger(s string, radix int) (int64, error) {
	bad := &redactedError{"invalid value for Integer(): " + ruby.Inspect(s), "invalid value for Integer(): " + Redacted}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	base := radix
	lower := strings.ToLower(t)
	switch {
	case strings.HasPrefix(lower, "0x") && (radix == 0 || radix == 16):
		base, t = 16, t[2:]
	case strings.HasPrefix(lower, "0b") && (radix == 0 || radix == 2):
		base, t = 2, t[2:]
	case len(t) > 1 && t[0] == '0' && radix == 0:
		base, t = 8, t[1:]
	case radix == 0:
		base = 10
	}
	if t == "" || t[0] == '+' || t[0] == '-' {
		return 0, bad
	}
	u, err := strconv.ParseUint(t, base, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, errTooBig(s)
		}
		return 0, bad
	}
	if u > math.MaxInt64 && !(neg && u == 1<<63) {
		return 0, errTooBig(s)
	}
	n := int64(u)
	if neg {
		n = -n
	}
	return n, nil
}

// newFloat is Float.new(from, abs = false).
func newFloat(v any, args []format.Value) (any, error) {
	v, abs, err := fromAbs("new_float", "Float", v, args)
	if err != nil {
		return nil, err
	}
	f, err := floatFrom(v)
	if err != nil {
		return nil, err
	}
	if abs {
		f = math.Abs(f)
	}
	return f, nil
}

// fromAbs reads the arguments of Float.new and Numeric.new (fn, of type
// typ): (from, abs = false), or a NamedArgs hash {from => ..., abs => ...}
// alone. It returns the value to convert and abs.
func fromAbs(fn, typ string, v any, args []format.Value) (any, bool, error) {
	abs := false
	if len(args) > 1 {
		return nil, false, notAccepted(fn)
	}
	if len(args) == 1 {
		var ok bool
		if abs, ok = args[0].(bool); !ok {
			return nil, false, notAccepted(fn)
		}
	}
	if h, isHash := v.(*format.Hash); isHash && len(args) == 0 {
		if from, ok := namedFrom(h); ok && floatConvertible(from) {
			a, _ := h.Get("abs")
			return from, a == true, nil
		}
	}
	if !floatConvertible(v) {
		return nil, false, valueOfType(fn, v, typ)
	}
	return v, abs, nil
}

// namedFrom is the 'from' of a NamedArgs hash {from => ..., abs => Boolean}.
func namedFrom(h *format.Hash) (any, bool) {
	from, ok := h.Get("from")
	if !ok {
		return nil, false
	}
	for i := range h.Len() {
		switch k := h.Key(i); k {
		case "from":
		case "abs":
			if _, isBool := h.Value(i).(bool); !isBool && h.Value(i) != nil {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return from, true
}

// floatConvertible is Float's and Numeric's Convertible type.
func floatConvertible(v any) bool { return numberConvertible(v, floatPattern) }

// numberConvertible is a number type's Convertible type: Numeric (a NaN
// is not), Boolean, or a string that text matches.
func numberConvertible(v any, text *regexp.Regexp) bool {
	switch x := v.(type) {
	case int64, bool:
		return true
	case float64:
		return !math.IsNaN(x)
	case string:
		return text.MatchString(x)
	}
	return false
}

// floatFrom is from_convertible of Float's new function.
func floatFrom(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	s := v.(string)
	if len(s) == 1 && s[0] == '0' {
		// from[1] is nil: Puppet calls casecmp on it.
		return 0, errors.New("undefined method `casecmp' for nil:NilClass")
	}
	if len(s) > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B') {
		n, err := rubyInteger(s, 0)
		if err != nil {
			return 0, err
		}
		return float64(n), nil
	}
	f, err := rubyFloat(s)
	if err != nil {
		if m := wsAfterSign.FindStringSubmatch(s); m != nil {
			if f2, err2 := floatFrom(m[1] + m[2]); err2 == nil {
				return f2, nil
			}
		}
		return 0, err
	}
	return f, nil
}

// rubyFloat is Ruby's Float(s) for the strings of Puppet's float pattern:
// decimal (a leading 0 is not octal), or hexadecimal.
func rubyFloat(s string) (float64, error) {
	bad := &redactedError{"invalid value for Float(): " + ruby.Inspect(s), "invalid value for Float(): " + Redacted}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	if t == "" || t[0] == '+' || t[0] == '-' || t[0] == ' ' || t[0] == '\t' || t[0] == '\n' || t[0] == '\v' || t[0] == '\f' || t[0] == '\r' {
		return 0, bad
	}
	var f float64
	if len(t) > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		u, err := strconv.ParseUint(t[2:], 16, 64)
		if err != nil {
			return 0, bad
		}
		f = float64(u)
	} else {
		var err error
		if f, err = strconv.ParseFloat(t, 64); err != nil {
			var ne *strconv.NumError
			if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
				return 0, bad
			}
			// Ruby warns "Float out of range" and gives Infinity or 0.
		}
	}
	if neg {
		f = -f
	}
	return f, nil
}

// newNumeric is Numeric.new(from, abs = false).
func newNumeric(v any, args []format.Value) (any, error) {
	v, abs, err := fromAbs("new_numeric", "Numeric", v, args)
	if err != nil {
		return nil, err
	}
	var out any
	switch x := v.(type) {
	case int64, float64:
		out = x
	case bool:
		out = int64(0)
		if x {
			out = int64(1)
		}
	case string:
		if len(x) > 1 && x[0] == '0' && strings.ContainsRune("bBxX", rune(x[1])) {
			n, err := rubyInteger(x, 0)
			if err != nil {
				return nil, err
			}
			out = n
		} else {
			out = toN(x)
		}
	}
	if abs {
		switch x := out.(type) {
		case nil: // to_n found no number
			return nil, errors.New("undefined method `abs' for nil:NilClass")
		case int64:
			if x < 0 {
				out = -x
			}
		case float64:
			out = math.Abs(x)
		}
	}
	return out, nil
}

// toN is Puppet::Pops::Utils.to_n of a string: an Integer, a Float, or
// nil when it is not a number.
func toN(s string) any {
	m := numericPattern.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	if m[5] == "" {
		n, err := rubyInteger(m[2], 0)
		if err != nil {
			return nil
		}
		if m[1] == "-" {
			n = -n
		}
		return n
	}
	// match_to_fp
	if i, err := rubyInteger(m[4], 0); err != nil {
		return nil
	} else if i == 0 && zeroExponent.MatchString(m[5]) {
		return nil
	}
	f, err := rubyFloat(m[2])
	if err != nil || math.IsInf(f, 1) {
		return nil
	}
	if m[1] == "-" {
		f = -f
	}
	return f
}

// newBoolean is Boolean.new(from).
func newBoolean(v any, args []format.Value) (any, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("'new_boolean' expects 1 argument, got %d", len(args)+1)
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	case float64:
		if !math.IsNaN(x) {
			return x != 0, nil
		}
	case string:
		switch strings.ToLower(x) {
		case "true", "yes", "y":
			return true, nil
		case "false", "no", "n":
			return false, nil
		}
	}
	return nil, valueOfType("new_boolean", v, "Boolean")
}
