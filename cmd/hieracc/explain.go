package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/runtime"
)

// explainKeys is lookup --explain: for each key in turn, until one is
// found, where its data is and how it is merged. The values of a secret
// key are not shown, unless showSecrets.
func explainKeys(c *cmdEnv, b *runtime.Bundle, keys []string, opts runtime.Options, showSecrets bool) int {
	for i, key := range keys {
		if i > 0 {
			fmt.Fprintln(c.stdout)
		}
		v, err := b.LookupWith(key, opts)
		explainKey(c, b, key, opts, v, err, showSecrets)
		if err == nil {
			return exitOK
		}
		if !errors.Is(err, runtime.ErrNotFound) {
			return exitFail
		}
	}
	return exitFail
}

// secretHidden stands for the value of a secret key.
const secretHidden = " (secret: decrypted from ENC[...] or Sensitive; --show-secrets shows it)"

func explainKey(c *cmdEnv, b *runtime.Bundle, key string, opts runtime.Options, v any, lerr error, showSecrets bool) {
	w := c.stdout
	fmt.Fprintf(w, "Searching for \"%s\"\n", key)
	e, err := b.Explain(key)
	if err != nil && !errors.Is(err, runtime.ErrNotFound) {
		fmt.Fprintf(w, "  cannot explain: %v\n", err)
	}
	hide := e != nil && e.Secret && !showSecrets
	show := func(v any, pad string) string {
		if hide {
			return secretHidden
		}
		return indentValue(v, pad)
	}
	if e != nil {
		if e.Root != key {
			fmt.Fprintf(w, "  Looking up \"%s\", then taking %s from its value\n", e.Root, strings.TrimPrefix(key, e.Root+"."))
		}
		merge, from := e.Merge, "lookup_options"
		if opts.Merge != nil {
			merge, from = *opts.Merge, "--merge"
		}
		sources, defaults := e.Sources, false
		if len(sources) == 0 && len(e.Defaults) > 0 {
			// Only the module's default_hierarchy has the key, with its
			// own lookup_options.
			sources, defaults = e.Defaults, true
			merge, from = e.DefaultMerge, "the default_hierarchy's lookup_options"
		}
		fmt.Fprintf(w, "  Merge strategy: %s (from %s)\n", describeMerge(merge), from)
		if defaults {
			fmt.Fprintln(w, "  No regular hierarchy has the key: the module's default_hierarchy is used")
		}
		if len(sources) == 0 {
			fmt.Fprintln(w, "  No hierarchy level holds the key")
		}
		first := merge.Strategy.IsFirst()
		for i, s := range sources {
			fmt.Fprintf(w, "  %d. %s, level %q\n", i+1, layerName(s), s.Level)
			fmt.Fprintf(w, "     %s\n", position(s))
			switch {
			case s.Err != nil:
				fmt.Fprintf(w, "     Error: %s\n", s.Err.Message)
			default:
				fmt.Fprintf(w, "     Value:%s\n", show(s.Value, "       "))
			}
			if first && i > 0 {
				fmt.Fprintln(w, "     (not used: the first value found wins)")
			}
		}
	}
	switch {
	case lerr == nil:
		fmt.Fprintf(w, "  Result:%s\n", show(v, "    "))
	case errors.Is(lerr, runtime.ErrNotFound):
		fmt.Fprintf(w, "  %s\n", notFoundMessage([]string{key}))
	default:
		fmt.Fprintf(w, "  Error: %s\n", lookupError(lerr))
	}
}

// describeMerge names a strategy as lookup_options spell it.
func describeMerge(m format.Merge) string {
	s := string(m.Strategy)
	if s == "" {
		s = "first"
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
	switch m.Strategy {
	case "", "first":
		s += ": the highest-priority value wins"
	case "unique":
		s += ": arrays and values of every level, flattened, duplicates removed"
	case "hash":
		s += ": hashes of every level, higher-priority keys win"
	case "deep":
		s += ": hashes and arrays of every level merged recursively"
	}
	return s
}

func layerName(s runtime.Source) string {
	if s.Layer == format.LayerModule {
		return fmt.Sprintf("module %s", s.Module)
	}
	return fmt.Sprintf("%s layer", s.Layer)
}

// position is the data file and the key's place in it.
func position(s runtime.Source) string {
	p := s.Path
	if s.Line > 0 {
		p += fmt.Sprintf(":%d", s.Line)
		if s.Column > 0 {
			p += fmt.Sprintf(":%d", s.Column)
		}
	}
	return p
}

// indentValue renders a value as YAML, the default --render-as: a scalar
// after a space, a collection as a block on the next lines, indented by pad.
func indentValue(v any, pad string) string {
	if v == nil {
		return " null" // Psych writes nothing at all
	}
	out, err := runtime.Render(v, runtime.YAML)
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
