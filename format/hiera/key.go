package hiera

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// Key is a parsed lookup key (Puppet's LookupKey): the root key that is
// looked up in data, plus the dig path applied to the value found for it.
type Key struct {
	Text     string    // the key as given (used in messages)
	Root     string    // the root key, looked up in data
	Module   string    // module namespace of Root ("ntp" for "ntp::servers"), "" if none
	Segments []Segment // dig path; empty for a plain key
}

// Segment is one step of a dig path.
type Segment struct {
	// Name is the hash key for a name segment. For an index segment it is
	// the index in decimal, as Puppet prints it in messages (Ruby's to_i
	// of the segment: "+5" prints "5", ":5" prints "0"); an index beyond
	// the int range (a Ruby Bignum) is only there, with Index 0.
	Name    string
	Index   int // array index, when IsIndex
	IsIndex bool
}

// huge reports an index segment beyond the int range: it addresses no
// array element and no hash key.
func (s Segment) huge() bool {
	return s.IsIndex && s.Name != "" && s.Name != strconv.Itoa(s.Index)
}

// keySpecial is SubLookup::SPECIAL: a key without quotes or dots is used
// verbatim (no splitting, no trimming).
const keySpecial = "'\"."

// keyToken is the pattern SubLookup#split_key splits on. Ruby's \s is
// [ \t\n\v\f\r]; Go's lacks \v, hence the explicit class.
var keyToken = regexp.MustCompile(`([ \t\n\v\f\r]*"[^"]+"[ \t\n\v\f\r]*|[ \t\n\v\f\r]*'[^']+'[ \t\n\v\f\r]*|[^'".]+)`)

// keyIndex is /^(:?[+-]?[0-9]+)$/ applied to one line (Ruby's ^ and $ match
// at line boundaries; the ":?" is a typo in Puppet, kept for fidelity).
var keyIndex = regexp.MustCompile(`^:?[+-]?[0-9]+$`)

// ParseKey splits a lookup key the way Puppet's LookupKey does: segments
// are separated by '.', may be quoted with ' or " to contain dots, are
// trimmed of surrounding whitespace, and an unquoted all-digit segment is
// an array index. A malformed key fails with "Syntax error in key: '...'".
func ParseKey(key string) (Key, error) {
	k := Key{Text: key, Root: key}
	if strings.ContainsAny(key, keySpecial) {
		segs, err := splitKey(key)
		if err != nil {
			return Key{}, err
		}
		if segs[0].IsIndex {
			// Puppet then calls String#index on an Integer root and dies.
			return Key{}, fmt.Errorf("undefined method `index' for %s:Integer", segs[0].Name)
		}
		k.Root = segs[0].Name
		if len(segs) > 1 {
			k.Segments = segs[1:]
		}
	}
	k.Module = ModuleOf(k.Root)
	return k, nil
}

// ModuleOf is the module namespace of a root key, as Puppet's LookupKey
// computes it: "ntp" for "ntp::servers", "" for an unqualified key. A
// leading "::" makes the whole key the module name (Ruby's root_key[0..-1]),
// which no module has.
func ModuleOf(root string) string {
	switch i := strings.Index(root, "::"); {
	case i < 0:
		return ""
	case i == 0:
		return root
	default:
		return root[:i]
	}
}

// splitKey ports SubLookup#split_key, including Ruby's String#split
// semantics (captured separators are kept, trailing empty strings dropped).
func splitKey(key string) ([]Segment, error) {
	syntax := fmt.Errorf("Syntax error in key: '%s'", key)
	var parts []string
	beg := 0
	for _, m := range keyToken.FindAllStringSubmatchIndex(key, -1) {
		parts = append(parts, key[beg:m[0]], key[m[2]:m[3]])
		beg = m[1]
	}
	if beg < len(key) {
		parts = append(parts, key[beg:])
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 0 || parts[0] != "" {
		return nil, syntax
	}
	parts = parts[1:]
	count := len(parts)
	if count == 0 {
		return nil, syntax
	}
	kept := parts[:0:0]
	for _, p := range parts {
		if p != "." {
			kept = append(kept, p)
		}
	}
	if len(kept)*2 != count+1 {
		return nil, syntax
	}
	segs := make([]Segment, len(kept))
	for i, p := range kept {
		p = strings.Trim(p, " \t\n\v\f\r\x00")
		switch {
		case len(p) >= 2 && (p[0] == '\'' || p[0] == '"'):
			segs[i] = Segment{Name: p[1 : len(p)-1]}
		case isIndexSegment(p):
			segs[i] = rubyToI(p)
		default:
			segs[i] = Segment{Name: p}
		}
	}
	return segs, nil
}

func isIndexSegment(p string) bool {
	for line := range strings.SplitSeq(p, "\n") {
		if keyIndex.MatchString(line) {
			return true
		}
	}
	return false
}

// rubyToI is Ruby's String#to_i as an index segment: leading whitespace,
// an optional sign, then digits with single underscores between them; it
// stops at the first other character (":5" is 0).
func rubyToI(s string) Segment {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var digits []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits = append(digits, c)
			continue
		}
		if c == '_' && len(digits) > 0 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			continue
		}
		break
	}
	d := strings.TrimLeft(string(digits), "0")
	if d == "" {
		return Segment{Name: "0", IsIndex: true}
	}
	if neg {
		d = "-" + d
	}
	n, err := strconv.ParseInt(d, 10, 0)
	if err != nil {
		return Segment{Name: d, IsIndex: true}
	}
	return Segment{Name: d, Index: int(n), IsIndex: true}
}

// Dig applies k.Segments to v as Puppet's SubLookup#sub_lookup does:
// found=false for nil, a missing hash key or an out-of-range index; an
// error for digging by name into a string, array or other non-hash
// ("Data Provider type mismatch: Got String when a hash-like object was
// expected to access value using 'x' from key 'a.x'").
func (k Key) Dig(v any) (any, bool, error) {
	for _, seg := range k.Segments {
		if v == nil {
			return nil, false, nil
		}
		if arr, ok := v.([]any); ok && seg.IsIndex {
			if seg.huge() || seg.Index < 0 || seg.Index >= len(arr) {
				return nil, false, nil
			}
			v = arr[seg.Index]
			continue
		}
		switch x := v.(type) {
		case *format.Hash:
			var key any = seg.Name
			if seg.IsIndex {
				if seg.huge() {
					return nil, false, nil
				}
				key = int64(seg.Index)
			}
			val, ok := x.Get(key)
			if !ok {
				return nil, false, nil
			}
			v = val
		case int64:
			// Integer#[] exists (bit reference), so Puppet goes on to call
			// include?, which Integer lacks.
			return nil, false, fmt.Errorf("undefined method `include?' for %d:Integer", x)
		default:
			return nil, false, fmt.Errorf("Data Provider type mismatch: Got %s when a hash-like object was expected to access value using '%s' from key '%s'",
				ruby.ClassName(v), seg.Name, k.Text)
		}
	}
	return v, true, nil
}
