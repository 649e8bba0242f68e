package dataload

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hieracc/hieracc/format/ruby"
)

// This file ports Psych::ScalarScanner#tokenize (Psych 4.0, Ruby 3.1): how
// an untagged plain scalar becomes a Ruby value under YAML 1.1 rules. The
// regular expressions are Psych's, in the same order; Ruby anchors ^ and $
// match at line boundaries, which only matters for the multi-line branch
// and is reproduced there with (?m).

var (
	// A string "being careful not to get caught by hash keys, hex values,
	// and special floats". [[:alpha:]] is Unicode in Ruby; non-ASCII text
	// cannot reach any later branch anyway.
	reWordy     = regexp.MustCompile(`^[^\d.:-]?[\p{L}\p{Nl}_\s\v!@#$%^&*(){}<>|/\\~;=]+`)
	reNotBoolML = regexp.MustCompile(`(?mi)^[^ytonf~]`)
	reNullML    = regexp.MustCompile(`(?mi)^null$`)
	reTrueML    = regexp.MustCompile(`(?mi)^(yes|true|on)$`)
	reFalseML   = regexp.MustCompile(`(?mi)^(no|false|off)$`)
	reTime      = regexp.MustCompile(`^-?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?(?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?$`)
	reDate      = regexp.MustCompile(`^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$`)
	rePosInf    = regexp.MustCompile(`(?i)^\+?\.inf$`)
	reNegInf    = regexp.MustCompile(`(?i)^-\.inf$`)
	reNaN       = regexp.MustCompile(`(?i)^\.nan$`)
	reSexInt    = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$`)
	reSexFloat  = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}\.[0-9_]*$`)
	reFloat     = regexp.MustCompile(`^(?:[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?)$`)
	reInteger   = regexp.MustCompile(`^(?:[-+]?0b[0-1_,]+|[-+]?0[0-7_,]+|[-+]?(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)|[-+]?0x[0-9a-fA-F_,]+)$`)
)

var separators = strings.NewReplacer(",", "", "_", "")

// tokenize returns what Psych makes of an untagged plain scalar: nil, bool,
// int64, float64, string, rsym, rbig, or a load error (Date and Time are
// classes Puppet's safe_load refuses; some digit strings make Integer() or
// Float() raise).
func tokenize(s string) (any, *loadError) {
	if s == "" {
		return nil, nil
	}
	// Fast paths for what most hiera data holds. A string starting with an
	// ASCII letter takes Psych's first branch, which keeps it a string
	// unless it is at most 5 characters long and starts like a boolean or
	// null; and plain decimal digits are an integer.
	c := s[0]
	letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	if letter && (!strings.ContainsRune("ytonfYTONF", rune(c)) || len(s) > 5 && utf8.RuneCountInString(s) > 5) {
		return s, nil
	}
	if len(s) <= 18 && c >= '1' && c <= '9' && allDigits(s) {
		n, _ := strconv.ParseInt(s, 10, 64)
		return n, nil
	}
	if letter && isASCIILine(s) {
		// At most 5 characters, starting like a boolean or null: no
		// line for the regular expressions below to look at but s.
		return shortWord(s), nil
	}
	if letter || strings.Contains(s, "\n") || reWordy.MatchString(s) {
		if len([]rune(s)) > 5 || reNotBoolML.MatchString(s) {
			return s, nil
		}
		switch {
		case s == "~" || reNullML.MatchString(s):
			return nil, nil
		case reTrueML.MatchString(s):
			return true, nil
		case reFalseML.MatchString(s):
			return false, nil
		}
		return s, nil
	}
	switch {
	case reTime.MatchString(s):
		return nil, disallowed("Time")
	case reDate.MatchString(s):
		return nil, disallowed("Date")
	case rePosInf.MatchString(s):
		return math.Inf(1), nil
	case reNegInf.MatchString(s):
		return math.Inf(-1), nil
	case reNaN.MatchString(s):
		return math.NaN(), nil
	case len(s) > 1 && s[0] == ':':
		return symbolFromColon(s), nil
	case reSexInt.MatchString(s):
		return sexagesimalInt(s), nil
	case reSexFloat.MatchString(s):
		return sexagesimalFloat(s), nil
	case reFloat.MatchString(s):
		if s == "." || s == "+." || s == "-." {
			return s, nil
		}
		return kernelFloat(floatClean(s))
	case reInteger.MatchString(s):
		return rubyInteger(separators.Replace(s))
	}
	return s, nil
}

// isASCIILine reports whether s is ASCII without a line break.
func isASCIILine(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == '\n' {
			return false
		}
	}
	return true
}

// shortWord is what tokenize's regular expressions make of an ASCII line
// starting with one of "ytonf", either case: null, a boolean, or s.
func shortWord(s string) any {
	switch {
	case strings.EqualFold(s, "null"):
		return nil
	case strings.EqualFold(s, "yes") || strings.EqualFold(s, "true") || strings.EqualFold(s, "on"):
		return true
	case strings.EqualFold(s, "no") || strings.EqualFold(s, "false") || strings.EqualFold(s, "off"):
		return false
	}
	return s
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// symbolFromColon is Psych's `:sym` / `:"quoted sym"` branch.
func symbolFromColon(s string) rsym {
	if q := s[1]; len(s) > 2 && (q == '"' || q == '\'') {
		// /^:(["'])(.*)\1/ is greedy: up to the last matching quote.
		if end := strings.LastIndexByte(s[2:], q); end >= 0 {
			return rsym(strings.TrimPrefix(s[2:2+end], ":"))
		}
	}
	return rsym(s[1:])
}

// floatClean is s.gsub(/[,_]|\.([Ee]|$)/, '\1'): separators go, and so does
// a dot that ends the mantissa.
func floatClean(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ',', '_':
		case '.':
			if i+1 == len(s) || s[i+1] == 'e' || s[i+1] == 'E' {
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// sexagesimalInt evaluates Psych's base-60 integers. Psych weighs the parts
// 60**|i-2|, so "1:30" is 1*3600 + 30*60 = 5400, and the sign only applies
// to the first part.
func sexagesimalInt(s string) any {
	parts := strings.Split(s, ":")
	sum := new(big.Int)
	for i, p := range parts {
		w := new(big.Int).Exp(big.NewInt(60), big.NewInt(int64(abs(i-2))), nil)
		sum.Add(sum, w.Mul(w, rubyToI(p)))
	}
	return bigToValue(sum)
}

func sexagesimalFloat(s string) any {
	parts := strings.Split(s, ":")
	sum := 0.0
	for i, p := range parts {
		w, _ := new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(60), big.NewInt(int64(abs(i-2))), nil)).Float64()
		sum += rubyToF(p) * w
	}
	return sum
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// rubyToI is String#to_i for the digit runs the base-60 pattern admits: an
// optional sign, then digits where a single underscore may separate two
// digits; anything else ends the number.
func rubyToI(s string) *big.Int {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	digits := leadingDigits(s)
	n, _ := new(big.Int).SetString("0"+digits, 10)
	if neg {
		n.Neg(n)
	}
	return n
}

// leadingDigits returns the leading digits of s with single underscores
// between digits removed, stopping where Ruby's to_i/to_f would.
func leadingDigits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			b.WriteByte(c)
			continue
		}
		if c == '_' && b.Len() > 0 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			continue
		}
		break
	}
	return b.String()
}

// rubyToF is String#to_f for the "[-+]?digits" and "digits.digits" parts
// of a base-60 float.
func rubyToF(s string) float64 {
	num := ""
	if s != "" && (s[0] == '-' || s[0] == '+') {
		num, s = s[:1], s[1:]
	}
	ip := leadingDigits(s)
	// Skip what leadingDigits consumed: its digits plus the underscores
	// between them.
	i := 0
	for n := 0; n < len(ip); i++ {
		if s[i] != '_' {
			n++
		}
	}
	num += "0" + ip
	if rest := s[i:]; len(rest) > 1 && rest[0] == '.' && rest[1] >= '0' && rest[1] <= '9' {
		num += "." + leadingDigits(rest[1:])
	}
	f, _ := strconv.ParseFloat(num, 64)
	return f
}

// rubyInteger is Kernel#Integer on the separator-free digit strings the
// INTEGER pattern admits: 0b…, 0x…, 0… (octal) or decimal, with a sign.
func rubyInteger(s string) (any, *loadError) {
	t, neg := s, false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	base := 10
	switch {
	case strings.HasPrefix(t, "0b") || strings.HasPrefix(t, "0B"):
		base, t = 2, t[2:]
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		base, t = 16, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, t = 8, t[1:]
	}
	n, ok := new(big.Int).SetString(t, base)
	if !ok || t == "" {
		return nil, argumentError("invalid value for Integer(): " + ruby.InspectBinary(s))
	}
	if neg {
		n.Neg(n)
	}
	return bigToValue(n), nil
}

func bigToValue(n *big.Int) any {
	if n.IsInt64() {
		return n.Int64()
	}
	return rbig(n.String())
}

// kernelFloat is Kernel#Float(string): Ruby's strict float syntax, which
// allows surrounding whitespace, single underscores between digits, a
// leading-dot fraction (".5") and hexadecimal, but not "1." or "1e".
func kernelFloat(s string) (any, *loadError) {
	bad := func() (any, *loadError) {
		return nil, argumentError("invalid value for Float(): " + ruby.InspectBinary(s))
	}
	if strings.IndexByte(s, 0) >= 0 {
		return nil, argumentError("string for Float contains null byte")
	}
	t := strings.TrimRight(strings.TrimLeft(s, " \t\n\v\f\r"), " \t\n\v\f\r")
	sign := ""
	if t != "" && (t[0] == '-' || t[0] == '+') {
		sign, t = t[:1], t[1:]
	}
	if len(t) > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		return rubyHexFloat(sign, t[2:], bad)
	}
	var b strings.Builder
	b.WriteString(sign)
	i := 0
	digits := func() int { // digits with single underscores between them
		n := 0
		for i < len(t) {
			c := t[i]
			if c >= '0' && c <= '9' {
				b.WriteByte(c)
				n++
				i++
				continue
			}
			if c == '_' && n > 0 && i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9' {
				i++
				continue
			}
			break
		}
		return n
	}
	mant := digits()
	if i < len(t) && t[i] == '.' {
		b.WriteByte('.')
		i++
		frac := digits()
		if frac == 0 {
			return bad()
		}
		mant += frac
	}
	if mant == 0 {
		return bad()
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		b.WriteByte('e')
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			b.WriteByte(t[i])
			i++
		}
		if digits() == 0 {
			return bad()
		}
	}
	if i != len(t) {
		return bad()
	}
	f, err := strconv.ParseFloat(b.String(), 64)
	if err != nil && !isRange(err) {
		return bad()
	}
	return f, nil
}

func rubyHexFloat(sign, t string, bad func() (any, *loadError)) (any, *loadError) {
	isHex := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	i, n := 0, 0
	for i < len(t) && isHex(t[i]) {
		i, n = i+1, n+1
	}
	if i < len(t) && t[i] == '.' {
		i++
		for i < len(t) && isHex(t[i]) {
			i, n = i+1, n+1
		}
	}
	if n == 0 {
		return bad()
	}
	mant := t[:i]
	exp := "p0"
	if i < len(t) && (t[i] == 'p' || t[i] == 'P') {
		j := i + 1
		if j < len(t) && (t[j] == '+' || t[j] == '-') {
			j++
		}
		k := j
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			k++
		}
		if k == j {
			return bad()
		}
		exp, i = "p"+t[i+1:k], k
	}
	if i != len(t) {
		return bad()
	}
	f, err := strconv.ParseFloat(sign+"0x"+mant+exp, 64)
	if err != nil && !isRange(err) {
		return bad()
	}
	return f, nil
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
