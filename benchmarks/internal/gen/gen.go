// Package gen generates realistic Hiera 5 control repos for benchmarks: an environment (hiera.yaml
// and data/), modules with their own hiera.yaml and data/, and one facts file per node, laid out
// like a conformance case (env/, modules/, nodes/). The output is a pure function of Params: the
// same seed gives the same bytes.
//
// The environment hierarchy is per-node data, then one level per fact dimension (role, datacenter,
// OS family, then tier, zone, ...), then common. Nodes share few dimension values, so the number of
// distinct hierarchy slices is far smaller than the number of nodes, as in real fleets.
package gen

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"
)

// Params shapes a generated repo.
type Params struct {
	Seed uint64

	Nodes int // nodes, one facts file each
	Keys  int // distinct keys, module keys included

	// Levels is the depth of the environment hierarchy: per-node data, Levels-2 fact dimensions
	// (role, datacenter, os family, tier, zone, cluster, team, stage, in that order), common.
	// 2 <= Levels <= MaxLevels.
	Levels int
	// Distinct values of the role, datacenter and OS family facts; Fanout for further dimensions.
	Roles, Datacenters, OSFamilies, Fanout int

	Modules    int // modules (mod1 .. modN), each with its own hiera.yaml and data
	ModuleKeys int // keys per module (modN::...), counted in Keys

	OverrideRatio      float64 // share of keys each dimension value's data file sets
	PerNodeRatio       float64 // share of keys each node's own data file sets
	InterpolationRatio float64 // share of generated strings that interpolate a fact
	MergeRatio         float64 // share of keys merged through lookup_options (unique, hash, deep)
	RefRatio           float64 // share of keys whose value is a %{lookup()} or %{alias()} of another
}

// MaxLevels is the deepest hierarchy Generate builds.
const MaxLevels = 10

// Reference is the reference data set: 10,000 nodes, 2,000 keys, a 5-level hierarchy
// (nodes/<certname>, role/<role>, dc/<dc>, os/<family>, common).
func Reference() Params {
	return Params{
		Seed:               1,
		Nodes:              10000,
		Keys:               2000,
		Levels:             5,
		Roles:              12,
		Datacenters:        4,
		OSFamilies:         3,
		Fanout:             4,
		Modules:            10,
		ModuleKeys:         20,
		OverrideRatio:      0.20,
		PerNodeRatio:       0.01,
		InterpolationRatio: 0.10,
		MergeRatio:         0.05,
		RefRatio:           0.01,
	}
}

// Repo is a generated control repo.
type Repo struct {
	Params Params
	// FS holds env/hiera.yaml, env/data/..., modules/<mod>/{hiera.yaml,data/...} and
	// nodes/<certname>.yaml.
	FS    fstest.MapFS
	Nodes []string // certnames, in generation order
	Keys  []Key    // every key, environment keys first, in generation order
}

// Key describes one generated key.
type Key struct {
	Name  string
	Shape string // "string", "int", "bool", "array" or "hash" (for an alias, the target's)
	Merge string // the lookup_options merge strategy ("unique", "hash", "deep"); "" = first found
	Ref   string // "lookup" or "alias" when the value interpolates another key, else ""
}

// Validate reports parameters Generate cannot honour.
func (p Params) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(p.Nodes >= 1, "Nodes = %d, want >= 1", p.Nodes)
	check(p.Keys >= 1, "Keys = %d, want >= 1", p.Keys)
	check(p.Levels >= 2 && p.Levels <= MaxLevels, "Levels = %d, want 2..%d", p.Levels, MaxLevels)
	check(p.Roles >= 1 && p.Datacenters >= 1 && p.OSFamilies >= 1 && p.Fanout >= 1,
		"Roles, Datacenters, OSFamilies and Fanout must be >= 1")
	check(p.Modules >= 0 && p.ModuleKeys >= 0, "Modules and ModuleKeys must be >= 0")
	check(p.Modules*p.ModuleKeys <= p.Keys, "Modules*ModuleKeys = %d exceeds Keys = %d",
		p.Modules*p.ModuleKeys, p.Keys)
	for _, r := range []struct {
		name string
		v    float64
	}{
		{"OverrideRatio", p.OverrideRatio}, {"PerNodeRatio", p.PerNodeRatio},
		{"InterpolationRatio", p.InterpolationRatio}, {"MergeRatio", p.MergeRatio},
		{"RefRatio", p.RefRatio},
	} {
		check(r.v >= 0 && r.v <= 1, "%s = %v, want 0..1", r.name, r.v)
	}
	return errors.Join(errs...)
}

// Generate builds the repo described by p.
func Generate(p Params) (*Repo, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	g := &generator{
		p:     p,
		r:     rand.New(rand.NewPCG(p.Seed, 0x9e3779b97f4a7c15)),
		files: fstest.MapFS{},
	}
	g.dimensions()
	g.keys()
	g.environment()
	g.modules()
	g.nodes()

	repo := &Repo{Params: p, FS: g.files, Nodes: g.certnames, Keys: make([]Key, len(g.ks))}
	for i, k := range g.ks {
		repo.Keys[i] = k.Key
	}
	return repo, nil
}

// WriteDir writes the repo's files below dir (created when missing).
func (r *Repo) WriteDir(dir string) error {
	made := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(r.FS)) {
		d := filepath.Join(dir, filepath.FromSlash(path.Dir(name)))
		if !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			made[d] = true
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), r.FS[name].Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// dimension is one fact-driven hierarchy level.
type dimension struct {
	level  string   // hierarchy level name
	dir    string   // data subfolder
	interp string   // interpolation in the level's path
	fact   string   // top-level fact it reads ("" for os, which lives in os.family)
	values []string // distinct values
}

type generator struct {
	p         Params
	r         *rand.Rand
	files     fstest.MapFS
	dims      []dimension // all dimensions facts carry; the first Levels-2 are hierarchy levels
	ks        []*key
	envKeys   int // ks[:envKeys] are environment keys, the rest module keys
	certnames []string
	buf       bytes.Buffer
}

// key is a Key plus what its values are generated from.
type key struct {
	Key
	param             // shape and flavour of its values
	fields   []field  // hash schema
	knockout bool     // merged deep with knockout_prefix "--"
	target   *key     // for Ref keys
	base     []string // an array key's complete value, for knockouts
}

// coll reports whether k is a hash of named records (vhosts, users, ...) that levels add to.
func (k *key) coll() bool { return k.flavor == "coll" }

func (g *generator) dimensions() {
	g.dims = []dimension{
		{level: "Role", dir: "role", interp: "%{facts.role}", fact: "role", values: names(roleNames, g.p.Roles, "role")},
		{level: "Datacenter", dir: "dc", interp: "%{::datacenter}", fact: "datacenter", values: names(dcNames, g.p.Datacenters, "dc")},
		{level: "OS family", dir: "os", interp: "%{facts.os.family}", values: names(osFamilyNames(), g.p.OSFamilies, "OS")},
	}
	for _, d := range []string{"tier", "zone", "cluster", "team", "stage"} {
		if len(g.dims) >= g.p.Levels-2 {
			break
		}
		g.dims = append(g.dims, dimension{
			level: strings.ToUpper(d[:1]) + d[1:], dir: d, interp: "%{facts." + d + "}", fact: d,
			values: names(nil, g.p.Fanout, d),
		})
	}
}

// names returns n names: the first from list, then prefix<i>.
func names(list []string, n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		if i < len(list) {
			out[i] = list[i]
		} else {
			out[i] = prefix + strconv.Itoa(i+1)
		}
	}
	return out
}

// levels returns the hierarchy's dimension levels.
func (g *generator) levels() []dimension { return g.dims[:g.p.Levels-2] }

// count rounds x up or down at random, so counts average to x.
func (g *generator) count(x float64) int {
	n := int(x)
	if g.r.Float64() < x-float64(n) {
		n++
	}
	return n
}

func (g *generator) file(name string, h hash) {
	g.buf.Reset()
	writeYAML(&g.buf, h)
	g.files[name] = &fstest.MapFile{Data: bytes.Clone(g.buf.Bytes()), Mode: 0o644}
}

func (g *generator) text(name, s string) {
	g.files[name] = &fstest.MapFile{Data: []byte(s), Mode: 0o644}
}

// environment writes env/hiera.yaml and env/data/ except the per-node files.
func (g *generator) environment() {
	var b strings.Builder
	b.WriteString("# Generated by hieracc benchmarks/internal/gen.\nversion: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n")
	fmt.Fprintf(&b, "  - name: \"Per-node data\"\n    path: \"nodes/%%{trusted.certname}.yaml\"\n")
	for _, d := range g.levels() {
		fmt.Fprintf(&b, "  - name: %q\n    path: \"%s/%s.yaml\"\n", d.level, d.dir, d.interp)
	}
	b.WriteString("  - name: \"Common\"\n    path: \"common.yaml\"\n")
	g.text("env/hiera.yaml", b.String())

	env, mods := g.ks[:g.envKeys], g.ks[g.envKeys:]
	common := hash{}
	if lo := lookupOptions(env); len(lo) > 0 {
		common = append(common, kv{"lookup_options", lo})
	}
	for _, k := range env {
		common = append(common, kv{k.Name, g.value(k, true)})
	}
	for _, k := range mods {
		if g.r.Float64() < g.p.OverrideRatio {
			common = append(common, kv{k.Name, g.value(k, false)})
		}
	}
	g.file("env/data/common.yaml", common)

	for _, d := range g.levels() {
		for _, v := range d.values {
			if h := g.overrides(g.ks); len(h) > 0 {
				g.file("env/data/"+d.dir+"/"+v+".yaml", h)
			}
		}
	}
}

// overrides returns values for about OverrideRatio of ks (never the lookup/alias keys).
func (g *generator) overrides(ks []*key) hash {
	var h hash
	for _, k := range ks {
		if k.Ref == "" && g.r.Float64() < g.p.OverrideRatio {
			h = append(h, kv{k.Name, g.value(k, false)})
		}
	}
	return h
}

func lookupOptions(ks []*key) hash {
	var lo hash
	for _, k := range ks {
		switch {
		case k.Merge == "":
		case k.knockout:
			lo = append(lo, kv{k.Name, hash{{"merge", hash{{"strategy", k.Merge}, {"knockout_prefix", "--"}}}}})
		default:
			lo = append(lo, kv{k.Name, hash{{"merge", k.Merge}}})
		}
	}
	return lo
}

// modules writes modules/modN: a hiera.yaml with an OS-family level and common, and their data.
func (g *generator) modules() {
	const hieraYAML = "version: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n" +
		"  - name: \"OS family\"\n    path: \"os/%{facts.os.family}.yaml\"\n" +
		"  - name: \"Common\"\n    path: \"common.yaml\"\n"
	osFamilies := g.dims[2].values
	for m := range g.p.Modules {
		name := "mod" + strconv.Itoa(m+1)
		ks := g.ks[g.envKeys+m*g.p.ModuleKeys : g.envKeys+(m+1)*g.p.ModuleKeys]
		g.text("modules/"+name+"/hiera.yaml", hieraYAML)
		common := hash{}
		if lo := lookupOptions(ks); len(lo) > 0 {
			common = append(common, kv{"lookup_options", lo})
		}
		for _, k := range ks {
			common = append(common, kv{k.Name, g.value(k, true)})
		}
		g.file("modules/"+name+"/data/common.yaml", common)
		for _, f := range osFamilies {
			if h := g.overrides(ks); len(h) > 0 {
				g.file("modules/"+name+"/data/os/"+f+".yaml", h)
			}
		}
	}
}

// nodes writes every node's facts (nodes/<certname>.yaml) and per-node data.
func (g *generator) nodes() {
	eligible := make([]*key, 0, len(g.ks))
	for _, k := range g.ks {
		if k.Ref == "" {
			eligible = append(eligible, k)
		}
	}
	width := max(len(strconv.Itoa(g.p.Nodes)), 2)
	g.certnames = make([]string, g.p.Nodes)
	pick := make([]int, 0, 64)
	for i := range g.p.Nodes {
		idx := make([]int, len(g.dims))
		for d := range g.dims {
			u, n := g.r.Float64(), len(g.dims[d].values)
			if d == 0 || d == 2 { // roles and OS families are skewed, the rest even
				u *= u
			}
			idx[d] = int(u * float64(n))
		}
		role, dc := g.dims[0].values[idx[0]], g.dims[1].values[idx[1]]
		host := role + fmt.Sprintf("%0*d", width, i+1)
		domain := dc + ".example.net"
		cert := host + "." + domain
		g.certnames[i] = cert
		g.file("nodes/"+cert+".yaml", g.facts(i, host, domain, idx))

		pick = pick[:0]
		switch n := min(g.count(g.p.PerNodeRatio*float64(len(eligible))), len(eligible)); {
		case n > len(eligible)/8: // many keys per node: a permutation beats rejection sampling
			pick = append(pick, g.r.Perm(len(eligible))[:n]...)
		default:
			for len(pick) < n {
				if j := g.r.IntN(len(eligible)); !slices.Contains(pick, j) {
					pick = append(pick, j)
				}
			}
		}
		if len(pick) == 0 {
			continue
		}
		slices.Sort(pick)
		h := make(hash, len(pick))
		for j, e := range pick {
			h[j] = kv{eligible[e].Name, g.value(eligible[e], false)}
		}
		g.file("env/data/nodes/"+cert+".yaml", h)
	}
}

func (g *generator) facts(i int, host, domain string, idx []int) hash {
	family := g.dims[2].values[idx[2]]
	osName, release := family, "1.0"
	for _, o := range osTable {
		if o.family == family {
			osName = o.names[g.r.IntN(len(o.names))]
			release = o.releases[g.r.IntN(len(o.releases))]
		}
	}
	major, _, _ := strings.Cut(release, ".")
	if strings.HasPrefix(osName, "Ubuntu") {
		major = release
	}
	ip := fmt.Sprintf("10.%d.%d.%d", idx[1]%256, (i/250)%256, i%250+2)
	cpus := []int{2, 4, 8, 16, 32}[g.r.IntN(5)]
	virtual := g.r.IntN(4) != 0
	hypervisor := "physical"
	if virtual {
		hypervisor = "kvm"
	}
	h := hash{
		{"networking", hash{
			{"hostname", host}, {"domain", domain}, {"fqdn", host + "." + domain},
			{"ip", ip}, {"primary", "ens3"},
			{"interfaces", hash{
				{"ens3", hash{{"ip", ip}, {"mtu", 1500}}},
				{"lo", hash{{"ip", "127.0.0.1"}, {"mtu", 65536}}},
			}},
		}},
		{"os", hash{
			{"name", osName}, {"family", family},
			{"release", hash{{"full", release}, {"major", major}}},
		}},
		{"kernel", "Linux"},
		{"processors", hash{{"count", cpus}}},
		{"memory", hash{{"system", hash{{"total_bytes", cpus * 2 << 30}}}}},
		{"is_virtual", virtual},
		{"virtual", hypervisor},
	}
	for d, dim := range g.dims {
		if dim.fact != "" {
			h = append(h, kv{dim.fact, dim.values[idx[d]]})
		}
	}
	return h
}
