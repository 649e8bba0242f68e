package facts

// Reading one file: parse it as its extension says (JSON or YAML, never
// one taken for the other), then detect its shape from its content.

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
	"gopkg.in/yaml.v3"
)

// Extensions are the file name extensions Parse reads, lower case:
// .json and .facts (facterdb's) are JSON, .yaml and .yml YAML.
var Extensions = []string{".json", ".yaml", ".yml", ".facts"}

// IsFactsFile reports whether a file of this name is read as facts.
func IsFactsFile(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	for _, e := range Extensions {
		if ext == e {
			return true
		}
	}
	return false
}

// Parse reads one facts file. file names it in messages and Node.File
// (its base name, less the extension, is the certname of a plain facts
// hash, and must be the certname of a document that names one node);
// src is its content. Every node the file holds is returned, or, when
// there is any error, none.
func Parse(file string, src []byte) ([]Node, []diagnostics.Diagnostic) {
	d := &doc{file: file, fileCert: fileCertname(file)}
	ext := strings.ToLower(path.Ext(file))
	switch ext {
	case ".json", ".facts":
		v, p := dataload.JSONValue(file, src)
		if p != nil {
			return nil, []diagnostics.Diagnostic{d.problemAt(p.Line, p.Column, "", p.Message)}
		}
		d.detect(v)
	case ".yaml", ".yml":
		// puppet lookup --facts reads a YAML file as "bom|utf-8", which
		// drops a leading byte order mark; JSON facts keep theirs and
		// fail to parse, as in Puppet. (Data files keep it too: see the
		// byte-order-mark conformance case.)
		root, err := dataload.Node(file, bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")))
		if err != nil {
			p := d.fromDataload(err)
			p.Message = "Unable to parse " + p.Message // as JSON's, and Puppet's yaml_data's
			return nil, []diagnostics.Diagnostic{p}
		}
		if root == nil {
			return nil, []diagnostics.Diagnostic{d.problem("", "holds no document: a facts file must hold the facts of at least one node")}
		}
		d.root = root
		if class, ok := rubyObject(root); ok {
			if class != "Puppet::Node::Facts" {
				return nil, []diagnostics.Diagnostic{d.problemAt(root.Line, root.Column, "", fmt.Sprintf("holds a Ruby object of class %s, not facts (a Puppet::Node::Facts, or a hash of facts)", class))}
			}
			d.nodeFacts(root)
			break
		}
		v, err := dataload.Value(file, root)
		if err != nil {
			return nil, []diagnostics.Diagnostic{d.fromDataload(err)}
		}
		d.detect(v)
	default:
		return nil, []diagnostics.Diagnostic{d.problem("", fmt.Sprintf("is not read as facts: facts files end in %s", strings.Join(Extensions, ", ")))}
	}
	if diagnostics.HasErrors(d.probs) {
		return nil, d.probs // a file read in part is not read
	}
	return d.nodes, d.probs
}

// Records reads the nodes of a PuppetDB response (or any document already
// parsed as JSON), v, from source (a URL), as Parse reads a file's.
func Records(source string, v any) ([]Node, []diagnostics.Diagnostic) {
	d := &doc{file: source}
	d.detect(v)
	if diagnostics.HasErrors(d.probs) {
		return nil, d.probs
	}
	return d.nodes, d.probs
}

// fileCertname is the certname a file's name gives: its base name less
// its extension.
func fileCertname(file string) string {
	base := path.Base(strings.ReplaceAll(file, "\\", "/"))
	return strings.TrimSuffix(base, path.Ext(base))
}

// doc is one document being read.
type doc struct {
	file     string
	fileCert string
	root     *yaml.Node // YAML only: positions of records
	nodes    []Node
	probs    []diagnostics.Diagnostic
}

func (d *doc) problem(node, msg string) diagnostics.Diagnostic {
	return diagnostics.Diagnostic{Pos: format.Pos{File: d.file}, Node: node, Message: msg}
}

func (d *doc) problemAt(line, col int, node, msg string) diagnostics.Diagnostic {
	return diagnostics.Diagnostic{Pos: format.Pos{File: d.file, Line: line, Column: col}, Node: node, Message: msg}
}

func (d *doc) fail(node, msg string) {
	d.probs = append(d.probs, d.problem(node, msg))
}

func (d *doc) fromDataload(err error) diagnostics.Diagnostic {
	if p, ok := err.(*diagnostics.Diagnostic); ok {
		return d.problemAt(p.Line, p.Column, "", p.Message)
	}
	return d.problem("", err.Error())
}

// elemPos is where the i-th element of a top-level array starts, when
// known (YAML only).
func (d *doc) elemPos(i int) (int, int) {
	if d.root != nil && d.root.Kind == yaml.SequenceNode && i < len(d.root.Content) {
		return d.root.Content[i].Line, d.root.Content[i].Column
	}
	return 0, 0
}

// rubyObject reports whether n is tagged !ruby/object:CLASS.
func rubyObject(n *yaml.Node) (class string, ok bool) {
	tag := n.Tag
	for _, p := range []string{"!ruby/object:", "tag:ruby.yaml.org,2002:object:"} {
		if c, found := strings.CutPrefix(tag, p); found {
			return c, true
		}
	}
	return "", false
}
