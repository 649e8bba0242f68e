package bundlediff

// What the renderers share: how a change, a value and a source read.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
	"github.com/hieracc/hieracc/runtime/render"
)

// Options tune the renderers.
type Options struct {
	// Color marks up the text output with ANSI colours; set it only when
	// the output is a terminal.
	Color bool
	// FullNodes lists every node of each change in the text and markdown
	// outputs, rather than their names up to five, else patterns of them.
	// JSON always lists them all.
	FullNodes bool
	// Links, when set, link each source line to its file in the
	// repository, in the markdown and HTML outputs.
	Links *Links
}

// summaryPatterns is how many names or patterns describe a change's nodes.
const summaryPatterns = 5

// heading names a change: its subject, and the path inside the value.
func heading(c Change) string {
	if c.Path != "" {
		return subject(c) + " " + c.Path
	}
	return subject(c)
}

// patternTexts shows patterns: a node's name, or a glob with its counts,
// "web*.fra1.example.net (all 1200)" or "(1100 of 1200)".
func patternTexts(ps []Pattern) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = patternText(p)
	}
	return out
}

func patternText(p Pattern) string {
	switch {
	case p.Nodes == 1 && p.Of == 1:
		return p.Glob
	case p.Nodes == p.Of:
		return fmt.Sprintf("%s (all %d)", p.Glob, p.Of)
	}
	return fmt.Sprintf("%s (%d of %d)", p.Glob, p.Nodes, p.Of)
}

// subject names what a change is about: a key, a module or the node.
func subject(c Change) string {
	switch {
	case c.Key != "":
		return c.Key
	case c.Module != "":
		return fmt.Sprintf("module %s (every %s::* key)", c.Module, c.Module)
	}
	return "node (every key)"
}

// describe says what happened, in a few words.
func describe(c Change) string {
	switch c.Kind {
	case TypeChanged:
		if c.Old.Secret || c.New.Secret {
			return "type changed"
		}
		return fmt.Sprintf("type changed (%s to %s)", ruby.KindName(c.Old.Value), ruby.KindName(c.New.Value))
	case Reordered:
		switch {
		case c.Parts != nil:
			return "order changed (same elements)"
		case c.Old != nil && c.Old.Secret: // an array's or a hash's: not said
			return "order changed"
		}
		return "key order changed"
	case ErrorChanged:
		return "error " + errorKind(c)
	}
	if c.Parts != nil {
		return string(c.Kind) + " (" + partCounts(c.Parts) + ")"
	}
	return string(c.Kind)
}

// partCounts counts the parts of a change shown whole by kind: "1
// changed, 2 added".
func partCounts(ps []Change) string {
	n := map[Kind]int{}
	var order []Kind
	for _, p := range ps {
		if n[p.Kind] == 0 {
			order = append(order, p.Kind)
		}
		n[p.Kind]++
	}
	var out []string
	for _, k := range order {
		word := string(k)
		switch k {
		case TypeChanged:
			word = "type changed"
		case Reordered:
			word = "reordered"
		}
		out = append(out, fmt.Sprintf("%d %s", n[k], word))
	}
	return strings.Join(out, ", ")
}

// partText is one part of a change shown whole, in one line, its path
// relative to the whole: `/1: "1.pool.ntp.org" → "9.pool.ntp.org"`,
// `/3: added "x"`.
func partText(whole, p Change) string {
	path := strings.TrimPrefix(p.Path, whole.Path)
	if path == "" {
		path = "/"
	}
	switch {
	case p.Kind == Reordered:
		return path + ": key order " + display(p.Old.Keys) + " → " + display(p.New.Keys)
	case p.Old != nil && p.New != nil:
		return path + ": " + describe(p) + " " + foldLine(display(p.Old.Value)) + " → " + foldLine(display(p.New.Value))
	case p.New != nil:
		return path + ": added " + foldLine(display(p.New.Value))
	case p.Old != nil:
		return path + ": removed " + foldLine(display(p.Old.Value))
	}
	return path + ": " + describe(p)
}

// foldLine keeps a detail line short: a value past partMax runes is
// shortened, and says how long it is (the whole value is shown above).
func foldLine(s string) string {
	if r := []rune(s); len(r) > partMax {
		return string(r[:partMax]) + fmt.Sprintf("… (%d characters)", len(r))
	}
	return s
}

// partMax is how many runes of a value a part's line shows.
const partMax = 80

// foldValue shows a long value over several lines: a JSON array or hash
// longer than width is indented, one element a line; anything else is as
// it is.
func foldValue(s string, width int) string {
	if len(s) <= width || (s[0] != '[' && s[0] != '{') {
		return s
	}
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return b.String()
}

// display is a value as the text and markdown outputs show it: JSON as
// puppet lookup --render-as json prints it, which keeps 443 and "443"
// apart; Ruby's inspect form for what JSON cannot hold.
func display(v any) string {
	if out, err := render.As(v, render.JSON); err == nil {
		return strings.TrimSuffix(string(out), "\n")
	}
	return ruby.ToS(v) // as puppet lookup --render-as s prints it
}

// sideValue is what a side holds, in one line (errors may hold more).
func sideValue(s *Side) string {
	switch {
	case s.Err != nil:
		if len(s.Sources) > 0 { // they say where
			return "error: " + s.Err.Message
		}
		return "error: " + errorText(s.Err)
	case s.Sealed:
		return sealedText
	case s.Secret:
		return secretText
	case s.Keys != nil:
		return display(s.Keys)
	}
	return display(s.Value)
}

// sealedText stands for the value of a key sealed to its node.
const sealedText = "(sealed to the node's certificate)"

// secretText stands for the value of a secret key.
const secretText = "(secret: decrypted from ENC[...] or Sensitive; --show-secrets shows it)"

// errorText is Puppet's message, followed by where the failure was
// recorded when the message does not say.
func errorText(e *format.Error) string {
	msg := e.Message
	if e.File != "" && !strings.Contains(msg, e.File) {
		msg += " (" + lineOf(e.Pos) + ")"
	}
	return msg
}

// lineOf is p to the line ("file:line"): a diff names the line a value
// comes from, not its column.
func lineOf(p format.Pos) string {
	p.Column = 0
	return p.String()
}

// where describes a source's layer and level.
func where(s Source) string {
	var layer string
	switch {
	case s.Default:
		layer = fmt.Sprintf("module %s default_hierarchy, ", s.Module)
	case s.Layer == format.LayerModule:
		layer = fmt.Sprintf("module %s, ", s.Module)
	case s.Layer == format.LayerGlobal:
		layer = "global layer, "
	}
	return fmt.Sprintf("%slevel %q", layer, s.Level)
}

// sideName names a side of the comparison with the source revision its
// bundles were compiled from, when known: "bundles-main (revision
// 3f2a1b0c9d8e)". A revision that is a full git commit is shortened to 12
// digits; the JSON output gives it whole.
func sideName(name, rev string) string {
	if rev == "" || strings.Contains(name, shortRev(rev)) { // diff --git names the commit
		return name
	}
	return name + " (revision " + shortRev(rev) + ")"
}

func shortRev(rev string) string {
	if len(rev) == 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		return rev[:12]
	}
	return rev
}

// summaryLine is the one-line summary every format shows first. Errors
// are counted when some appeared, disappeared or changed.
func summaryLine(s Summary) string {
	line := fmt.Sprintf("%s compared: %d changed, %d unchanged, %d only in OLD, %d only in NEW; %s changed",
		plural(s.Nodes, "node"), s.Changed, s.Unchanged, s.OnlyOld, s.OnlyNew, plural(s.KeysChanged, "key"))
	var errs []string
	for _, e := range []struct {
		n    int
		what string
	}{{s.ErrorsAppeared, "appeared"}, {s.ErrorsGone, "gone"}, {s.ErrorsChanged, "changed"}} {
		if e.n > 0 {
			errs = append(errs, fmt.Sprintf("%d %s", e.n, e.what))
		}
	}
	if len(errs) > 0 {
		line += "; errors: " + strings.Join(errs, ", ")
		if s.ErrorNodes > 0 {
			line += fmt.Sprintf(" (%s with new errors)", plural(s.ErrorNodes, "node"))
		}
	}
	return line
}

// groupTitle heads a group: "2 nodes", "1 node only in NEW".
func groupTitle(g Group) string {
	t := plural(len(g.Nodes), "node")
	switch g.Status {
	case NodeOnlyOld:
		t += " only in OLD"
	case NodeOnlyNew:
		t += " only in NEW"
	}
	return t
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
