package puppetdiff

// Generated data is built as a small tree of YAML text (scalars are kept as
// written, so YAML 1.1 spellings, anchors, aliases and `<<:` merge keys reach
// the files verbatim) and printed in block style.

import (
	"strconv"
	"strings"
)

// node is one YAML value as it will be written.
type node struct {
	scalar  string   // the scalar's text as written (plain or quoted); used when seq and mapping are nil
	seq     []*node  // a sequence; empty and non-nil is `[]`
	mapping []*entry // a mapping; empty and non-nil is `{}`
	anchor  string   // `&anchor` before the value
	alias   string   // `*alias` instead of the value
	isSeq   bool
	isMap   bool
}

// entry is one mapping entry; a merge entry is `<<: *alias`.
type entry struct {
	key   string // as written
	value *node
}

func scalar(text string) *node { return &node{scalar: text} }

func seqOf(items ...*node) *node { return &node{seq: items, isSeq: true} }

func mapOf(entries ...*entry) *node { return &node{mapping: entries, isMap: true} }

// quote double-quotes s for YAML (and JSON: the escapes used are common to
// both).
func quote(s string) string { return strconv.Quote(s) }

// render writes the document.
func (n *node) render() string {
	var b strings.Builder
	b.WriteString("---\n")
	n.write(&b, 0, true)
	return b.String()
}

// write prints n at the given indentation; inline says the value follows a
// key or dash on the same line (a scalar or empty collection) or starts at the
// beginning of a line (the top level).
func (n *node) write(b *strings.Builder, indent int, top bool) {
	pad := strings.Repeat("  ", indent)
	prefix := ""
	if n.anchor != "" {
		prefix = "&" + n.anchor + " "
	}
	switch {
	case n.alias != "":
		b.WriteString(" *" + n.alias + "\n")
	case n.isSeq && len(n.seq) == 0:
		b.WriteString(sep(top) + prefix + "[]\n")
	case n.isMap && len(n.mapping) == 0:
		b.WriteString(sep(top) + prefix + "{}\n")
	case n.isSeq:
		if !top {
			b.WriteString(anchorLine(prefix) + "\n")
		}
		for _, item := range n.seq {
			b.WriteString(pad + "-")
			if item.isMap && len(item.mapping) > 0 && item.anchor == "" {
				// "- key: value" on the dash's line, the rest indented under it.
				var inner strings.Builder
				item.write(&inner, indent+1, true)
				b.WriteString(" " + strings.TrimLeft(inner.String(), " "))
				continue
			}
			item.write(b, indent+1, false)
		}
	case n.isMap:
		if !top {
			b.WriteString(anchorLine(prefix) + "\n")
		}
		for _, e := range n.mapping {
			b.WriteString(pad + e.key + ":")
			e.value.write(b, indent+1, false)
		}
	default:
		b.WriteString(sep(top) + prefix + n.scalar + "\n")
	}
}

func sep(top bool) string {
	if top {
		return ""
	}
	return " "
}

func anchorLine(prefix string) string {
	if prefix == "" {
		return ""
	}
	return " " + strings.TrimSpace(prefix)
}

// json prints n as JSON (json_data files), or reports false when it holds
// what JSON cannot (an alias, a merge key, a YAML-only scalar).
func (n *node) json() (string, bool) {
	switch {
	case n.alias != "" || n.anchor != "":
		return "", false
	case n.isSeq:
		parts := make([]string, len(n.seq))
		for i, item := range n.seq {
			s, ok := item.json()
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case n.isMap:
		parts := make([]string, len(n.mapping))
		for i, e := range n.mapping {
			k, ok := jsonKey(e.key)
			if !ok {
				return "", false
			}
			v, ok := e.value.json()
			if !ok {
				return "", false
			}
			parts[i] = k + ": " + v
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	return jsonScalar(n.scalar)
}

// jsonScalar accepts the scalars whose YAML text is also JSON with the same
// meaning.
func jsonScalar(s string) (string, bool) {
	switch s {
	case "true", "false", "null":
		return s, true
	}
	if strings.HasPrefix(s, `"`) {
		return s, true
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil && !strings.HasPrefix(s, "+") && (s == "0" || !strings.HasPrefix(strings.TrimPrefix(s, "-"), "0")) {
		return s, true
	}
	if strings.Contains(s, ".") && !strings.ContainsAny(s, "_:") {
		if _, err := strconv.ParseFloat(s, 64); err == nil && !strings.HasPrefix(s, "+") && !strings.HasPrefix(s, ".") && !strings.HasSuffix(s, ".") {
			return s, true
		}
	}
	return "", false
}

func jsonKey(k string) (string, bool) {
	if strings.HasPrefix(k, `"`) {
		return k, true
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == ':') {
			return "", false
		}
	}
	return quote(k), true
}
