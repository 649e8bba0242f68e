package puppetdiff

// Comparing the answers, and naming the differences already known.

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// Difference is one check whose answers differ.
type Difference struct {
	Check   Check
	Puppet  Answer
	Hieracc Answer
	// Kind is "value" (both found, other values), "status" (one found,
	// failed or did not find where the other did otherwise) or "message"
	// (both failed, but hieracc's message does not hold Puppet's).
	Kind string
	// Known names the known difference it is (see Known), or "".
	Known string
}

func (d Difference) String() string {
	known := ""
	if d.Known != "" {
		known = " [known: " + d.Known + "]"
	}
	return fmt.Sprintf("%s: %s differs%s\n    puppet:  %s\n    hieracc: %s", d.Check, d.Kind, known, clip(d.Puppet.String()), clip(d.Hieracc.String()))
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

// Known lists the differences already reported: issue #17's findings 1, 2,
// 4-8, found before this fuzzer existed (finding 3, the order of `**`
// matches, is kept out by the generator unless GenOptions.GlobOrder), and
// those this fuzzer found (N1, N2, ...). Each is recognised from the answers
// alone, the first match naming it.
var Known = []struct {
	Name  string
	Match func(d Difference) bool
}{
	{"#17.1 recursion missed", func(d Difference) bool {
		// hieracc goes on, to a value or to another failure further on.
		return d.Puppet.Status == "error" && strings.Contains(d.Puppet.Message, "Recursive lookup detected") &&
			!strings.Contains(d.Hieracc.Message, "Recursive lookup detected")
	}},
	{"#17.2 recursion where Puppet has none", func(d Difference) bool {
		// Puppet's guard holds the dotted key as asked: it finds a value,
		// or fails digging.
		return strings.Contains(d.Hieracc.Message, "Recursive lookup detected") && !strings.Contains(d.Puppet.Message, "Recursive lookup detected") &&
			(d.Puppet.Status != "error" || strings.Contains(d.Check.Key, "."))
	}},
	{"#17.4 dotted key into default_hierarchy", func(d Difference) bool {
		// Puppet goes on to the default_hierarchy, where it finds a value
		// or fails (a type mismatch digging, a merge of its own options).
		return strings.Contains(d.Check.Key, ".") && d.Hieracc.Status == "not_found" && d.Puppet.Status != "not_found"
	}},
	{"#17.5 recursion message", func(d Difference) bool {
		return d.Kind == "message" && strings.Contains(d.Puppet.Message, "Recursive lookup detected") && strings.Contains(d.Hieracc.Message, "Recursive lookup detected")
	}},
	{"#17.6 global layer's error prefix", func(d Difference) bool {
		// The prefix names the key whose lookup failed: the key asked, or
		// one an interpolation looked up, each adding its own.
		inner := strings.TrimSpace(d.Puppet.Message)
		for {
			rest := strings.TrimSpace(lookupFailedPrefix.ReplaceAllString(inner, ""))
			if rest == inner {
				break
			}
			inner = rest
		}
		return d.Kind == "message" && inner != strings.TrimSpace(d.Puppet.Message) && strings.Contains(d.Hieracc.Message, inner)
	}},
	{"#17.7 non-finite float in JSON", func(d Difference) bool {
		return d.Puppet.Status == "error" && strings.Contains(d.Puppet.Message, "not allowed in JSON")
	}},
	{"#17.8 empty path segment", func(d Difference) bool {
		return d.Kind == "message" && strings.Contains(d.Puppet.Message, "//") &&
			strings.Contains(d.Hieracc.Message, strings.ReplaceAll(d.Puppet.Message, "//", "/"))
	}},
	// Found by this fuzzer; see the package documentation.
	{"N1 bad lookup_options merge before recursion", func(d Difference) bool {
		return d.Puppet.Status == "error" && strings.Contains(d.Hieracc.Message, "Recursive lookup detected") && badMergeOptions(d.Puppet.Message)
	}},
	{"N2 bad lookup_options merge of a key without data", func(d Difference) bool {
		return d.Hieracc.Status == "not_found" && badMergeOptions(d.Puppet.Message)
	}},
	{"N3 type name of an infinite float", func(d Difference) bool {
		fixed := strings.NewReplacer("Float[Infinity, Infinity]", "Float[Infinity]", "Float[-Infinity, -Infinity]", "Float[default, -Infinity]").Replace(d.Hieracc.Message)
		return d.Kind == "message" && fixed != d.Hieracc.Message && sameMessage(d.Puppet.Message, fixed)
	}},
	{"N4 NaN under a knockout_prefix", func(d Difference) bool {
		// Puppet's merge made it "" (or dropped it); hieracc kept it, and
		// JSON cannot hold it.
		return d.Puppet.Status == "value" && strings.Contains(d.Hieracc.Message, "NaN not allowed in JSON")
	}},
}

// badMergeOptions says the message is Puppet's about a lookup_options merge.
func badMergeOptions(msg string) bool {
	return strings.Contains(msg, "Unknown merge strategy") || strings.Contains(msg, "The merge options has wrong type")
}

var lookupFailedPrefix = regexp.MustCompile(`^Lookup of key '.*?' failed: `)

// Compare returns the checks whose answers differ, each named when known.
func Compare(checks []Check, puppet, hieracc []Answer) []Difference {
	var out []Difference
	for i, c := range checks {
		p, h := puppet[i], hieracc[i]
		kind := ""
		switch {
		case p.Status != h.Status:
			kind = "status"
		case p.Status == "value" && !sameJSON(p.JSON, h.JSON):
			kind = "value"
		case p.Status == "error" && !sameMessage(p.Message, h.Message):
			kind = "message"
		}
		if kind == "" {
			continue
		}
		d := Difference{Check: c, Puppet: p, Hieracc: h, Kind: kind}
		for _, k := range Known {
			if k.Match(d) {
				d.Known = k.Name
				break
			}
		}
		out = append(out, d)
	}
	return out
}

// hieraccLocation is the position hieracc adds after a message.
var hieraccLocation = regexp.MustCompile(` \((env|modules|global)/[^()]*:\d+:\d+\)$`)

// sameMessage: hieracc prints Puppet's message, maybe followed by where.
// Puppet's own location suffixes ("(file: ..., line: 3, column: 5)") are
// left to hieracc to match.
func sameMessage(puppet, hieracc string) bool {
	// Ruby 3.1's error_highlight adds the failing source line after a
	// blank line: not part of the message.
	puppet, _, _ = strings.Cut(puppet, "\n\n")
	puppet = strings.TrimSpace(puppet)
	return strings.Contains(hieracc, puppet) || hieraccLocation.ReplaceAllString(hieracc, "") == puppet
}

// sameJSON compares two --render-as json outputs as Puppet values: hash key
// order counts, and so does 1 against 1.0.
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	va, errA := decodeOrdered(a)
	vb, errB := decodeOrdered(b)
	if errA != nil || errB != nil {
		return false
	}
	return cmp.Equal(va, vb)
}

// member is one entry of a JSON object: a slice of them keeps the order.
type member struct {
	K string
	V any
}

func decodeOrdered(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		var arr []any
		var obj []member
		for dec.More() {
			if tok == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, member{k.(string), v})
				continue
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		if tok == '{' {
			return append([]member{}, obj...), nil
		}
		return append([]any{}, arr...), nil
	case json.Number:
		s := tok.String()
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i, nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		return f, err
	}
	return tok, nil
}
