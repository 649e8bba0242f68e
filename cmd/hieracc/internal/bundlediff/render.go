package bundlediff

// What the renderers share: how a change, a value and a source read.

import (
	"fmt"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/runtime"
)

// Options tune the renderers.
type Options struct {
	// Color marks up the text output with ANSI colours; set it only when
	// the output is a terminal.
	Color bool
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
		return fmt.Sprintf("type changed (%s to %s)", typeName(c.Old.Value), typeName(c.New.Value))
	case Reordered:
		return "key order changed"
	case ErrorChanged:
		oldErr, newErr := c.Old != nil && c.Old.Err != nil, c.New != nil && c.New.Err != nil
		switch {
		case oldErr && newErr:
			return "error changed"
		case newErr:
			return "error appeared"
		}
		return "error gone"
	}
	return string(c.Kind)
}

// display is a value as the text and markdown outputs show it: JSON as
// puppet lookup --render-as json prints it, which keeps 443 and "443"
// apart; Ruby's inspect form for what JSON cannot hold.
func display(v any) string {
	if out, err := runtime.Render(v, runtime.JSON); err == nil {
		return strings.TrimSuffix(string(out), "\n")
	}
	return inspect(v)
}

// inspect is Ruby's to_s of v, as puppet lookup --render-as s prints it.
func inspect(v any) string {
	out, err := runtime.Render(v, runtime.Text)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// sideValue is what a side holds, in one line (errors may hold more).
func sideValue(s *Side) string {
	switch {
	case s.Err != nil:
		if len(s.Sources) > 0 { // they say where
			return "error: " + s.Err.Message
		}
		return "error: " + errorText(s.Err)
	case s.Secret:
		return secretText
	case s.Keys != nil:
		return display(s.Keys)
	}
	return display(s.Value)
}

// secretText stands for the value of a secret key.
const secretText = "(secret: decrypted from ENC[...] or Sensitive; --show-secrets shows it)"

// errorText is Puppet's message, followed by where the failure was
// recorded when the message does not say.
func errorText(e *format.Error) string {
	msg := e.Message
	if e.File != "" && !strings.Contains(msg, e.File) {
		msg += " (" + position(e.File, e.Line) + ")"
	}
	return msg
}

func position(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
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

// summaryLine is the one-line summary every format shows.
func summaryLine(s Summary) string {
	return fmt.Sprintf("%s compared: %d changed, %d unchanged, %d only in OLD, %d only in NEW; %s changed",
		plural(s.Nodes, "node"), s.Changed, s.Unchanged, s.OnlyOld, s.OnlyNew, plural(s.KeysChanged, "key"))
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
