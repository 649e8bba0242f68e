package dataload

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDifferential compares YAML and JSON with Puppet's own loaders on
// random documents (grammar-built, then mutated byte by byte). It needs
// ruby and the puppet package, so it only runs when asked:
//
//	HIERACC_PUPPET_DIFF=5000 go test ./compiler/internal/dataload/ -run TestDifferential
//
// (HIERACC_PUPPET_DIFF_SEED picks the seed.) Divergences the package
// documents are filtered out as in TestGolden.
func TestDifferential(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HIERACC_PUPPET_DIFF"))
	if n == 0 {
		t.Skip("set HIERACC_PUPPET_DIFF=<count> to compare with Puppet (needs ruby and puppet)")
	}
	seed, _ := strconv.ParseInt(os.Getenv("HIERACC_PUPPET_DIFF_SEED"), 10, 64)
	if seed == 0 {
		seed = 1
	}
	rng := rand.New(rand.NewSource(seed))
	scalars, err := os.ReadFile("testdata/scalars.txt")
	if err != nil {
		t.Fatal(err)
	}
	g := &docGen{rng: rng, scalars: strings.Split(strings.TrimSpace(string(scalars)), "\n")}
	var cases []goldenCase
	for i := 0; i < n; i++ {
		kind, src := "yaml", g.yamlDoc()
		switch i % 8 {
		case 3, 7:
			kind, src = "json", g.jsonDoc()
		case 5:
			src = g.soup(":-[]{},#&*!|>'\"%@`? \n\t\\/.~0a1b:yn<+eE_\xc3\xa9")
		case 6:
			kind, src = "json", g.soup("{}[]:,\" \n\t\\/*-+.0123456789eEtrufalsn\\u00dD8")
		}
		if rng.Intn(3) == 0 {
			src = g.mutate(src)
		}
		cases = append(cases, goldenCase{Kind: kind, Name: fmt.Sprint(i), File: "data/x." + kind, Src64: base64.StdEncoding.EncodeToString([]byte(src))})
	}
	results := puppetLoad(t, cases)
	fails := 0
	for i, c := range cases {
		src, _ := base64.StdEncoding.DecodeString(c.Src64)
		var want any
		if err := json.Unmarshal(results[i], &want); err != nil {
			t.Fatal(err)
		}
		want = expectDivergences(want)
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(runLoader(c.Kind, c.File, src))
		if !bytes.Equal(wj, gj) {
			fails++
			if fails <= 30 {
				t.Errorf("%s %q:\npuppet:  %s\nhieracc: %s", c.Kind, src, around(wj, gj), around(gj, wj))
			}
		}
	}
	t.Logf("%d documents, %d differ", len(cases), fails)
}

type docGen struct {
	rng     *rand.Rand
	scalars []string
	anchors []string
}

func (g *docGen) pick(xs ...string) string { return xs[g.rng.Intn(len(xs))] }

func (g *docGen) scalar() string {
	switch g.rng.Intn(10) {
	case 0:
		return strconv.Quote(g.pick(g.scalars...))
	case 1:
		return "'" + strings.ReplaceAll(g.pick(g.scalars...), "'", "''") + "'"
	case 2:
		return g.pick("!!str ", "!!int ", "!!float ", "!foo ", "! ", "!ruby/sym ", "!!bool ", "!!null ") + g.pick(g.scalars...)
	case 3:
		if len(g.anchors) > 0 {
			return "*" + g.pick(g.anchors...)
		}
	}
	return g.pick(g.scalars...)
}

func (g *docGen) key() string {
	switch g.rng.Intn(12) {
	case 0:
		return "<<"
	case 1:
		return ":" + g.pick("a", "b", "sym")
	case 2:
		return g.pick(g.scalars...)
	case 3:
		return strconv.Quote(g.pick("a", "b", "<<", "1"))
	}
	return g.pick("a", "b", "c", "app::x", "1", "2", "yes", "off", "~", "1.5", "k")
}

func (g *docGen) anchor() string {
	if g.rng.Intn(5) != 0 {
		return ""
	}
	a := g.pick("x", "y", "z")
	g.anchors = append(g.anchors, a)
	return "&" + a + " "
}

// flow writes a flow-style value.
func (g *docGen) flow(depth int) string {
	if depth > 3 || g.rng.Intn(3) > 0 {
		s := g.scalar()
		if strings.ContainsAny(s, ",[]{}:#") && !strings.HasPrefix(s, "\"") {
			return strconv.Quote(s)
		}
		return s
	}
	var parts []string
	if g.rng.Intn(2) == 0 {
		for i := g.rng.Intn(4); i > 0; i-- {
			parts = append(parts, g.flow(depth+1))
		}
		return g.anchor() + "[" + strings.Join(parts, ", ") + "]"
	}
	for i := g.rng.Intn(4); i > 0; i-- {
		k := g.key()
		if strings.ContainsAny(k, ",[]{}:#") && !strings.HasPrefix(k, "\"") {
			k = strconv.Quote(k)
		}
		parts = append(parts, k+": "+g.flow(depth+1))
	}
	return g.anchor() + "{" + strings.Join(parts, ", ") + "}"
}

// block writes a block-style mapping or sequence at indent.
func (g *docGen) block(indent string, depth int, seq bool) string {
	var b strings.Builder
	for i := 1 + g.rng.Intn(4); i > 0; i-- {
		b.WriteString(indent)
		if seq {
			b.WriteString("- ")
		} else {
			b.WriteString(g.key() + ":")
		}
		switch r := g.rng.Intn(6); {
		case depth < 3 && r == 0:
			b.WriteString(" " + g.anchor() + "\n" + g.block(indent+"  ", depth+1, false))
		case depth < 3 && r == 1:
			b.WriteString(" " + g.anchor() + "\n" + g.block(indent+"  ", depth+1, true))
		case r == 2:
			b.WriteString(" " + g.flow(0) + "\n")
		case r == 3:
			b.WriteString(" |\n" + indent + "  " + g.pick(g.scalars...) + "\n")
		default:
			b.WriteString(" " + g.anchor() + g.scalar() + g.pick("", "", " # c") + "\n")
		}
	}
	return b.String()
}

func (g *docGen) yamlDoc() string {
	g.anchors = nil
	doc := g.block("", 0, g.rng.Intn(8) == 0)
	switch g.rng.Intn(10) {
	case 0:
		doc = "---\n" + doc
	case 1:
		doc += "---\n" + g.block("", 0, false)
	case 2:
		doc = "# comment\n" + doc
	case 3:
		doc = g.flow(0) + "\n"
	}
	return doc
}

func (g *docGen) jsonValue(depth int) string {
	switch r := g.rng.Intn(10); {
	case depth < 4 && r == 0:
		var parts []string
		for i := g.rng.Intn(4); i > 0; i-- {
			parts = append(parts, g.jsonValue(depth+1))
		}
		return "[" + strings.Join(parts, g.pick(",", ", ", " ,")) + "]"
	case depth < 4 && r == 1:
		return g.jsonObject(depth + 1)
	case r == 2:
		return g.pick("1", "-0", "1.5", "1e3", "-2.5E-3", "0", "12345678901234567890", "true", "false", "null")
	case r == 3:
		return g.pick(`"\u00e9"`, `"\ud83d\ude80"`, `"\n\t"`, `"\/"`, `"a\"b"`)
	}
	return strconv.Quote(g.pick(g.scalars...))
}

func (g *docGen) jsonObject(depth int) string {
	var parts []string
	for i := g.rng.Intn(5); i > 0; i-- {
		parts = append(parts, strconv.Quote(g.pick("a", "b", "c", "", "1"))+g.pick(":", " : ")+g.jsonValue(depth))
	}
	return "{" + strings.Join(parts, g.pick(",", ", ", ",\n")) + "}"
}

func (g *docGen) jsonDoc() string {
	if g.rng.Intn(10) == 0 {
		return g.jsonValue(0)
	}
	return g.pick("", " ", "\n", "/* c */") + g.jsonObject(0) + g.pick("", "\n", " // c\n")
}

// mutate damages src a little.
func (g *docGen) mutate(src string) string {
	b := []byte(src)
	for i := 1 + g.rng.Intn(3); i > 0 && len(b) > 0; i-- {
		p := g.rng.Intn(len(b))
		c := g.pick(":", "-", "[", "]", "{", "}", ",", "#", "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`", " ", "\n", "\t", "?", "\\", "/", "0", "a", "\xc3\xa9")
		switch g.rng.Intn(3) {
		case 0:
			b = append(b[:p], append([]byte(c), b[p:]...)...)
		case 1:
			b = append(b[:p], b[p+1:]...)
		default:
			b = append(b[:p], append([]byte(c), b[p+1:]...)...)
		}
	}
	return string(b)
}

// soup is a short random string over alphabet: syntax the grammar-built
// documents never reach.
func (g *docGen) soup(alphabet string) string {
	var b strings.Builder
	for n := 1 + g.rng.Intn(40); n > 0; n-- {
		b.WriteByte(alphabet[g.rng.Intn(len(alphabet))])
	}
	return b.String()
}
