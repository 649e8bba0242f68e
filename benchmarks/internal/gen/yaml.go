package gen

import (
	"bytes"
	"strconv"
	"strings"
)

// kv is one entry of an ordered mapping; hash is a mapping whose key order is kept in the output.
type kv struct {
	k string
	v any
}

type hash []kv

// writeYAML writes a mapping as block-style YAML. Values are string, int, bool, nil, []string,
// []any or hash. Strings are written plain only when every YAML 1.1 and 1.2 reader takes them as
// the same string; otherwise they are double-quoted.
func writeYAML(b *bytes.Buffer, h hash) {
	writeHash(b, h, 0)
}

func writeHash(b *bytes.Buffer, h hash, indent int) {
	for _, e := range h {
		pad(b, indent)
		writeString(b, e.k)
		b.WriteByte(':')
		writeNested(b, e.v, indent)
	}
}

// writeNested writes v after "key:" or "-" (the caller wrote that) and ends the line.
func writeNested(b *bytes.Buffer, v any, indent int) {
	switch v := v.(type) {
	case hash:
		if len(v) == 0 {
			b.WriteString(" {}\n")
			return
		}
		b.WriteByte('\n')
		writeHash(b, v, indent+2)
	case []string:
		if len(v) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteByte('\n')
		for _, s := range v {
			pad(b, indent+2)
			b.WriteString("- ")
			writeString(b, s)
			b.WriteByte('\n')
		}
	case []any:
		if len(v) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteByte('\n')
		for _, e := range v {
			pad(b, indent+2)
			b.WriteByte('-')
			writeNested(b, e, indent+2)
		}
	default:
		b.WriteByte(' ')
		writeScalar(b, v)
		b.WriteByte('\n')
	}
}

func writeScalar(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteByte('~')
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case string:
		writeString(b, v)
	default:
		panic("gen: unsupported YAML value")
	}
}

func writeString(b *bytes.Buffer, s string) {
	if plainSafe(s) {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// plainSafe reports whether s can be written as a plain scalar that both YAML 1.1 (Psych) and
// YAML 1.2 read as the same string: it starts with a letter or '/', holds only [A-Za-z0-9_./:-],
// does not end in ':' and is not one of the words YAML 1.1 reads as a boolean or null.
func plainSafe(s string) bool {
	if s == "" {
		return false
	}
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '.' || c == '/' || c == ':' || c == '-') {
			return false
		}
	}
	if s[len(s)-1] == ':' {
		return false
	}
	if len(s) <= 5 {
		switch strings.ToLower(s) {
		case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
			return false
		}
	}
	return true
}

func pad(b *bytes.Buffer, n int) {
	for range n {
		b.WriteByte(' ')
	}
}
