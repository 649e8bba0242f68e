package main

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
	"github.com/hieracc/hieracc/runtime/render"
)

// explainKeys is lookup --explain: for each key in turn, until one is
// found, every layer, level and data file searched, what each holds and
// how they are merged. As puppet lookup --explain, it exits 0 whether or
// not a value is found, and even when the lookup fails: the explanation
// is the answer. Only a bundle that cannot be explained fails.
//
// onlyOptions is --explain-options without --explain: only which
// lookup_options entry applies to the key, where it is written, and the
// merge it configures. The values of a secret key are not shown, unless
// showSecrets. A bundle compiled from a known source revision (compile
// --source-revision) says so first, in a line Puppet does not print.
//
// display names a file the bundle records (env/data/common.yaml) as the
// user gave its folder; nil leaves it as recorded.
func explainKeys(c *cmdEnv, b *runtime.Bundle, keys []string, opts runtime.Options, onlyOptions, showSecrets bool, display func(string) string) int {
	code := exitOK
	if rev := b.Header().SourceRevision; rev != "" {
		// The bundle's string: no control character reaches the terminal.
		fmt.Fprintf(safeWriter{c.stdout}, "Compiled from source revision %s\n", rev)
	}
	for i, key := range keys {
		if i > 0 {
			fmt.Fprintln(c.stdout)
		}
		v, err := b.LookupWith(key, opts)
		if !explainKey(c.stdout, b, key, opts, v, err, onlyOptions, showSecrets, display) {
			code = exitFail
		}
		if err == nil || !errors.Is(err, runtime.ErrNotFound) {
			break
		}
	}
	return code
}

// explainKey writes the explanation of one key's lookup, whose result was
// v or lerr; false when the bundle cannot explain it.
func explainKey(w io.Writer, b *runtime.Bundle, key string, opts runtime.Options, v any, lerr error, onlyOptions, showSecrets bool, display func(string) string) bool {
	if display == nil {
		display = func(p string) string { return p }
	}
	x := explainer{w: w, v1: !format.RecordsMergeFrom(b.Header().Version), display: display}
	x.line(0, "Searching for %s", quote(key))
	e, err := explain.Key(b, key)
	ok := true
	if err != nil && !errors.Is(err, runtime.ErrNotFound) {
		x.line(1, "cannot explain: %v", err)
		ok, e = false, nil
	}
	x.hide = e != nil && e.Secret && !showSecrets
	if onlyOptions {
		if e != nil {
			x.options(e, err == nil)
		}
		if opts.Merge != nil {
			x.line(1, "--merge replaces it: %s", describeMerge(*opts.Merge))
		}
		return ok
	}
	if e != nil {
		x.search(key, e, opts, err == nil)
	}
	switch {
	case lerr == nil:
		x.value(1, "Result:", v)
	case errors.Is(lerr, runtime.ErrNotFound):
		x.line(1, "%s", notFoundMessage([]string{key}))
	default:
		x.line(1, "Error: %s", lookupError(lerr))
	}
	return ok
}

// explainer writes an explanation, indented two spaces a level.
type explainer struct {
	w    io.Writer
	v1   bool // the bundle is of format version 1 or 2: no lookup_options entries recorded
	hide bool // the key is secret: its values are not printed
	// display names a recorded file as the user gave its folder.
	display func(string) string
}

// pos is p with its file as the user gave it.
func (x explainer) pos(p format.Pos) format.Pos {
	p.File = x.display(p.File)
	return p
}

// secretHidden stands for the value of a secret key.
const secretHidden = " (secret: decrypted from ENC[...] or Sensitive; --show-secrets shows it)"

func (x explainer) line(depth int, format string, args ...any) {
	fmt.Fprintf(x.w, "%s%s\n", strings.Repeat("  ", depth), fmt.Sprintf(format, args...))
}

// value writes label and a value. It is the one place an explanation
// prints a value from the data, and hides a secret key's.
func (x explainer) value(depth int, label string, v any) {
	pad := strings.Repeat("  ", depth)
	if x.hide {
		fmt.Fprintf(x.w, "%s%s%s\n", pad, label, secretHidden)
		return
	}
	fmt.Fprintf(x.w, "%s%s%s\n", pad, label, indentValue(v, pad+"  "))
}

// search writes the merge, then each layer searched, level by level.
// options writes, for --explain-options, which lookup_options entry
// applies to the key and the merge it configures. inData: as for search.
func (x explainer) options(e *explain.Explanation, inData bool) {
	if !inData {
		x.line(1, "No data for the key: the bundle does not record its lookup_options")
		return
	}
	switch o := e.MergeFrom; {
	case o != nil:
		x.line(1, "lookup_options entry %s applies, from %s (level %s)", quote(o.Entry),
			x.pos(o.Pos), quote(o.Level))
	case x.v1:
		x.line(1, "The bundle (format version 1 or 2) does not record which lookup_options entry applies")
	default:
		x.line(1, "No lookup_options entry matches the key")
	}
	x.line(1, "Merge strategy: %s", describeMerge(e.Merge))
	if len(e.Sources) == 0 && len(e.Defaults) > 0 {
		x.line(1, "Only the module's default_hierarchy has the key; its own lookup_options give: %s", describeMerge(e.DefaultMerge))
	}
}

// inData says whether the bundle has data for the key at all: when it has
// none, it does not record which lookup_options would apply.
func (x explainer) search(key string, e *explain.Explanation, opts runtime.Options, inData bool) {
	if e.Root != key {
		x.line(1, "Looking up %s, then taking %s from its value", quote(e.Root), strings.TrimPrefix(key, e.Root+"."))
	}
	merge, from := e.Merge, x.optionsFrom(e.MergeFrom)
	if opts.Merge != nil {
		merge, from = *opts.Merge, "--merge"
	}
	defaults := len(e.Sources) == 0 && len(e.Defaults) > 0
	if defaults {
		// Only the module's default_hierarchy has the key, with its own
		// lookup_options.
		merge, from = e.DefaultMerge, "the default_hierarchy's lookup_options"
	}
	if inData || opts.Merge != nil {
		x.line(1, "Merge strategy: %s (from %s)", describeMerge(merge), from)
	}
	first := merge.Strategy.IsFirst()
	for _, l := range e.Searched {
		srcs := e.Sources
		if l.Default {
			srcs = e.Defaults
			if !defaults {
				x.line(1, "Module %s, default_hierarchy: not searched (searched only when no other layer has the key)", l.Module)
				continue
			}
		}
		x.layer(e.Root, l, srcs, first)
	}
	if len(e.Sources) == 0 && len(e.Defaults) == 0 {
		x.line(1, "No hierarchy level holds the key")
	}
}

func (x explainer) layer(root string, l explain.LayerSearch, srcs []explain.Source, first bool) {
	switch {
	case l.Missing:
		x.line(1, "Module %s not found", quote(l.Module))
		return
	case l.Default:
		x.line(1, "Module %s, default_hierarchy (no other layer has the key)", l.Module)
	case l.Layer == format.LayerModule:
		x.line(1, "Module %s", l.Module)
	default:
		x.line(1, "%s layer", strings.ToUpper(l.Layer.String()[:1])+l.Layer.String()[1:])
	}
	if l.Err != nil {
		x.line(2, "Error: %s", x.errorAt(l.Err))
		return
	}
	switch {
	case !l.Present && l.Layer == format.LayerGlobal:
		x.line(2, "No global layer (compiled without --global): no data")
		return
	case !l.Present:
		x.line(2, "No hiera.yaml: the layer holds no data")
		return
	}
	if len(l.Levels) == 0 {
		x.line(2, "No hierarchy levels: the layer holds no data for this node")
	}
	for _, lvl := range l.Levels {
		x.line(2, "Hierarchy level %s", quote(lvl.Name))
		if len(lvl.Locations) == 0 {
			x.line(3, "No paths: the level names no data file for this node")
		}
		for _, loc := range lvl.Locations {
			x.line(3, "Path %s", quote(x.display(loc.Path)))
			if loc.Original != "" {
				x.line(4, "Original path: %s", quote(loc.Original))
			}
			if hint := emptyInterpolation(loc); hint != "" {
				x.line(4, "%s", hint)
			}
			switch {
			case !loc.Exists:
				x.line(4, "Path not found")
			case loc.Source < 0:
				x.line(4, "No such key: %s", quote(root))
			default:
				s := srcs[loc.Source]
				x.line(4, "Found key: %s at %s", quote(root), x.pos(s.Pos))
				if s.Err != nil {
					x.line(4, "Error: %s", x.message(s.Err))
				} else {
					x.value(4, "Value:", s.Value)
				}
				if first && loc.Source > 0 {
					x.line(4, "(not used: the first value found wins)")
				}
			}
		}
	}
}

// emptyInterpolation says when a data file's path looks like the work of
// a variable that interpolated to "" (Puppet's `roles/%{facts.role}.yaml`
// for a node without the fact gives `roles/.yaml`), the usual reason a
// level never matches.
func emptyInterpolation(loc explain.LocationSearch) string {
	if loc.Original != "" && !strings.Contains(loc.Original, "%{") {
		return "" // nothing was interpolated
	}
	p := loc.Path
	base := path.Base(p)
	if strings.Contains(p, "//") || (strings.HasPrefix(base, ".") && strings.Count(base, ".") == 1 && len(base) > 1) {
		return "(a variable in the path's template was probably empty or undefined for this node)"
	}
	return ""
}

// quote quotes s as puppet lookup --explain does.
func quote(s string) string { return `"` + s + `"` }

// errorAt is a recorded error's message and where it arose.
func (x explainer) errorAt(e *format.Error) string {
	msg := e.Message
	if e.File == "" {
		return msg
	}
	if strings.Contains(msg, e.File) {
		return strings.ReplaceAll(msg, e.File, x.display(e.File))
	}
	return msg + " (" + x.pos(e.Pos).String() + ")"
}

// message is an error's message, with the file it names as the user gave
// its folder.
func (x explainer) message(e *format.Error) string {
	if e.File == "" {
		return e.Message
	}
	return strings.ReplaceAll(e.Message, e.File, x.display(e.File))
}

// optionsFrom says where a key's merge comes from: the lookup_options entry
// that matched it, and where that entry is written.
func (x explainer) optionsFrom(o *format.OptionsEntry) string {
	switch {
	case o == nil && x.v1:
		return "lookup_options"
	case o == nil:
		return "the default: no lookup_options entry matches the key"
	}
	return fmt.Sprintf("lookup_options entry %s at %s, level %s", quote(o.Entry),
		x.pos(o.Pos), quote(o.Level))
}

// describeMerge names a strategy as lookup_options spell it.
func describeMerge(m format.Merge) string {
	s := string(m.Strategy)
	if m.Strategy.IsFirst() {
		s = string(format.MergeFirst)
	}
	var opts []string
	if m.KnockoutPrefix != "" {
		opts = append(opts, fmt.Sprintf("knockout_prefix %q", m.KnockoutPrefix))
	}
	if m.SortMergedArrays {
		opts = append(opts, "sort_merged_arrays")
	}
	if m.MergeHashArrays {
		opts = append(opts, "merge_hash_arrays")
	}
	if len(opts) > 0 {
		s += " with " + strings.Join(opts, ", ")
	}
	switch {
	case m.Strategy.IsFirst():
		s += ": the highest-priority value wins"
	case m.Strategy == format.MergeUnique:
		s += ": arrays and values of every level, flattened, duplicates removed"
	case m.Strategy == format.MergeHash:
		s += ": hashes of every level, higher-priority keys win"
	case m.Strategy == format.MergeDeep:
		s += ": hashes and arrays of every level merged recursively"
	}
	return s
}

// indentValue renders a value as YAML, the default --render-as: a scalar
// after a space, a collection as a block on the next lines, indented by pad.
func indentValue(v any, pad string) string {
	if v == nil {
		return " null" // Psych writes nothing at all
	}
	out, err := render.As(v, render.YAML)
	if err != nil {
		return fmt.Sprintf(" %v", v)
	}
	s := strings.TrimSuffix(string(out), "\n")
	s = strings.TrimSuffix(s, "\n...")
	if rest, ok := strings.CutPrefix(s, "--- "); ok && !strings.Contains(rest, "\n") {
		return " " + rest
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "---"), "\n")
	return "\n" + pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}
