package bundlediff

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/hieracc/hieracc/format/ruby"
	"github.com/hieracc/hieracc/runtime/render"
)

// JSONVersion is the version of WriteJSON's schema. Fields may be added
// within a version; none is removed or changes meaning.
const JSONVersion = 1

// WriteJSON writes the report as one JSON document (schema version 1;
// "changes" and the summary's error counts were added within it):
//
//	{
//	  "version": 1,
//	  "old": "OLD", "new": "NEW",                 // as Report.Old, Report.New
//	  "old_revision": "3f2a…", "new_revision": "9c8d…",   // the source revision each side was
//	                                              //   compiled from, when known (else left out)
//	  "summary": {"nodes": 8, "changed": 2, "unchanged": 6,
//	              "only_old": 0, "only_new": 1, "keys_changed": 3,
//	              "errors_appeared": 1, "errors_gone": 0, "errors_changed": 0,   // distinct changes
//	              "error_nodes": 1},                // nodes where an error appeared or changed
//	  "changes": [                                // each distinct change once, sorted by key, path,
//	    {                                         //   then nodes touched (most first)
//	      "key": ..., "module": ..., "path": ..., "kind": ..., "old": SIDE, "new": SIDE,   // as in groups
//	      "nodes": ["web01", ...],                // every node it touches, sorted
//	      "patterns": [{"glob": "web*.fra1.example.net", "nodes": 1200, "of": 1250}]
//	                                              // at most 5 globs (path.Match) sharing out nodes;
//	                                              // "of": the nodes of the comparison the glob matches
//	    }
//	  ],
//	  "groups": [                                 // nodes with the same changes; sorted by their first node
//	    {
//	      "status": "changed",                    // or "only_old", "only_new"
//	      "nodes": ["db01", "web01"],             // sorted
//	      "changes": [                            // sorted by key, then path; [] unless "changed"
//	        {
//	          "key": "accounts::users",           // "" for a node- or module-level error
//	          "module": "ntp",                    // only for a module-level error
//	          "path": "/bob/shell",               // JSON Pointer into the value; "" is the whole value
//	          "kind": "changed",                  // added, removed, changed, type, order, error
//	          "old": SIDE,                        // left out where the key or path is absent
//	          "new": SIDE,                        // (for "error": where there is no error)
//	          "parts": [CHANGE, ...]              // only for a changed array or record, shown whole (old
//	                                              //   and new hold it whole; "order": an array of the
//	                                              //   same elements): the changes inside it, at their paths
//	        }
//	      ]
//	    }
//	  ]
//	}
//
//	SIDE = {
//	  "value": V, "type": "String",               // the value at path and its Puppet type
//	                                              //   (Undef, Boolean, Integer, Float, String, Array, Hash)
//	  "keys": [K, ...],                           // instead of value and type, for "order": the hash's keys in order
//	  "error": {"message": "...", "file": "env/data/common.yaml", "line": 3, "column": 1, "level": "Common"},
//	                                              // instead of value, for a failed key; file, line, column, level may be absent
//	  "sources": [                                // where the value came from; may be []
//	    {"layer": "environment", "level": "Common", "file": "env/data/common.yaml", "line": 12, "column": 1,
//	     "module": "ntp",                         // only for the module layer
//	     "default_hierarchy": true}               // only when from the module's default_hierarchy
//	  ]
//	}
//
// Values are JSON as `puppet lookup --render-as json` prints them (hash keys
// in order; a key that is not a string is given as its to_s). A value that
// JSON cannot hold (NaN, infinity, invalid UTF-8) is given as a string of
// its Ruby inspect form; its "type" still tells. Array indexes in paths are
// NEW's, except for a removed element (OLD's).
func WriteJSON(w io.Writer, r *Report, _ Options) error {
	doc := jsonReport{
		Version: JSONVersion,
		Old:     r.Old,
		New:     r.New,
		OldRev:  r.OldRevision,
		NewRev:  r.NewRevision,
		Summary: jsonSummary(r.Summary),
		Changes: make([]jsonEntry, len(r.Entries)),
		Groups:  make([]jsonGroup, len(r.Groups)),
	}
	of := map[string]int{}
	for i, e := range r.Entries {
		doc.Changes[i] = jsonEntry{jsonChange: jsonChanges([]Change{e.Change})[0], Nodes: e.Nodes,
			Patterns: jsonPatterns(Summarise(e.Nodes, r.Nodes, jsonPatternsMax, of))}
	}
	for i, g := range r.Groups {
		doc.Groups[i] = jsonGroup{Status: string(g.Status), Nodes: g.Nodes, Changes: jsonChanges(g.Changes)}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// jsonPatternsMax bounds the patterns of an entry in JSON, where the full
// node list is given too.
const jsonPatternsMax = 5

type jsonReport struct {
	Version int         `json:"version"`
	Old     string      `json:"old"`
	New     string      `json:"new"`
	OldRev  string      `json:"old_revision,omitempty"`
	NewRev  string      `json:"new_revision,omitempty"`
	Summary jsonSummary `json:"summary"`
	Changes []jsonEntry `json:"changes"`
	Groups  []jsonGroup `json:"groups"`
}

type jsonSummary struct {
	Nodes          int `json:"nodes"`
	Changed        int `json:"changed"`
	Unchanged      int `json:"unchanged"`
	OnlyOld        int `json:"only_old"`
	OnlyNew        int `json:"only_new"`
	KeysChanged    int `json:"keys_changed"`
	ErrorsAppeared int `json:"errors_appeared"`
	ErrorsGone     int `json:"errors_gone"`
	ErrorsChanged  int `json:"errors_changed"`
	ErrorNodes     int `json:"error_nodes"`
}

type jsonEntry struct {
	jsonChange
	Nodes    []string      `json:"nodes"`
	Patterns []jsonPattern `json:"patterns"`
}

type jsonPattern struct {
	Glob  string `json:"glob"`
	Nodes int    `json:"nodes"`
	Of    int    `json:"of"`
}

func jsonPatterns(ps []Pattern) []jsonPattern {
	out := make([]jsonPattern, len(ps))
	for i, p := range ps {
		out[i] = jsonPattern(p)
	}
	return out
}

type jsonGroup struct {
	Status  string       `json:"status"`
	Nodes   []string     `json:"nodes"`
	Changes []jsonChange `json:"changes"`
}

type jsonChange struct {
	Key    string    `json:"key"`
	Module string    `json:"module,omitempty"`
	Path   string    `json:"path"`
	Kind   string    `json:"kind"`
	Old    *jsonSide `json:"old,omitempty"`
	New    *jsonSide `json:"new,omitempty"`
	// Parts: the changes inside an array or record shown whole.
	Parts []jsonChange `json:"parts,omitempty"`
}

type jsonSide struct {
	Value   json.RawMessage `json:"value,omitempty"` // "null" is kept: only a missing value is left out
	Type    string          `json:"type,omitempty"`
	Keys    json.RawMessage `json:"keys,omitempty"`
	Secret  bool            `json:"secret,omitempty"` // value, type and keys left out
	Sealed  bool            `json:"sealed,omitempty"` // sealed to the node: not in the bundle
	Error   *jsonError      `json:"error,omitempty"`
	Sources []jsonSource    `json:"sources"`
}

type jsonError struct {
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Level   string `json:"level,omitempty"`
}

type jsonSource struct {
	Layer   string `json:"layer"`
	Module  string `json:"module,omitempty"`
	Level   string `json:"level"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Default bool   `json:"default_hierarchy,omitempty"`
}

func jsonChanges(cs []Change) []jsonChange {
	out := make([]jsonChange, len(cs))
	for i, c := range cs {
		out[i] = jsonChange{Key: c.Key, Module: c.Module, Path: c.Path, Kind: string(c.Kind), Old: newJSONSide(c.Old), New: newJSONSide(c.New)}
		if c.Parts != nil {
			out[i].Parts = jsonChanges(c.Parts)
		}
	}
	return out
}

func newJSONSide(s *Side) *jsonSide {
	if s == nil {
		return nil
	}
	j := &jsonSide{Sources: make([]jsonSource, len(s.Sources))}
	switch {
	case s.Err != nil:
		j.Error = &jsonError{Message: s.Err.Message, File: s.Err.File, Line: s.Err.Line, Column: s.Err.Column, Level: s.Err.Level}
	case s.Secret:
		j.Secret, j.Sealed = true, s.Sealed
	case s.Keys != nil:
		j.Keys = jsonValue(s.Keys)
	default:
		j.Value = jsonValue(s.Value)
		j.Type = ruby.KindName(s.Value)
	}
	for i, src := range s.Sources {
		j.Sources[i] = jsonSource{Layer: src.Layer.String(), Module: src.Module, Level: src.Level, File: src.File,
			Line: src.Line, Column: src.Column, Default: src.Default}
	}
	return j
}

// jsonValue renders v as puppet lookup --render-as json does, or, for what
// JSON cannot hold, as a JSON string of its Ruby inspect form.
func jsonValue(v any) json.RawMessage {
	if out, err := render.As(v, render.JSON); err == nil {
		return json.RawMessage(strings.TrimSuffix(string(out), "\n"))
	}
	b, _ := json.Marshal(ruby.ToS(v)) // Marshal replaces invalid UTF-8
	return b
}
