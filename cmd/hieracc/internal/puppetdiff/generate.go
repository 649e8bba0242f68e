package puppetdiff

// The generator: a seeded random case. Names are drawn from small pools so
// that keys meet at several levels and layers, paths hit the files that
// exist, and interpolations reach keys that are defined.

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// GenOptions says which features known to differ the generator may use.
type GenOptions struct {
	// ConvertTo lets lookup_options use convert_to (issue #10: hieracc does
	// not support it yet).
	ConvertTo bool
	// GlobOrder lets a `**` glob match a folder whose sub-folders sort
	// before some of its files (known difference 3 of issue #17: Puppet
	// sorts the matched paths as whole strings).
	GlobOrder bool
}

// Generate returns the case of seed: the same seed and options give the
// same case, byte for byte.
func Generate(seed uint64, opts GenOptions) *Case {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), opts: opts, c: &Case{Files: map[string]string{}}}
	g.run()
	return g.c
}

type gen struct {
	r    *rand.Rand
	opts GenOptions
	c    *Case

	nodes   []string
	keys    []string            // the environment's (and global layer's) keys
	modKeys map[string][]string // module name -> its keys
	hashKey map[string]bool     // keys that are mostly hashes (dotted checks dig into them)
	anchors []*node             // anchored values of the file being written
	anchorN int
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *gen) chance(p float64) bool    { return g.r.Float64() < p }

// subset returns n distinct elements of xs, in a random order.
func (g *gen) subset(xs []string, n int) []string {
	p := g.r.Perm(len(xs))
	if n > len(xs) {
		n = len(xs)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = xs[p[i]]
	}
	return out
}

// The pools.
var (
	nodePool    = []string{"web01.example.com", "db01.example.com", "app1", "cache-02.dc1.example.org"}
	rolePool    = []string{"web", "db", "app"}
	familyPool  = []string{"Debian", "RedHat"}
	dcPool      = []string{"fra1", "ams2"}
	tierPool    = []string{"prod", "dev"}
	servicePool = []string{"nginx", "redis", "cron"}
	keyPool     = []string{"a", "b", "c", "arr", "h", "n", "str", "app::port", "app::users", "profile::pkgs", "cfg", "list"}
	subKeyPool  = []string{"x", "y", "port", "name", "1", "list", "sub", "off", "--x"}
)

// A template of a hierarchy path: {} is replaced by one of exprs, and files
// are made for values of domain.
type pathTemplate struct {
	pattern string
	exprs   []string
	domain  func(g *gen) []string
}

var pathTemplates = []pathTemplate{
	{"nodes/{}.yaml", []string{"trusted.certname", "::trusted.certname", "facts.node_id"}, func(g *gen) []string { return g.nodes }},
	{"role/{}.yaml", []string{"facts.role", "::role", "role"}, func(*gen) []string { return append(rolePool, "") }},
	{"os/{}.yaml", []string{"facts.os.family", "os.family", "::os.family"}, func(*gen) []string { return append(familyPool, "") }},
	{"dc/{}.yaml", []string{"facts.dc", "::dc", "dc"}, func(*gen) []string { return dcPool }},
	{"host/{}.yaml", []string{"trusted.hostname"}, func(g *gen) []string { return hostnames(g.nodes) }},
	{"domain/{}.yaml", []string{"trusted.domain"}, func(*gen) []string { return []string{"example.com", "dc1.example.org", ""} }},
	{"tier/{}.yaml", []string{"facts.tier", "tier"}, func(*gen) []string { return tierPool }},
	{"env/{}.yaml", []string{"environment", "server_facts.environment", "::environment"}, func(*gen) []string { return []string{"production"} }},
	{"common.yaml", nil, nil},
	{"extra.yaml", nil, nil},
}

func hostnames(nodes []string) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i], _, _ = strings.Cut(n, ".")
	}
	return out
}

func (g *gen) run() {
	g.nodes = g.subset(nodePool, 1+g.r.IntN(3))
	for _, n := range g.nodes {
		g.c.Files["nodes/"+n+".yaml"] = g.facts(n).render()
	}
	g.keys = g.subset(keyPool, 5+g.r.IntN(5))
	g.hashKey = map[string]bool{}
	for _, k := range g.keys {
		g.hashKey[k] = g.chance(0.45)
	}
	g.modKeys = map[string][]string{}
	for i := range g.r.IntN(3) {
		m := fmt.Sprintf("mod%d", i+1)
		g.modKeys[m] = []string{m + "::k", m + "::cfg", m + "::list", m + "::port"}[:2+g.r.IntN(3)]
		for _, k := range g.modKeys[m] {
			g.hashKey[k] = g.chance(0.5)
		}
	}

	if g.chance(0.95) {
		g.layer("env/", 2+g.r.IntN(5), g.keys, "")
	} else if g.chance(0.5) {
		g.dataFile("env/data/common.yaml", g.keys, "") // data without hiera.yaml: no layer
	}
	for _, m := range sortedKeys(g.modKeys) {
		switch {
		case g.chance(0.1): // data but no hiera.yaml: contributes nothing
			g.dataFile("modules/"+m+"/data/common.yaml", g.modKeys[m], m)
		default:
			g.layer("modules/"+m+"/", 1+g.r.IntN(3), g.modKeys[m], m)
		}
	}
	switch {
	case g.chance(0.35):
		g.layer("global/", 1+g.r.IntN(2), g.keys, "")
	case g.chance(0.3): // Puppet's default global config: global/data/common.yaml
		g.dataFile("global/data/common.yaml", g.subset(g.keys, 2), "")
	}
	g.checks()
}

// facts are a node's facts; the same fact has values from the same pool on
// every node, so paths and interpolations meet.
func (g *gen) facts(name string) *node {
	var es []*entry
	add := func(k string, v *node) { es = append(es, &entry{k, v}) }
	if g.chance(0.85) {
		add("role", g.factScalar(rolePool))
	}
	os := []*entry{{"family", g.factScalar(familyPool)}}
	if g.chance(0.6) {
		os = append(os, &entry{"release", mapOf(&entry{"major", scalar(g.pick(`"10"`, "11", "8", `"9.2"`))})})
	}
	add("os", mapOf(os...))
	if g.chance(0.7) {
		add("dc", g.factScalar(dcPool))
	}
	if g.chance(0.5) {
		add("tier", g.factScalar(append(tierPool, `"%{facts.dc}"`, `"%{role}-x"`)))
	}
	if g.chance(0.6) {
		var items []*node
		for _, s := range g.subset(servicePool, g.r.IntN(4)) {
			items = append(items, scalar(s))
		}
		add("services", seqOf(items...))
	} else if g.chance(0.3) {
		add("services", scalar(g.pick(servicePool...)))
	}
	if g.chance(0.5) {
		add("node_id", scalar(quote(name)))
	}
	if g.chance(0.4) {
		add("cores", scalar(g.pick("4", "2.5", "0", "-1")))
	}
	if g.chance(0.3) {
		add("virtual", scalar(g.pick("true", "false", "physical")))
	}
	if g.chance(0.2) {
		add("empty", scalar(g.pick("null", `""`, "[]", "{}")))
	}
	g.r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	return mapOf(es...)
}

func (g *gen) factScalar(pool []string) *node {
	if g.chance(0.08) {
		return scalar(g.pick("null", `""`))
	}
	return scalar(g.pick(pool...))
}

// layer writes DIR/hiera.yaml with n levels, and data files for them
// holding keys. mod is the module's name, or "" outside modules.
func (g *gen) layer(dir string, n int, keys []string, mod string) {
	var b strings.Builder
	b.WriteString("---\nversion: 5\n")
	defDatadir := "data"
	if g.chance(0.25) {
		b.WriteString("defaults:\n")
		if g.chance(0.5) {
			defDatadir = g.pick("data", "hieradata")
			b.WriteString("  datadir: " + defDatadir + "\n")
		}
		b.WriteString("  data_hash: yaml_data\n")
	}
	b.WriteString("hierarchy:\n")
	g.levels(&b, dir, n, defDatadir, keys, mod, "L")
	if mod != "" && g.chance(0.5) {
		b.WriteString("default_hierarchy:\n")
		g.levels(&b, dir, 1+g.r.IntN(2), defDatadir, keys, mod, "D")
	}
	g.c.Files[dir+"hiera.yaml"] = b.String()
}

// levels writes n hierarchy levels and their data files.
func (g *gen) levels(b *strings.Builder, dir string, n int, defDatadir string, keys []string, mod, prefix string) {
	for i := range n {
		datadir := defDatadir
		fmt.Fprintf(b, "  - name: %q\n", fmt.Sprintf("%s%d", prefix, i))
		if g.chance(0.15) {
			datadir = g.pick("data", "other", "data/sub")
			fmt.Fprintf(b, "    datadir: %s\n", datadir)
		}
		ext := ".yaml"
		if g.chance(0.1) {
			ext = ".json"
			b.WriteString("    data_hash: json_data\n")
		}
		var files []string
		switch kind := g.r.IntN(10); {
		case kind < 4:
			p, fs := g.path(ext)
			fmt.Fprintf(b, "    path: %q\n", p)
			files = fs
		case kind < 6:
			b.WriteString("    paths:\n")
			for range 2 + g.r.IntN(2) {
				p, fs := g.path(ext)
				fmt.Fprintf(b, "      - %q\n", p)
				files = append(files, fs...)
			}
		case kind < 7:
			p, fs := g.glob(ext)
			fmt.Fprintf(b, "    glob: %q\n", p)
			files = fs
		case kind < 8:
			b.WriteString("    globs:\n")
			for range 2 {
				p, fs := g.glob(ext)
				fmt.Fprintf(b, "      - %q\n", p)
				files = append(files, fs...)
			}
		default:
			fact := g.pick("facts.services", "services", "facts.role", "facts.missing")
			fmt.Fprintf(b, "    mapped_paths: [%s, s, \"svc/%%{s}%s\"]\n", fact, ext)
			for _, s := range g.subset(append(servicePool, rolePool...), 2+g.r.IntN(3)) {
				files = append(files, "svc/"+s+ext)
			}
		}
		for _, f := range files {
			p := dir + datadir + "/" + f
			if _, done := g.c.Files[p]; !done {
				g.dataFile(p, g.subset(keys, 1+g.r.IntN(len(keys))), mod)
			}
		}
	}
}

// path returns a hierarchy path and some of the files it may name.
func (g *gen) path(ext string) (string, []string) {
	t := pathTemplates[g.r.IntN(len(pathTemplates))]
	if t.domain == nil {
		return strings.TrimSuffix(t.pattern, ".yaml") + ext, []string{strings.TrimSuffix(t.pattern, ".yaml") + ext}
	}
	expr := g.pick(t.exprs...)
	p := strings.Replace(strings.TrimSuffix(t.pattern, ".yaml")+ext, "{}", "%{"+expr+"}", 1)
	var files []string
	dom := t.domain(g)
	for _, v := range g.subset(dom, 1+g.r.IntN(len(dom))) {
		files = append(files, strings.Replace(strings.TrimSuffix(t.pattern, ".yaml")+ext, "{}", v, 1))
	}
	return p, files
}

// glob returns a glob and files for it.
func (g *gen) glob(ext string) (string, []string) {
	switch g.r.IntN(3) {
	case 0:
		var files []string
		names := []string{"a0", "b", "m1", "zz"}
		if !g.opts.GlobOrder {
			names = names[:3] // no file after the sub-folders of a ** glob below
		}
		for _, f := range g.subset(names, 1+g.r.IntN(3)) {
			files = append(files, "conf.d/"+f+ext)
		}
		return "conf.d/*" + ext, files
	case 1:
		fileNames, dirNames := []string{"a0", "b", "m1", "zz"}, []string{"b", "sub", "a"}
		if !g.opts.GlobOrder {
			// Sub-folders sort after every file: hieracc's order (a
			// folder's files first) is then Puppet's (whole paths sorted).
			fileNames, dirNames = []string{"a0", "b", "m1"}, []string{"sub", "x"}
		}
		var files []string
		for _, f := range g.subset(fileNames, 1+g.r.IntN(2)) {
			files = append(files, "conf.d/"+f+ext)
		}
		for _, d := range g.subset(dirNames, 1+g.r.IntN(2)) {
			files = append(files, "conf.d/"+d+"/"+g.pick("a0", "x")+ext)
		}
		return "conf.d/**/*" + ext, files
	default:
		var files []string
		for _, r := range g.subset(rolePool, 1+g.r.IntN(2)) {
			files = append(files, "role/"+r+g.pick("", "-extra", "2")+ext)
		}
		return "role/%{facts.role}*" + ext, files
	}
}

// dataFile writes a data file holding keys (and maybe lookup_options).
func (g *gen) dataFile(path string, keys []string, mod string) {
	g.anchors, g.anchorN = nil, 0
	json := strings.HasSuffix(path, ".json")
	// Keys in a random order, generated in that order: an alias always
	// follows its anchor.
	order := append([]string(nil), keys...)
	if g.chance(0.3) {
		order = append(order, "lookup_options")
	}
	if mod != "" && g.chance(0.1) {
		order = append(order, "outside::key") // dropped with a warning
	}
	g.r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	var es []*entry
	for _, k := range order {
		switch k {
		case "lookup_options":
			es = append(es, &entry{k, g.lookupOptions(keys, mod)})
		case "outside::key":
			es = append(es, &entry{k, scalar(`"dropped"`)})
		default:
			es = append(es, &entry{g.keyText(k), g.value(k, 0)})
		}
	}
	doc := mapOf(es...)
	if json {
		if s, ok := doc.json(); ok {
			g.c.Files[path] = s + "\n"
			return
		}
		g.c.Files[path] = "{}\n" // nothing JSON can hold; an empty hash
		return
	}
	g.c.Files[path] = doc.render()
}

// keyText writes a top-level key, sometimes quoted.
func (g *gen) keyText(k string) string {
	if g.chance(0.15) {
		return quote(k)
	}
	return k
}

// value returns a value for key k: mostly of the key's shape, sometimes not.
func (g *gen) value(k string, depth int) *node {
	if len(g.anchors) > 0 && g.chance(0.1) {
		a := g.anchors[g.r.IntN(len(g.anchors))]
		return &node{alias: a.anchor}
	}
	var v *node
	switch {
	case g.chance(0.1):
		v = g.scalarValue()
	case g.hashKey[k] != g.chance(0.1):
		v = g.hashValue(depth)
	default:
		v = g.arrayValue(depth)
	}
	if g.chance(0.15) && (v.isMap || v.isSeq) && len(v.mapping)+len(v.seq) > 0 {
		g.anchorN++
		v.anchor = fmt.Sprintf("a%d", g.anchorN)
		g.anchors = append(g.anchors, v)
	}
	return v
}

func (g *gen) hashValue(depth int) *node {
	var es []*entry
	for _, a := range g.anchors {
		if a.isMap && g.chance(0.3) {
			es = append(es, &entry{"<<", &node{alias: a.anchor}})
			break
		}
	}
	for _, sk := range g.subset(subKeyPool, 1+g.r.IntN(4)) {
		var v *node
		switch {
		case depth < 2 && g.chance(0.25):
			v = g.hashValue(depth + 1)
		case depth < 2 && g.chance(0.2):
			v = g.arrayValue(depth + 1)
		default:
			v = g.scalarValue()
		}
		key := sk
		switch {
		case sk == "--x" || sk == "1" && g.chance(0.5):
			key = quote(sk)
		case g.chance(0.05):
			key = `"%{facts.role}_k"` // nested keys are interpolated
		}
		es = append(es, &entry{key, v})
	}
	return mapOf(es...)
}

func (g *gen) arrayValue(depth int) *node {
	var items []*node
	for range g.r.IntN(5) {
		switch {
		case depth < 2 && g.chance(0.1):
			items = append(items, g.hashValue(depth+1))
		case depth < 2 && g.chance(0.08):
			items = append(items, g.arrayValue(depth+1))
		default:
			items = append(items, g.arrayItem())
		}
	}
	return seqOf(items...)
}

// arrayItem favours values that repeat across levels (unique merges,
// knockouts).
func (g *gen) arrayItem() *node {
	if g.chance(0.7) {
		return scalar(g.pick("a", "b", "c", `"--a"`, "--b", `"--"`, "1", "2", `"1"`))
	}
	return g.scalarValue()
}

// yaml11 are scalars YAML 1.1 (Psych) and 1.2 read differently, and others.
var yaml11 = []string{
	"yes", "no", "on", "off", "True", "OFF", "y", "n", "~", "null", "Null", "",
	"0777", "0x1F", "0b101", "1_000", "1:30", "1e3", "1.5e3", "1.5e+3", "0o17", "1.10", ".inf", "-.inf", ".nan",
	"-0", "+12", "012", "3.0", "1.0e+20", "0.1", "2001-01-01x", "'quoted'", `"dq"`, "'yes'", "!!str 12",
	"plain text", "héllo", `"tab\there"`,
}

// interpolations; K is replaced by a key.
var interpolations = []string{
	"%{facts.role}", "%{::role}", "%{role}", "%{trusted.certname}", "%{trusted.hostname}", "%{trusted.domain}",
	"%{facts.os.family}", "%{facts.os.release.major}", "%{facts.missing}", "%{server_facts.environment}",
	"%{environment}", "%{facts.services}", "%{facts.services.0}", "%{facts.empty}", "%{facts.cores}",
	"%{lookup('K')}", "%{hiera('K')}", "%{scope('role')}", "%{scope('facts.dc')}", "%{literal('%')}{facts.role}",
	"%{ lookup('K') }", "%{lookup(\"K\")}", "%{lookup('K.x')}", "%{lookup('K.0')}", "%{facts.os}", "%{::trusted.certname}",
	"%{}", "%{facts.tier}", "%{trusted}",
}

func (g *gen) scalarValue() *node {
	switch r := g.r.IntN(10); {
	case r < 4:
		return scalar(g.pick(yaml11...))
	case r < 8:
		s := g.pick(interpolations...)
		s = strings.ReplaceAll(s, "K", g.anyKey())
		if g.chance(0.4) {
			s = g.pick("pre-", "", "x ") + s + g.pick("-post", "", "/")
		}
		return scalar(quote(s))
	default:
		if g.chance(0.5) {
			return scalar(quote("%{alias('" + g.anyKey() + "')}"))
		}
		return scalar(g.pick("1", "42", "-3", "2.5", "true", "false", `""`, "[]", "{}"))
	}
}

// anyKey is a key to look up from an interpolation.
func (g *gen) anyKey() string {
	if len(g.modKeys) > 0 && g.chance(0.2) {
		m := sortedKeys(g.modKeys)
		ks := g.modKeys[m[g.r.IntN(len(m))]]
		return ks[g.r.IntN(len(ks))]
	}
	if g.chance(0.05) {
		return "nope"
	}
	return g.keys[g.r.IntN(len(g.keys))]
}

// lookupOptions returns a lookup_options hash for some of keys.
func (g *gen) lookupOptions(keys []string, mod string) *node {
	var es []*entry
	for _, k := range g.subset(keys, 1+g.r.IntN(2)) {
		name := k
		if g.chance(0.25) {
			ns, _, found := strings.Cut(k, "::")
			switch {
			case found && (mod != "" || g.chance(0.5)):
				name = "^" + ns + "::"
			default:
				name = "^" + k[:1]
			}
		}
		es = append(es, &entry{quote(name), g.options()})
	}
	return mapOf(es...)
}

func (g *gen) options() *node {
	var es []*entry
	switch r := g.r.IntN(12); {
	case r < 2:
		es = append(es, &entry{"merge", scalar(g.pick("first", "unique", "hash", "deep"))})
	case r < 6:
		es = append(es, &entry{"merge", scalar(g.pick("unique", "hash", "deep"))})
	case r < 11:
		m := []*entry{{"strategy", scalar(g.pick("deep", "deep", "hash", "unique", "first"))}}
		if g.chance(0.5) {
			m = append(m, &entry{"knockout_prefix", scalar(quote(g.pick("--", "xx")))})
		}
		if g.chance(0.4) {
			m = append(m, &entry{"sort_merged_arrays", scalar(g.pick("true", "false"))})
		}
		if g.chance(0.4) {
			m = append(m, &entry{"merge_hash_arrays", scalar(g.pick("true", "false"))})
		}
		es = append(es, &entry{"merge", mapOf(m...)})
	default:
		es = append(es, &entry{"merge", scalar(g.pick("deeep", "none"))})
	}
	if g.opts.ConvertTo && g.chance(0.2) {
		es = append(es, &entry{"convert_to", scalar(g.pick(`"Array"`, `"String"`, `["Integer", 16]`, `"Integer"`, `"Float"`,
			`"Boolean"`, `"Hash"`, `"Numeric"`, `["Array", true]`, `"Optional[Integer]"`, `"Array[String]"`, `"Tuple[String, Integer]"`))})
	}
	return mapOf(es...)
}

// checks lists the lookups: every key on every node, some with a merge,
// some dotted.
func (g *gen) checks() {
	keys := append([]string(nil), g.keys...)
	for _, m := range sortedKeys(g.modKeys) {
		keys = append(keys, g.modKeys[m]...)
	}
	keys = append(keys, "nope", "lookup_options")
	for _, n := range g.nodes {
		for _, k := range keys {
			g.c.Checks = append(g.c.Checks, Check{Node: n, Key: k})
			if g.chance(0.5) {
				g.c.Checks = append(g.c.Checks, Check{Node: n, Key: k, Merge: g.merge()})
			}
			if g.hashKey[k] && g.chance(0.5) || g.chance(0.1) {
				dotted := k + "." + g.pick("x", "port", "'1'", "1", "0", "sub.x", "list.0", "y", "'--x'", "off")
				c := Check{Node: n, Key: dotted}
				if g.chance(0.4) {
					c.Merge = g.merge()
				}
				g.c.Checks = append(g.c.Checks, c)
			}
		}
	}
}

func (g *gen) merge() *Merge {
	m := &Merge{Strategy: g.pick("first", "unique", "hash", "deep", "deep")}
	if m.Strategy == "deep" && g.chance(0.5) {
		if g.chance(0.5) {
			m.KnockoutPrefix = "--"
		}
		m.Sort = g.chance(0.4)
		m.HashArrays = g.chance(0.4)
	}
	return m
}
