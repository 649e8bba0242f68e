// Package render prints lookup results as `puppet lookup --render-as`
// does: JSON as Ruby's JSON generator writes it, YAML as Psych dumps it,
// and text as Ruby's to_s (As, with JSON, YAML or Text).
//
// It is apart from package runtime because agents use the values a lookup
// returns and rarely print them the way the puppet lookup command does:
// the CLI (lookup, explain, inspect) and the bundle server do, and an
// agent that wants the same output imports this package. What it renders
// with is what runtime's own closure keeps: Ruby's renderings of a value
// (to_s, inspect, Float#to_s), which lookups and Puppet's messages need,
// live once in format/ruby, and this package adds only the JSON and YAML
// emitters' own rules (escapes, nesting limit, Psych's styles and quotes).
package render

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
	"github.com/hieracc/hieracc/runtime"
)

// Format is an output format of As, named after puppet lookup's
// --render-as.
type Format int

const (
	JSON Format = iota // --render-as json: compact JSON, hash keys in order
	YAML               // --render-as yaml: Psych's block style
	Text               // --render-as s: Ruby's to_s
)

// As renders v as `puppet lookup --render-as` prints it, final newline
// included. JSON is byte for byte what Puppet 7 prints (Ruby's float
// formatting, its escapes). YAML follows Psych's choice of styles and
// quotes but does not fold long lines. It fails only for what Puppet
// cannot render either: NaN or infinity in JSON, invalid UTF-8 in JSON,
// arrays and hashes nested more than 100 deep in JSON.
//
// A *runtime.Sensitive renders as puppet lookup renders one: "Sensitive
// [value redacted]" in JSON and text, and in YAML as Psych dumps the Ruby
// object, value included.
func As(v any, f Format) ([]byte, error) {
	if s, ok := v.(*runtime.Sensitive); ok {
		switch f {
		case JSON:
			return []byte(`"` + runtime.Redacted + `"` + "\n"), nil
		case Text:
			return []byte(runtime.Redacted + "\n"), nil
		case YAML:
			h := format.NewHash(1)
			h.Set("value", s.Unwrap())
			doc := appendYAMLDoc(nil, h)
			rest, _ := bytes.CutPrefix(doc, []byte("---\n"))
			return append([]byte("--- !ruby/object:Puppet::Pops::Types::PSensitiveType::Sensitive\n"), rest...), nil
		}
	}
	var out []byte
	var err error
	switch f {
	case JSON:
		out, err = appendJSON(nil, v, 0)
	case YAML:
		out = appendYAMLDoc(nil, v)
	case Text:
		out = ruby.AppendToS(out, v)
	default:
		return nil, fmt.Errorf("render: unknown format %d", f)
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 || out[len(out)-1] != '\n' { // Ruby's puts
		out = append(out, '\n')
	}
	return out, nil
}

// jsonMaxNesting is Ruby's JSON generator's max_nesting, which Puppet
// keeps: an array or hash deeper than 100 fails the whole rendering.
const jsonMaxNesting = 100

// appendJSON appends v, which depth arrays and hashes hold.
func appendJSON(b []byte, v any, depth int) ([]byte, error) {
	var err error
	switch v.(type) {
	case []any, *format.Hash:
		if depth++; depth > jsonMaxNesting {
			// The generator's message, which names the depth it allows.
			return nil, fmt.Errorf("nesting of %d is too deep", jsonMaxNesting)
		}
	}
	switch v := v.(type) {
	case nil:
		b = append(b, "null"...)
	case bool:
		b = strconv.AppendBool(b, v)
	case int64:
		b = strconv.AppendInt(b, v, 10)
	case float64:
		// Ruby's JSON generator's messages, source line number included.
		if math.IsInf(v, 0) {
			return nil, fmt.Errorf("1000: %s not allowed in JSON", ruby.Float(v))
		}
		if math.IsNaN(v) {
			return nil, fmt.Errorf("1003: %s not allowed in JSON", ruby.Float(v))
		}
		b = ruby.AppendFloat(b, v) // Ruby's JSON generator prints Float#to_s
	case string:
		return appendJSONString(b, v)
	case []any:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSON(b, x, depth); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	case *format.Hash:
		b = append(b, '{')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSONString(b, ruby.ToS(v.Key(i))); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendJSON(b, v.Value(i), depth); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	default:
		return nil, fmt.Errorf("render: cannot render %T", v)
	}
	return b, nil
}

// appendJSONString escapes as Ruby's json generator does: quotes,
// backslashes and control characters; everything else stays UTF-8.
func appendJSONString(b []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("render: source sequence is illegal/malformed utf-8")
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20:
			b = append(b, c)
		case c == '\b':
			b = append(b, `\b`...)
		case c == '\f':
			b = append(b, `\f`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		default:
			b = fmt.Appendf(b, `\u%04x`, c)
		}
	}
	return append(b, '"'), nil
}

// YAML, following Psych (Ruby's YAML) over libyaml.

func appendYAMLDoc(b []byte, v any) []byte {
	b = append(b, "---"...)
	switch x := v.(type) {
	case nil:
		return append(b, '\n')
	case []any:
		if len(x) > 0 {
			b = append(b, '\n')
			return endYAMLDoc(appendYAMLBlock(b, v, 0))
		}
	case *format.Hash:
		if x.Len() > 0 {
			b = append(b, '\n')
			return endYAMLDoc(appendYAMLBlock(b, v, 0))
		}
	}
	b = append(b, ' ')
	b = appendYAMLScalar(b, v, 2, false)
	return endYAMLDoc(append(b, '\n'))
}

// endYAMLDoc adds the document end marker libyaml writes after a block
// scalar that keeps its trailing blank lines ("|+").
func endYAMLDoc(b []byte) []byte {
	if len(b) >= 2 && b[len(b)-2] == '\n' && b[len(b)-1] == '\n' {
		b = append(b, "...\n"...)
	}
	return b
}

// appendYAMLBlock writes a non-empty collection, each line starting at
// column indent.
func appendYAMLBlock(b []byte, v any, indent int) []byte {
	pad := strings.Repeat(" ", indent)
	switch v := v.(type) {
	case []any:
		for i, x := range v {
			if i > 0 {
				b = append(b, pad...)
			}
			b = append(b, '-')
			b = appendYAMLValue(b, x, indent, true)
		}
	case *format.Hash:
		for i := range v.Len() {
			if i > 0 {
				b = append(b, pad...)
			}
			b = appendYAMLKey(b, v.Key(i), indent)
			b = append(b, ':')
			b = appendYAMLValue(b, v.Value(i), indent, false)
		}
	}
	return b
}

// appendYAMLValue writes what follows "-" or "key:" and ends the line.
// Sequences in a mapping are not indented, as libyaml writes them.
func appendYAMLValue(b []byte, v any, indent int, inSeq bool) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, '\n')
	case []any:
		if len(x) > 0 {
			if inSeq {
				b = append(b, ' ')
				return appendYAMLBlock(b, x, indent+2)
			}
			b = append(b, '\n')
			b = append(b, strings.Repeat(" ", indent)...)
			return appendYAMLBlock(b, x, indent)
		}
	case *format.Hash:
		if x.Len() > 0 {
			if inSeq {
				b = append(b, ' ')
				return appendYAMLBlock(b, x, indent+2)
			}
			b = append(b, '\n')
			b = append(b, strings.Repeat(" ", indent+2)...)
			return appendYAMLBlock(b, x, indent+2)
		}
	}
	b = append(b, ' ')
	b = appendYAMLScalar(b, v, indent+2, false)
	return append(b, '\n')
}

func appendYAMLKey(b []byte, k any, indent int) []byte {
	if k == nil {
		return append(b, "! ''"...) // what Psych writes for a nil key
	}
	return appendYAMLScalar(b, k, indent+2, true)
}

// appendYAMLScalar writes a scalar or an empty collection; indent is where
// continuation lines of a multi-line string start.
func appendYAMLScalar(b []byte, v any, indent int, key bool) []byte {
	switch v := v.(type) {
	case nil:
		return b
	case bool:
		return strconv.AppendBool(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		switch {
		case math.IsNaN(v):
			return append(b, ".nan"...)
		case math.IsInf(v, 1):
			return append(b, ".inf"...)
		case math.IsInf(v, -1):
			return append(b, "-.inf"...)
		}
		return ruby.AppendFloat(b, v)
	case string:
		return appendYAMLString(b, v, indent, key)
	case []any:
		return append(b, "[]"...)
	case *format.Hash:
		return append(b, "{}"...)
	}
	return fmt.Appendf(b, "%v", v)
}

type yamlStyle int

const (
	yamlPlain yamlStyle = iota
	yamlSingle
	yamlDouble
	yamlLiteral
)

func appendYAMLString(b []byte, s string, indent int, key bool) []byte {
	// Psych's choice (Psych::Visitors::YAMLTree#visit_String)...
	style := yamlPlain
	switch {
	case multiline(s):
		style = yamlLiteral
	case s == "<<":
		return append(b, "!!str '<<'"...)
	case s == "y" || s == "Y" || s == "n" || s == "N":
		style = yamlDouble
	case startsNonWord(s):
		style = yamlDouble
	case !psychString(s) || octalLike(s):
		style = yamlSingle
	}
	// ...then what libyaml allows (yaml_emitter_select_scalar_style).
	a := analyze(s)
	if style == yamlPlain && (!a.plain || s == "" && key) {
		style = yamlSingle
	}
	if style == yamlSingle && !a.single {
		style = yamlDouble
	}
	if style == yamlLiteral && (!a.block || key) {
		style = yamlDouble
	}
	switch style {
	case yamlPlain:
		return appendYAMLPlain(b, s, indent, !key)
	case yamlSingle:
		return appendYAMLSingle(b, s, indent, !key)
	case yamlLiteral:
		return appendYAMLLiteral(b, s, indent)
	}
	return appendYAMLDouble(b, s, indent, !key)
}

// bestWidth is libyaml's line width: it breaks a scalar at a space once a
// line is longer.
const bestWidth = 80

// column is the current output column, in characters.
func column(b []byte) int {
	i := bytes.LastIndexByte(b, '\n')
	return utf8.RuneCount(b[i+1:])
}

func newline(b []byte, indent int) []byte {
	b = append(b, '\n')
	return append(b, strings.Repeat(" ", indent)...)
}

func appendYAMLPlain(b []byte, s string, indent int, fold bool) []byte {
	for i := 0; i < len(s); i++ {
		if fold && s[i] == ' ' && (i == 0 || s[i-1] != ' ') && i+1 < len(s) && s[i+1] != ' ' && column(b) > bestWidth {
			b = newline(b, indent)
			continue
		}
		b = append(b, s[i])
	}
	return b
}

// multiline is Psych's o =~ /\n(?!\Z)/: a newline other than a final one.
func multiline(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			if rest := s[i+1:]; rest != "" && rest != "\n" {
				return true
			}
		}
	}
	return false
}

// startsNonWord is Psych's o =~ /^[^[:word:]][^"]*$/, with Ruby's
// multi-line anchors.
func startsNonWord(s string) bool {
	for p := 0; p < len(s); {
		r, n := utf8.DecodeRuneInString(s[p:])
		if !(unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) || unicode.Is(unicode.Pc, r)) {
			for q := p + n; ; q++ {
				if q == len(s) || s[q] == '\n' {
					return true
				}
				if s[q] == '"' {
					break
				}
			}
		}
		nl := strings.IndexByte(s[p:], '\n')
		if nl < 0 {
			break
		}
		p += nl + 1
	}
	return false
}

func octalLike(s string) bool { return yamlRE().octal.MatchString(s) }

type yamlRegexps struct {
	octal, stringy, time, date, sexInt, sexFloat, float, integer *regexp.Regexp
}

// yamlRE compiles the regexps of Psych's ScalarScanner on first use, so
// that agents that never render YAML do not pay for them.
var yamlRE = sync.OnceValue(func() *yamlRegexps {
	return &yamlRegexps{
		octal:    regexp.MustCompile(`\A0[0-7]*[89]`),
		stringy:  regexp.MustCompile(`(?m)^[^\d.:-]?[\pL\pM_\s!@#$%\^&*(){}<>|/\\~;=]+`),
		time:     regexp.MustCompile(`(?m)^-?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?(?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?$`),
		date:     regexp.MustCompile(`(?m)^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$`),
		sexInt:   regexp.MustCompile(`(?m)^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$`),
		sexFloat: regexp.MustCompile(`(?m)^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}\.[0-9_]*$`),
		float:    regexp.MustCompile(`(?m)^(?:[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`),
		integer:  regexp.MustCompile(`(?m)^(?:[-+]?0b[0-1_,]+|[-+]?0[0-7_,]+|[-+]?(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)|[-+]?0x[0-9a-fA-F_,]+)$`),
	}
})

// psychString reports whether Psych's ScalarScanner#tokenize reads s back
// as a string; if not, Psych quotes it.
func psychString(s string) bool {
	if s == "" {
		return false
	}
	re := yamlRE()
	if re.stringy.MatchString(s) || strings.Contains(s, "\n") {
		if len(s) > 5 {
			return true
		}
		switch strings.ToLower(s) {
		case "~", "null", "yes", "true", "on", "no", "false", "off":
			return false
		}
		return true
	}
	switch {
	case re.time.MatchString(s), re.date.MatchString(s):
		return false
	case strings.EqualFold(s, ".inf"), strings.EqualFold(s, "+.inf"), strings.EqualFold(s, "-.inf"), strings.EqualFold(s, ".nan"):
		return false
	case len(s) > 1 && s[0] == ':':
		return false // a Symbol
	case re.sexInt.MatchString(s), re.sexFloat.MatchString(s):
		return false
	case re.float.MatchString(s):
		return s == "." || s == "+." || s == "-."
	case re.integer.MatchString(s):
		return false
	}
	return true
}

// yamlAnalysis is what libyaml's yaml_emitter_analyze_scalar allows, in a
// block context.
type yamlAnalysis struct{ plain, single, block bool }

func analyze(s string) yamlAnalysis {
	if s == "" {
		return yamlAnalysis{single: true}
	}
	a := yamlAnalysis{plain: true, single: true, block: true}
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		if len(s) == 3 || isBlankZ(s[3:]) {
			a.plain = false
		}
	}
	var lineBreaks, leadSpace, leadBreak, trailSpace, trailBreak, breakSpace, spaceBreak, special bool
	prevSpace, prevBreak := false, false
	precededByWS := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		first, last := i == 0, i+n == len(s)
		followedByWS := last || isBlankZ(s[i+n:])
		if first {
			switch {
			case strings.ContainsRune("#,[]{}&*!|>'\"%@`", r):
				a.plain = false
			case r == '?' || r == ':':
				if followedByWS {
					a.plain = false
				}
			case r == '-':
				if followedByWS {
					a.plain = false
				}
			}
		} else {
			switch {
			case r == ':':
				if followedByWS {
					a.plain = false
				}
			case r == '#':
				if precededByWS {
					a.plain = false
				}
			}
		}
		if !yamlPrintable(r) || (r == utf8.RuneError && n == 1) {
			special = true
		}
		if isBreak(r) {
			lineBreaks = true
		}
		switch {
		case r == ' ':
			if first {
				leadSpace = true
			}
			if last {
				trailSpace = true
			}
			if prevBreak {
				breakSpace = true
			}
			prevSpace, prevBreak = true, false
		case isBreak(r):
			if first {
				leadBreak = true
			}
			if last {
				trailBreak = true
			}
			if prevSpace {
				spaceBreak = true
			}
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		precededByWS = r == ' ' || r == '\t' || isBreak(r)
		i += n
	}
	if leadSpace || leadBreak || trailSpace || trailBreak || lineBreaks {
		a.plain = false
	}
	if trailSpace {
		a.block = false
	}
	if breakSpace {
		a.plain, a.single = false, false
	}
	if spaceBreak || special {
		a.plain, a.single, a.block = false, false, false
	}
	return a
}

func isBreak(r rune) bool {
	return r == '\r' || r == '\n' || r == 0x85 || r == 0x2028 || r == 0x2029
}

func isBlankZ(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == ' ' || r == '\t' || isBreak(r) || r == 0
}

// yamlPrintable is libyaml's IS_PRINTABLE, which (unlike the YAML spec)
// excludes U+0085 and everything beyond the Basic Multilingual Plane.
func yamlPrintable(r rune) bool {
	return r == 0x0a || r >= 0x20 && r <= 0x7e ||
		r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd && r != 0xfeff
}

func appendYAMLSingle(b []byte, s string, indent int, fold bool) []byte {
	b = append(b, '\'')
	breaks := false
	for i, r := range s {
		switch {
		case r == ' ' && fold && i > 0 && s[i-1] != ' ' && i+1 < len(s) && s[i+1] != ' ' && column(b) > bestWidth:
			b = newline(b, indent)
		case isBreak(r):
			if !breaks && r == '\n' {
				b = append(b, '\n')
			}
			b = utf8.AppendRune(b, r)
			breaks = true
		default:
			if breaks {
				b = append(b, strings.Repeat(" ", indent)...)
				breaks = false
			}
			if r == '\'' {
				b = append(b, '\'')
			}
			b = utf8.AppendRune(b, r)
		}
	}
	if breaks {
		b = append(b, strings.Repeat(" ", indent)...)
	}
	return append(b, '\'')
}

func appendYAMLDouble(b []byte, s string, indent int, fold bool) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = fmt.Appendf(b, `\x%02X`, s[i])
			i++
			continue
		}
		if r == ' ' && fold && i > 0 && i+1 < len(s) && s[i-1] != ' ' && column(b) > bestWidth {
			b = newline(b, indent)
			if s[i+1] == ' ' {
				b = append(b, '\\')
			}
			i++
			continue
		}
		i += n
		if yamlPrintable(r) && !isBreak(r) && r != '"' && r != '\\' {
			b = utf8.AppendRune(b, r)
			continue
		}
		b = append(b, '\\')
		switch r {
		case 0:
			b = append(b, '0')
		case '\a':
			b = append(b, 'a')
		case '\b':
			b = append(b, 'b')
		case '\t':
			b = append(b, 't')
		case '\n':
			b = append(b, 'n')
		case '\v':
			b = append(b, 'v')
		case '\f':
			b = append(b, 'f')
		case '\r':
			b = append(b, 'r')
		case 0x1b:
			b = append(b, 'e')
		case '"':
			b = append(b, '"')
		case '\\':
			b = append(b, '\\')
		case 0x85:
			b = append(b, 'N')
		case 0xa0:
			b = append(b, '_')
		case 0x2028:
			b = append(b, 'L')
		case 0x2029:
			b = append(b, 'P')
		default:
			switch {
			case r <= 0xff:
				b = fmt.Appendf(b, "x%02X", r)
			case r <= 0xffff:
				b = fmt.Appendf(b, "u%04X", r)
			default:
				b = fmt.Appendf(b, "U%08X", r)
			}
		}
	}
	return append(b, '"')
}

// appendYAMLLiteral writes a "|" block scalar with libyaml's hints.
func appendYAMLLiteral(b []byte, s string, indent int) []byte {
	b = append(b, '|')
	if s[0] == ' ' || s[0] == '\n' {
		b = append(b, '2')
	}
	switch {
	case !strings.HasSuffix(s, "\n"):
		b = append(b, '-')
	case len(s) == 1 || strings.HasSuffix(s, "\n\n"):
		b = append(b, '+')
	}
	pad := strings.Repeat(" ", indent)
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for _, l := range lines {
		b = append(b, '\n')
		if l != "" {
			b = append(b, pad...)
			b = append(b, l...)
		}
	}
	return b
}
