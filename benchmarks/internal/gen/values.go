package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
)

// shape is the type of a key's values.
type shape uint8

const (
	shString shape = iota
	shInt
	shBool
	shArray
	shHash
)

var shapeNames = [...]string{"string", "int", "bool", "array", "hash"}

// param is a key name suffix (nginx::<param>) or a record field; its shape and flavour decide what
// its values look like.
type param struct {
	name   string
	shape  shape
	flavor string // for strings, array elements and ints; "coll" for a hash of named records
}

var classes = []string{
	"profile::base", "profile::web", "profile::db", "profile::app", "profile::monitoring",
	"profile::logging", "profile::backup", "profile::security", "nginx", "apache", "haproxy",
	"postgresql", "mysql", "redis", "memcached", "rabbitmq", "kafka", "zookeeper", "elasticsearch",
	"java", "tomcat", "docker", "consul", "vault", "prometheus", "grafana", "rsyslog", "logrotate",
	"ssh", "sudo", "accounts", "firewall", "sysctl", "ntp", "dns", "postfix", "cron", "limits",
	"selinux", "kernel",
}

var params = []param{
	{"ensure", shString, "ensure"}, {"version", shString, "version"}, {"package_name", shString, "name"},
	{"service_name", shString, "name"}, {"config_dir", shString, "dir"}, {"config_file", shString, "path"},
	{"log_dir", shString, "dir"}, {"data_dir", shString, "dir"}, {"log_level", shString, "level"},
	{"bind_address", shString, "ip"}, {"user", shString, "name"}, {"group", shString, "name"},
	{"url", shString, "url"}, {"server_name", shString, "host"}, {"java_opts", shString, "args"},

	{"port", shInt, "port"}, {"max_connections", shInt, "size"}, {"timeout", shInt, "timeout"},
	{"workers", shInt, "count"}, {"threads", shInt, "count"}, {"memory_limit_mb", shInt, "size"},
	{"retention_days", shInt, "count"}, {"uid", shInt, "uid"},

	{"manage_service", shBool, ""}, {"service_enable", shBool, ""}, {"manage_repo", shBool, ""},
	{"purge_configs", shBool, ""}, {"enable_tls", shBool, ""}, {"manage_user", shBool, ""},

	{"servers", shArray, "host"}, {"hosts", shArray, "host"}, {"packages", shArray, "name"},
	{"plugins", shArray, "name"}, {"modules", shArray, "name"}, {"allowed_networks", shArray, "cidr"},
	{"admins", shArray, "name"}, {"tags", shArray, "name"}, {"extra_args", shArray, "args"},

	{"options", shHash, ""}, {"settings", shHash, ""}, {"config", shHash, ""}, {"tuning", shHash, ""},
	{"limits", shHash, ""}, {"vhosts", shHash, "coll"}, {"users", shHash, "coll"},
	{"rules", shHash, "coll"}, {"instances", shHash, "coll"}, {"repos", shHash, "coll"},
}

var fieldParams = []param{
	{"ensure", shString, "ensure"}, {"enabled", shBool, ""}, {"port", shInt, "port"},
	{"timeout", shInt, "timeout"}, {"retries", shInt, "count"}, {"path", shString, "path"},
	{"owner", shString, "name"}, {"mode", shString, "mode"}, {"source", shString, "url"},
	{"address", shString, "host"}, {"interval", shInt, "timeout"}, {"level", shString, "level"},
	{"max_size", shInt, "size"}, {"priority", shInt, "count"}, {"comment", shString, "name"},
	{"members", shArray, "name"}, {"tags", shArray, "name"}, {"servers", shArray, "host"},
	{"keepalive", shBool, ""}, {"protocol", shString, "proto"}, {"weight", shInt, "count"},
	{"backend", shString, "host"}, {"ssl", shHash, ""}, {"options", shHash, ""},
}

var words = []string{
	"alpha", "api", "archive", "audit", "auth", "backup", "billing", "cache", "cart", "catalog",
	"checkout", "config", "core", "cron", "data", "deploy", "edge", "events", "export", "feed",
	"gateway", "graph", "hub", "identity", "images", "import", "index", "ingest", "inventory", "jobs",
	"ledger", "logs", "mail", "media", "metrics", "notify", "orders", "payments", "portal", "queue",
	"reports", "search", "session", "shop", "static", "storage", "stream", "sync", "tasks", "tracker",
	"uploads", "users", "vault", "web", "worker", "admin", "assets", "beacon", "ci", "docs",
}

var (
	roleNames = []string{"web", "app", "db", "cache", "lb", "queue", "search", "worker", "api", "mail",
		"monitor", "ci", "bastion", "dns", "proxy", "storage"}
	dcNames = []string{"fra1", "ams2", "lon1", "nyc3", "sfo2", "sgp1", "tor1", "blr1"}
	osTable = []struct {
		family   string
		names    []string
		releases []string
	}{
		{"Debian", []string{"Debian"}, []string{"11.9", "12.5"}},
		{"RedHat", []string{"RedHat", "Rocky", "AlmaLinux"}, []string{"8.9", "9.3"}},
		{"Suse", []string{"SLES"}, []string{"15.5"}},
		{"FreeBSD", []string{"FreeBSD"}, []string{"13.2", "14.0"}},
		{"Archlinux", []string{"Archlinux"}, []string{"6.6"}},
	}
)

func osFamilyNames() []string {
	out := make([]string, len(osTable))
	for i, o := range osTable {
		out[i] = o.family
	}
	return out
}

// facts every node has, for interpolation.
var interpolations = []string{
	"%{facts.role}", "%{::datacenter}", "%{facts.networking.domain}", "%{facts.networking.hostname}",
	"%{trusted.certname}", "%{facts.os.family}", "%{facts.os.release.major}",
}

// keys creates the keys: environment keys (class::param in a seeded order; _2, _3 ... once every
// pair is used), then each module's (modN::param), then picks the lookup/alias and merged keys.
func (g *generator) keys() {
	nmod := g.p.Modules * g.p.ModuleKeys
	g.envKeys = g.p.Keys - nmod
	g.ks = make([]*key, 0, g.p.Keys)
	g.addKeys(g.envKeys, len(classes), func(c int) string { return classes[c] })
	for m := range g.p.Modules {
		mod := "mod" + strconv.Itoa(m+1)
		g.addKeys(g.p.ModuleKeys, 1, func(int) string { return mod })
	}
	g.refs()
	g.merges()
}

// addKeys appends n keys named <prefix(c)>::<param> for c < nprefix.
func (g *generator) addKeys(n, nprefix int, prefix func(int) string) {
	for round, made := 0, 0; made < n; round++ {
		for _, i := range g.r.Perm(nprefix * len(params)) {
			if made == n {
				break
			}
			p := params[i%len(params)]
			name := prefix(i/len(params)) + "::" + p.name
			if round > 0 {
				name += "_" + strconv.Itoa(round+1)
			}
			k := &key{Key: Key{Name: name, Shape: shapeNames[p.shape]}, param: p}
			if p.shape == shHash {
				k.fields = g.schema(k.coll())
			}
			g.ks = append(g.ks, k)
			made++
		}
	}
}

// schema returns the fields of a hash key: a record of 2..6 fields (one level of nested records),
// or for a collection 2..4 named entries sharing one record schema.
func (g *generator) schema(coll bool) []field {
	if coll {
		sub := g.recordSchema(2+g.r.IntN(4), false)
		fs := make([]field, 2+g.r.IntN(3))
		for i, w := range pick(g.r, words, len(fs)) {
			fs[i] = field{param: param{name: w, shape: shHash}, sub: sub}
		}
		return fs
	}
	return g.recordSchema(2+g.r.IntN(5), true)
}

func (g *generator) recordSchema(n int, nested bool) []field {
	var fs []field
	for _, p := range pick(g.r, fieldParams, n) {
		f := field{param: p}
		if p.shape == shHash {
			if !nested {
				continue
			}
			f.sub = g.recordSchema(2+g.r.IntN(3), false)
		}
		fs = append(fs, f)
	}
	if len(fs) == 0 {
		fs = append(fs, field{param: fieldParams[0]})
	}
	return fs
}

// pick returns n distinct elements of list (all of them when n >= len(list)) in a random order.
func pick[T any](r *rand.Rand, list []T, n int) []T {
	out := make([]T, 0, min(n, len(list)))
	for _, i := range r.Perm(len(list))[:cap(out)] {
		out = append(out, list[i])
	}
	return out
}

// field is one entry of a hash key's schema.
type field struct {
	param
	sub []field // for shHash
}

// refs turns about RefRatio of the environment keys into references: strings that interpolate
// %{lookup('k')} of a string or int key, and arrays or hashes written as %{alias('k')} of a key of
// the same shape. Targets are never references themselves, so there are no cycles.
func (g *generator) refs() {
	n := g.count(g.p.RefRatio * float64(g.p.Keys))
	var refs []*key
	for _, i := range g.r.Perm(g.envKeys) {
		if len(refs) == n {
			break
		}
		k := g.ks[i]
		switch alias := len(refs)%2 == 1; {
		case !alias && k.shape == shString:
			k.Ref = "lookup"
		case alias && (k.shape == shArray || k.shape == shHash):
			k.Ref = "alias"
		default:
			continue
		}
		refs = append(refs, k)
	}
	for _, k := range refs {
		for _, i := range g.r.Perm(len(g.ks)) {
			t := g.ks[i]
			if t.Ref != "" {
				continue
			}
			if k.Ref == "lookup" && (t.shape == shString || t.shape == shInt) || k.Ref == "alias" && t.shape == k.shape {
				k.target = t
				break
			}
		}
		if k.target == nil { // nothing to point at: stay a plain key
			k.Ref = ""
		}
	}
}

// merges gives about MergeRatio of the keys a lookup_options merge: arrays unique or deep (half of
// those with knockout_prefix "--"), hashes deep or hash.
func (g *generator) merges() {
	n := g.count(g.p.MergeRatio * float64(g.p.Keys))
	for _, i := range g.r.Perm(len(g.ks)) {
		if n == 0 {
			break
		}
		k := g.ks[i]
		if k.Ref != "" || k.shape != shArray && k.shape != shHash {
			continue
		}
		n--
		u := g.r.Float64()
		switch {
		case k.shape == shArray && u < 0.6:
			k.Merge = "unique"
		case k.shape == shArray:
			k.Merge, k.knockout = "deep", u < 0.8
		case u < 0.65:
			k.Merge = "deep"
		default:
			k.Merge = "hash"
		}
	}
}

// value returns a value for k: the complete one (a key's lowest definition) or an override,
// which for arrays and hashes is smaller (a few elements, some of the fields).
func (g *generator) value(k *key, full bool) any {
	switch k.Ref {
	case "lookup":
		t := "%{lookup('" + k.target.Name + "')}"
		switch g.r.IntN(3) {
		case 0:
			return t
		case 1:
			return "https://" + t + "/" + g.word()
		default:
			return g.word() + "-" + t
		}
	case "alias":
		return "%{alias('" + k.target.Name + "')}"
	}
	switch k.shape {
	case shArray:
		a := g.array(k.flavor, full)
		if full {
			k.base = a
		} else if k.knockout && len(k.base) > 0 && g.r.IntN(2) == 0 {
			a = append(a, "--"+k.base[g.r.IntN(len(k.base))])
		}
		return a
	case shHash:
		if !k.coll() {
			return g.recordValue(k.fields, full)
		}
		h := g.recordValue(k.fields, full)
		if !full && g.r.IntN(3) == 0 { // a level adds an entry of its own
			if w := g.word(); !slices.ContainsFunc(h, func(e kv) bool { return e.k == w }) {
				h = append(h, kv{w, g.recordValue(k.fields[0].sub, true)})
			}
		}
		return h
	}
	return g.scalar(k.param)
}

// recordValue returns a hash with every field of fs (full) or a random non-empty subset.
func (g *generator) recordValue(fs []field, full bool) hash {
	h := make(hash, 0, len(fs))
	for _, f := range fs {
		if full || g.r.IntN(2) == 0 {
			h = append(h, kv{f.name, g.fieldValue(f, full)})
		}
	}
	if len(h) == 0 {
		h = append(h, kv{fs[0].name, g.fieldValue(fs[0], full)})
	}
	return h
}

func (g *generator) fieldValue(f field, full bool) any {
	switch {
	case f.shape == shHash:
		return g.recordValue(f.sub, full)
	case f.shape == shArray:
		return g.array(f.flavor, false)
	case g.r.IntN(40) == 0:
		return nil
	}
	return g.scalar(f.param)
}

// array returns 2..5 (full) or 1..3 distinct strings.
func (g *generator) array(flavor string, full bool) []string {
	n := 1 + g.r.IntN(3)
	if full {
		n++
	}
	a := make([]string, 0, n)
	for range n {
		if s := g.str(flavor); !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

func (g *generator) scalar(p param) any {
	switch p.shape {
	case shInt:
		switch p.flavor {
		case "port":
			return 1024 + g.r.IntN(64000)
		case "timeout":
			return 5 * (1 + g.r.IntN(60))
		case "size":
			return 64 << g.r.IntN(8)
		case "uid":
			return 1000 + g.r.IntN(9000)
		default:
			return 1 + g.r.IntN(64)
		}
	case shBool:
		return g.r.IntN(2) == 0
	}
	return g.str(p.flavor)
}

func (g *generator) word() string { return words[g.r.IntN(len(words))] }

// str returns a string of the given flavour; InterpolationRatio of them interpolate a fact.
func (g *generator) str(flavor string) string {
	w := g.word()
	if g.r.Float64() < g.p.InterpolationRatio {
		f := interpolations[g.r.IntN(len(interpolations))]
		switch flavor {
		case "path", "dir":
			return "/srv/" + f + "/" + w
		case "host", "url":
			h := []string{w + ".%{facts.networking.domain}", w + ".%{::datacenter}.example.net", "%{trusted.certname}"}[g.r.IntN(3)]
			if flavor == "url" {
				h = "https://" + h + "/" + g.word()
			}
			return h
		case "args":
			return "-Dnode=" + f
		default:
			return w + "-" + f
		}
	}
	switch flavor {
	case "ensure":
		return []string{"present", "latest", "absent", "running", "stopped"}[g.r.IntN(5)]
	case "version":
		return fmt.Sprintf("%d.%d.%d", 1+g.r.IntN(9), g.r.IntN(20), g.r.IntN(10))
	case "path":
		if g.r.IntN(2) == 0 {
			return "/etc/" + w + "/" + g.word() + ".conf"
		}
		return "/var/log/" + w + "/" + g.word() + ".log"
	case "dir":
		return []string{"/etc/", "/var/lib/", "/opt/", "/srv/"}[g.r.IntN(4)] + w
	case "level":
		return []string{"debug", "info", "warn", "error"}[g.r.IntN(4)]
	case "ip":
		return []string{"0.0.0.0", "127.0.0.1", "::"}[g.r.IntN(3)]
	case "host":
		return w + strconv.Itoa(1+g.r.IntN(9)) + ".example.net"
	case "url":
		return fmt.Sprintf("https://%s.example.net:%d/%s", w, 1024+g.r.IntN(64000), g.word())
	case "args":
		return fmt.Sprintf("-Xmx%dm", 128<<g.r.IntN(6))
	case "cidr":
		return fmt.Sprintf("10.%d.0.0/16", g.r.IntN(256))
	case "mode":
		return []string{"0644", "0640", "0600", "0755"}[g.r.IntN(4)]
	case "proto":
		return []string{"tcp", "udp", "http", "https"}[g.r.IntN(4)]
	}
	if g.r.IntN(2) == 0 {
		return w + "-" + g.word()
	}
	return w
}
