package compiler

// Levels whose data provider is Ruby code: a custom data_hash, lookup_key
// or data_dig function (a Vault backend, say) or a Hiera 3 backend. hieracc
// cannot run them, and neither can Puppet when the function is missing: it
// raises "Unable to find 'data_hash' function named 'x'" when a lookup
// reaches a location of the level, that is, one that exists (a path, a
// glob's match), or any uri, or the level itself when it names no
// location. Every lookup first reads lookup_options from every level, so
// in practice every lookup of a key whose layers hold such a location
// fails, and the other keys (another module's, or every key when no
// location exists) are answered. hieracc does the same: such a location
// is a data file that fails to load with Puppet's message.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera/lookupopts"
)

// builtinFunctions are functions Puppet ships that hieracc does not run
// (yet): naming one is a compile error, not Puppet's "Unable to find".
var builtinFunctions = []string{"hocon_data"}

// checkFunction decides what a level's function means for hieracc: ""
// when it runs (yaml_data, json_data) or is Ruby code (lvl.foreign is set),
// else the error that fails the layer.
func (c *config) checkFunction(lvl *levelConf) string {
	if slices.Contains(supportedFunctions, lvl.function) {
		return ""
	}
	if backend, ok := strings.CutPrefix(lvl.function, "hiera3_backend:"); ok {
		switch {
		case c.layer != format.LayerGlobal:
			return "'hiera3_backend' is only allowed in the global layer"
		case backend == "yaml" || backend == "json":
			return fmt.Sprintf("Use \"data_hash: %s_data\" instead of \"hiera3_backend: %s\"", backend, backend)
		}
	}
	if lvl.function == "" || slices.Contains(builtinFunctions, lvl.function) {
		return fmt.Sprintf("hieracc cannot run %s in hierarchy '%s': only data_hash yaml_data and json_data, and lookup_key eyaml_lookup_key, are supported ahead of time", describeFunction(lvl.function), lvl.name)
	}
	lvl.foreign = true
	return ""
}

// foreignMessage is Puppet's error for a function it cannot find; for a
// Hiera 3 backend (which Puppet skips when it cannot load it) hieracc's.
func foreignMessage(function string) string {
	kind, name, ok := strings.Cut(function, ":")
	if !ok {
		kind, name = "data_hash", function
	}
	if kind == "hiera3_backend" {
		return fmt.Sprintf("Unable to load backend '%s': hieracc cannot run Hiera 3 backends, which are Ruby code", name)
	}
	return fmt.Sprintf("Unable to find '%s' function named '%s'", kind, name)
}

// foreignFile is the data file a reached location l of a foreign level
// stands for: the function's answer for the node when Input.RubyBackends
// runs it (rubybackends.go), else failedForeignFile.
func (nl *nodeLayers) foreignFile(conf *config, lvl *levelConf, l location) *dataFile {
	if kind, _ := rubyKind(lvl.function); kind != "" && nl.n.c.ruby != nil {
		return nl.rubyFile(conf, lvl, l)
	}
	return nl.n.c.failedForeignFile(conf, lvl)
}

// failedForeignFile is the data file every reached location of a foreign
// level stands for when hieracc does not run it: one per level, failing
// every read with Puppet's message, and reported once, where the level is
// written.
func (c *compilation) failedForeignFile(conf *config, lvl *levelConf) *dataFile {
	module := ""
	if conf.layer == format.LayerModule {
		module = conf.module
	}
	k := fileKey{path: conf.file + "#" + lvl.name, function: lvl.function, module: module}
	e := c.files.entry(k)
	e.once.Do(func() {
		msg := foreignMessage(lvl.function)
		d := diagnostics.Diagnostic{Pos: lvl.pos.In(conf.file), Level: lvl.name, Message: msg}
		if !strings.Contains(lvl.function, ":") {
			if near := lookupopts.Nearest(lvl.function, supportedFunctions); near != "" {
				d.Message += fmt.Sprintf(" (did you mean '%s'?)", near)
			}
		}
		e.df = &dataFile{path: conf.file, id: c.fileIDs.Add(1), diags: []diagnostics.Diagnostic{d},
			err: &format.Error{Message: msg, Pos: lvl.pos.In(conf.file), Level: lvl.name}}
	})
	return e.df
}
