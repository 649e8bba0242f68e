package hiera

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// The tests in this file replay conformance cases under
// ../shared/conformance/public: the data files are transcribed by hand
// (levels Node, Role, Common; web01 has role web and a node file, db01 has
// neither) and the expectations come from the case's expected.yaml, which
// real Puppet 7.23 produced.

// runCases resolves each case's key over the node's levels and, for a
// dotted key, digs as Puppet does after the merge.
func runCases(t *testing.T, nodes map[string][]*format.Hash, cases []lookupCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name(), func(t *testing.T) {
			k, err := ParseKey(c.key)
			if err != nil {
				c.check(t, nil, false, err)
				return
			}
			v, found, err := envLookup(t, c.merge, k.Root, nodes[c.node]...)
			if err == nil && found {
				v, found, err = k.Dig(v)
			}
			c.check(t, v, found, err)
		})
	}
}

func TestConformanceMergeUnique(t *testing.T) {
	common := h(
		"packages", a("curl", "wget", "curl"),
		"scalar_mix", "ntp3",
		"hash_top", a("z"),
		"hash_lower", h("k", "v"),
		"null_top", a("a"),
		"null_lower", nil,
		"numbers", a(int64(2), "2", int64(3)),
		"bools", a(false, true),
		"hash_elems", a(h("a", int64(1)), h("b", int64(2))),
		"dups_single", a("a", "b", "a", a("b", "c")),
	)
	node := h(
		"packages", a("nginx", a("vim", a("git"))),
		"scalar_mix", "ntp1",
		"hash_top", h("k", "v"),
		"hash_lower", a("a"),
		"null_top", nil,
		"null_lower", a("a"),
		"numbers", a(int64(1), int64(2)),
		"bools", a(true),
		"hash_elems", a(h("a", int64(1))),
	)
	role := h(
		"packages", a("vim", "curl"),
		"scalar_mix", a("ntp2", "ntp1"),
		"only_role", "solo",
	)
	nodes := map[string][]*format.Hash{
		"web01": {node, role, common},
		"db01":  {nil, nil, common},
	}
	runCases(t, nodes, []lookupCase{
		// Flattened fully, highest priority first, de-duplicated.
		{node: "web01", key: "packages", merge: mUnique, want: a("nginx", "vim", "git", "curl", "wget")},
		{node: "web01", key: "scalar_mix", merge: mUnique, want: a("ntp1", "ntp2", "ntp3")},
		// A hash in the highest level becomes one element.
		{node: "web01", key: "hash_top", merge: mUnique, want: a(h("k", "v"), "z")},
		// A null at the top is a null element.
		{node: "web01", key: "null_top", merge: mUnique, want: a(nil, "a")},
		// eql?: 2 and "2" differ.
		{node: "web01", key: "numbers", merge: mUnique, want: a(int64(1), int64(2), "2", int64(3))},
		{node: "web01", key: "bools", merge: mUnique, want: a(true, false)},
		{node: "web01", key: "hash_elems", merge: mUnique, want: a(h("a", int64(1)), h("b", int64(2)))},
		// Found at one level only: uniq (merge_single) before flatten.
		{node: "web01", key: "dups_single", merge: mUnique, want: a("a", "b", "b", "c")},
		{node: "web01", key: "only_role", merge: mUnique, want: a("solo")},
		{node: "web01", key: "hash_lower", merge: mUnique,
			err: "The second element of the merge has wrong type, expects a value of type Scalar or Array, got Struct"},
		{node: "web01", key: "null_lower", merge: mUnique,
			err: "The second element of the merge has wrong type, expects a value of type Scalar or Array, got Undef"},
		{node: "db01", key: "packages", merge: mUnique, want: a("curl", "wget")},
		{node: "db01", key: "scalar_mix", merge: mUnique, want: a("ntp3")},
		{node: "db01", key: "hash_lower", merge: mUnique, want: a(h("k", "v"))},
		{node: "db01", key: "null_lower", merge: mUnique, want: a(nil)},
		{node: "db01", key: "dups_single", merge: mUnique, want: a("a", "b", "b", "c")},
		// First found returns the value untouched.
		{node: "web01", key: "packages", want: a("nginx", a("vim", a("git")))},
		{node: "web01", key: "scalar_mix", want: "ntp1"},
	})
}

func TestConformanceMergeHash(t *testing.T) {
	common := h(
		"users", h(
			"alice", h("uid", int64(1001), "shell", "/bin/bash"),
			"bob", h("uid", int64(1002), "shell", "/bin/bash", "home", "/srv/users/bob"),
		),
		"order_test", h("z", "common", "a", "common", "m", "common"),
		"non_hash_lower", "str",
		"non_hash_top", h("a", int64(1)),
		"single_non_hash", "plain",
		"single_array", a("b", "a", "b"),
		"empty_top", h("a", int64(1)),
		"null_inside", h("a", int64(1), "b", int64(2)),
	)
	node := h(
		"users", h("carol", h("uid", int64(1003))),
		"order_test", h("m", "node", "c", "node", "z", "node"),
		"non_hash_lower", h("a", int64(1)),
		"non_hash_top", "str",
		"empty_top", h(),
		"null_inside", h("a", nil),
	)
	role := h(
		"users", h("bob", h("uid", int64(2002), "shell", "/bin/zsh")),
		"order_test", h("a", "role", "b", "role"),
	)
	nodes := map[string][]*format.Hash{
		"web01": {node, role, common},
		"db01":  {nil, nil, common},
	}
	runCases(t, nodes, []lookupCase{
		// Top-level keys only; values from the highest level.
		{node: "web01", key: "users", merge: mHash, want: h(
			"alice", h("uid", int64(1001), "shell", "/bin/bash"),
			"bob", h("uid", int64(2002), "shell", "/bin/zsh"),
			"carol", h("uid", int64(1003)),
		)},
		// Lowest level's keys first, then each higher level's new keys.
		{node: "web01", key: "order_test", merge: mHash, want: h("z", "node", "a", "role", "m", "node", "b", "role", "c", "node")},
		{node: "web01", key: "single_non_hash", merge: mHash, want: "plain"},
		{node: "web01", key: "single_array", merge: mHash, want: a("b", "a", "b")},
		{node: "web01", key: "empty_top", merge: mHash, want: h("a", int64(1))},
		{node: "web01", key: "null_inside", merge: mHash, want: h("a", nil, "b", int64(2))},
		{node: "db01", key: "users", merge: mHash, want: h(
			"alice", h("uid", int64(1001), "shell", "/bin/bash"),
			"bob", h("uid", int64(1002), "shell", "/bin/bash", "home", "/srv/users/bob"),
		)},
		{node: "db01", key: "order_test", merge: mHash, want: h("z", "common", "a", "common", "m", "common")},
		{node: "db01", key: "single_non_hash", merge: mHash, want: "plain"},
		{node: "db01", key: "single_array", merge: mHash, want: a("b", "a", "b")},
		{node: "db01", key: "empty_top", merge: mHash, want: h("a", int64(1))},
		{node: "db01", key: "null_inside", merge: mHash, want: h("a", int64(1), "b", int64(2))},
		{node: "web01", key: "non_hash_lower", merge: mHash,
			err: "The second element of the merge has wrong type, expects a Hash value, got String"},
		{node: "web01", key: "non_hash_top", merge: mHash,
			err: "The first element of the merge has wrong type, expects a Hash value, got String"},
		// A non-hash found at one level only is returned unchanged.
		{node: "db01", key: "non_hash_lower", merge: mHash, want: "str"},
		{node: "web01", key: "users", want: h("carol", h("uid", int64(1003)))},
	})
}

func TestConformanceMergeDeep(t *testing.T) {
	common := h(
		"config", h(
			"name", "common",
			"timeout", int64(30),
			"debug", true,
			"server", h("host", "0.0.0.0", "port", int64(80), "tls", h("enabled", false, "cert", "/etc/ssl/cert.pem")),
			"plugins", a("core"),
		),
		"mismatch", h("a", h("was", "hash"), "b", "was-a-string", "c", h("was", "hash")),
		"empties", h("h", h("keep", "me"), "a", a("keep")),
	)
	node := h(
		"config", h(
			"server", h("port", int64(8443), "tls", h("enabled", true)),
			"plugins", a("auth", a("nested", "list")),
			"name", "web01",
			"timeout", nil,
			"debug", false,
		),
		"mismatch", h("a", "now-a-string", "b", h("now", "hash"), "c", a("now", "array")),
		"empties", h("h", h(), "a", a()),
	)
	role := h(
		"config", h(
			"server", h("port", int64(8080), "workers", int64(4)),
			"plugins", a("metrics", "auth"),
			"name", "web-role",
		),
	)
	nodes := map[string][]*format.Hash{
		"web01": {node, role, common},
		"db01":  {nil, nil, common},
	}
	webServer := h("host", "0.0.0.0", "port", int64(8443), "tls", h("enabled", true, "cert", "/etc/ssl/cert.pem"), "workers", int64(4))
	runCases(t, nodes, []lookupCase{
		// Recursive; lower keys first; null does not override, false does;
		// arrays: lower elements then new higher ones, not flattened.
		{node: "web01", key: "config", merge: mDeep, want: h(
			"name", "web01",
			"timeout", int64(30),
			"debug", false,
			"server", webServer,
			"plugins", a("core", "metrics", "auth", a("nested", "list")),
		)},
		// On a type mismatch the higher value wins.
		{node: "web01", key: "mismatch", merge: mDeep, want: h("a", "now-a-string", "b", h("now", "hash"), "c", a("now", "array"))},
		// An empty {} or [] higher up leaves the lower value.
		{node: "web01", key: "empties", merge: mDeep, want: h("h", h("keep", "me"), "a", a("keep"))},
		{node: "db01", key: "config", merge: mDeep, want: common.Value(0)},
		{node: "db01", key: "mismatch", merge: mDeep, want: h("a", h("was", "hash"), "b", "was-a-string", "c", h("was", "hash"))},
		{node: "db01", key: "empties", merge: mDeep, want: h("h", h("keep", "me"), "a", a("keep"))},
		{node: "web01", key: "config", want: node.Value(0)},
		{node: "web01", key: "config", merge: mHash, want: h(
			"name", "web01",
			"timeout", nil,
			"debug", false,
			"server", h("port", int64(8443), "tls", h("enabled", true)),
			"plugins", a("auth", a("nested", "list")),
		)},
		// Dotted keys dig into the merged value.
		{node: "web01", key: "config.server", merge: mDeep, want: webServer},
		{node: "web01", key: "config.timeout", merge: mDeep, want: int64(30)},
	})
}

func TestConformanceMergeDeepRootArrays(t *testing.T) {
	common := h(
		"classes", a("a", "d", "a"),
		"nested", a(a("y", "x")),
		"hashes", a(h("name", "a")),
		"scalar_over_array", a("one", "two"),
		"single_dups", a("x", "x", "y"),
	)
	node := h(
		"classes", a("c", "a"),
		"nested", a(a("x", "y"), "z"),
		"hashes", a(h("name", "a"), h("name", "c")),
		"scalar_over_array", "just-a-string",
	)
	role := h(
		"classes", a("b", "a"),
		"nested", a("z", a("x", "y")),
		"hashes", a(h("name", "b")),
	)
	nodes := map[string][]*format.Hash{
		"web01": {node, role, common},
		"db01":  {nil, nil, common},
	}
	runCases(t, nodes, []lookupCase{
		// The lowest array (its duplicates dropped), then new elements.
		{node: "web01", key: "classes", merge: mDeep, want: a("a", "d", "b", "c")},
		{node: "web01", key: "nested", merge: mDeep, want: a(a("y", "x"), "z", a("x", "y"))},
		{node: "web01", key: "hashes", merge: mDeep, want: a(h("name", "a"), h("name", "b"), h("name", "c"))},
		{node: "web01", key: "scalar_over_array", merge: mDeep, want: "just-a-string"},
		// Found at one level: untouched, duplicates kept.
		{node: "web01", key: "single_dups", merge: mDeep, want: a("x", "x", "y")},
		{node: "db01", key: "classes", merge: mDeep, want: a("a", "d", "a")},
		{node: "db01", key: "nested", merge: mDeep, want: a(a("y", "x"))},
		{node: "db01", key: "hashes", merge: mDeep, want: a(h("name", "a"))},
		{node: "db01", key: "scalar_over_array", merge: mDeep, want: a("one", "two")},
		{node: "db01", key: "single_dups", merge: mDeep, want: a("x", "x", "y")},
		{node: "web01", key: "classes", merge: mUnique, want: a("c", "a", "b", "d")},
		{node: "web01", key: "nested", merge: mUnique, want: a("x", "y", "z")},
		{node: "web01", key: "single_dups", merge: mUnique, want: a("x", "y")},
	})
}

func TestConformanceMergeDeepKnockoutPrefix(t *testing.T) {
	common := h(
		"packages", a("telnet", "vim", "curl"),
		"cleared", a("a", "b"),
		"str_value", "old",
		"bare_value", h("a", int64(1)),
		"users", h("bob", h("uid", int64(1)), "alice", h("uid", int64(2)), "dave", h("uid", int64(4))),
		"deeper", h("app", h("groups", a("wheel", "users"))),
		"ko_opts", h("list", a("a", "b"), "gone", true),
	)
	node := h(
		"packages", a("--telnet", "htop"),
		"cleared", a("--", "fresh"),
		"str_value", "--old",
		"bare_value", "--",
		"users", h("--bob", nil, "carol", h("uid", int64(3)), "dave", "--"),
		"deeper", h("app", h("groups", a("--wheel", "ops"))),
		"single_level", a("--x", "y"),
		"ko_opts", h("list", a("!!a", "z"), "!!gone", true),
	)
	nodes := map[string][]*format.Hash{
		"web01": {node, common},
		"db01":  {nil, common},
	}
	ko := format.Merge{Strategy: "deep", KnockoutPrefix: "--"}
	users := h(
		"bob", h("uid", int64(1)),
		"alice", h("uid", int64(2)),
		"dave", "",
		"--bob", nil, // prefixed hash keys are kept literally
		"carol", h("uid", int64(3)),
	)
	runCases(t, nodes, []lookupCase{
		{node: "web01", key: "packages", merge: ko, want: a("vim", "curl", "htop")},
		// A bare prefix clears the lower array.
		{node: "web01", key: "cleared", merge: ko, want: a("fresh")},
		// A prefixed string replaces the lower value with "".
		{node: "web01", key: "str_value", merge: ko, want: ""},
		{node: "web01", key: "bare_value", merge: ko, want: ""},
		{node: "web01", key: "users", merge: ko, want: users},
		{node: "web01", key: "deeper", merge: ko, want: h("app", h("groups", a("users", "ops")))},
		{node: "db01", key: "packages", merge: ko, want: a("telnet", "vim", "curl")},
		{node: "db01", key: "cleared", merge: ko, want: a("a", "b")},
		{node: "db01", key: "str_value", merge: ko, want: "old"},
		{node: "db01", key: "bare_value", merge: ko, want: h("a", int64(1))},
		{node: "db01", key: "users", merge: ko, want: common.Value(4)},
		{node: "db01", key: "deeper", merge: ko, want: h("app", h("groups", a("wheel", "users")))},
		// Knockout happens only during a merge.
		{node: "web01", key: "single_level", merge: ko, want: a("--x", "y")},
		// lookup_options: {strategy: deep, knockout_prefix: "!!"}.
		{node: "web01", key: "ko_opts", merge: format.Merge{Strategy: "deep", KnockoutPrefix: "!!"},
			want: h("list", a("b", "z"), "gone", true, "!!gone", true)},
		{node: "db01", key: "ko_opts", merge: format.Merge{Strategy: "deep", KnockoutPrefix: "!!"},
			want: h("list", a("a", "b"), "gone", true)},
		// Without the option, "--" is an ordinary string.
		{node: "web01", key: "packages", merge: mDeep, want: a("telnet", "vim", "curl", "--telnet", "htop")},
	})
}

func TestConformanceMergeDeepSortAndHashArrays(t *testing.T) {
	common := h(
		"letters", a("d", "a"),
		"numbers", a(int64(10)),
		"inner", h("list", a("a")),
		"mixed", a("a"),
		"vhosts", a(h("name", "a", "docroot", "/srv/a"), h("name", "b", "docroot", "/srv/b")),
		"by_position", a(h("name", "a"), h("name", "b")),
		"not_all_hashes", a(h("a", int64(1)), h("b", int64(2))),
	)
	node := h(
		"letters", a("b", "a"),
		"numbers", a(int64(3), int64(1)),
		"inner", h("list", a("z", "m")),
		"mixed", a(int64(1)),
		"vhosts", a(h("name", "a", "port", int64(8080))),
		"by_position", a(h("name", "b", "extra", "from-node")),
		"not_all_hashes", a(h("a", int64(1)), "x"),
		"lone", a("z", "a"),
	)
	role := h(
		"letters", a("c"),
		"numbers", a(int64(2)),
	)
	nodes := map[string][]*format.Hash{
		"web01": {node, role, common},
		"db01":  {nil, nil, common},
	}
	sorted := format.Merge{Strategy: "deep", SortMergedArrays: true}
	mha := format.Merge{Strategy: "deep", MergeHashArrays: true}
	both := format.Merge{Strategy: "deep", SortMergedArrays: true, MergeHashArrays: true}
	runCases(t, nodes, []lookupCase{
		{node: "web01", key: "letters", merge: sorted, want: a("a", "b", "c", "d")},
		{node: "web01", key: "numbers", merge: sorted, want: a(int64(1), int64(2), int64(3), int64(10))},
		{node: "web01", key: "inner", merge: sorted, want: h("list", a("a", "m", "z"))},
		// Arrays found at a single level are not sorted.
		{node: "db01", key: "letters", merge: sorted, want: a("d", "a")},
		{node: "db01", key: "numbers", merge: sorted, want: a(int64(10))},
		{node: "db01", key: "inner", merge: sorted, want: h("list", a("a"))},
		{node: "web01", key: "lone", merge: sorted, want: a("z", "a")},
		{node: "web01", key: "mixed", merge: sorted, err: "comparison of String with 1 failed"},
		// Arrays of hashes merge by position.
		{node: "web01", key: "vhosts", merge: mha, want: a(
			h("name", "a", "docroot", "/srv/a", "port", int64(8080)),
			h("name", "b", "docroot", "/srv/b"),
		)},
		{node: "web01", key: "by_position", merge: mha, want: a(h("name", "b", "extra", "from-node"), h("name", "b"))},
		{node: "web01", key: "not_all_hashes", merge: mha, want: a(h("a", int64(1)), h("b", int64(2)), "x")},
		{node: "db01", key: "vhosts", merge: mha, want: common.Value(4)},
		{node: "db01", key: "by_position", merge: mha, want: a(h("name", "a"), h("name", "b"))},
		{node: "db01", key: "not_all_hashes", merge: mha, want: a(h("a", int64(1)), h("b", int64(2)))},
		{node: "web01", key: "vhosts", merge: both, err: "comparison of Hash with Hash failed"},
		{node: "web01", key: "letters", merge: both, want: a("a", "b", "c", "d")},
		{node: "web01", key: "vhosts", merge: mDeep, want: a(
			h("name", "a", "docroot", "/srv/a"),
			h("name", "b", "docroot", "/srv/b"),
			h("name", "a", "port", int64(8080)),
		)},
		{node: "web01", key: "letters", merge: mDeep, want: a("d", "a", "c", "b")},
	})
}

func TestConformanceDottedKeys(t *testing.T) {
	common := h(
		"app", h(
			"db", h("host", "localhost", "port", int64(5432)),
			"cache", h("servers", a("c1", "c2", "c3")),
			"name", "myapp",
		),
		"matrix", a(a(int64(1), int64(2)), a(int64(3), int64(4))),
		"dotted.top", h("inner.key", "value"),
		"intkeys", h(int64(1), "one", "2", "two"),
	)
	node := h(
		"app", h("db", h("host", "db-web01")),
		"app.version", "quoted key with a dot",
	)
	nodes := map[string][]*format.Hash{
		"web01": {node, nil, common},
		"db01":  {nil, nil, common},
	}
	var cases []lookupCase
	for _, n := range []string{"web01", "db01"} {
		web := n == "web01"
		pick := func(webWant, dbWant any) lookupCase {
			c := lookupCase{node: n}
			w := dbWant
			if web {
				w = webWant
			}
			if w == nil {
				c.notFound = true
			} else {
				c.want = w
			}
			return c
		}
		add := func(key string, c lookupCase) {
			c.key = key
			cases = append(cases, c)
		}
		// The sub-key is dug out of the first-found root value only.
		add("app.db.host", pick("db-web01", "localhost"))
		add("app.db.port", pick(nil, int64(5432)))
		add("app.cache.servers.1", pick(nil, "c2"))
		add("app.cache.servers.3", pick(nil, nil))
		add("app.cache.servers.-1", pick(nil, nil))
		add("'app.version'", pick("quoted key with a dot", nil))
		add(`"app.version"`, pick("quoted key with a dot", nil))
		add("app.version", pick(nil, nil))
		add("matrix.1.0", pick(int64(3), int64(3)))
		add("'dotted.top'.'inner.key'", pick("value", "value"))
		// Digits are indexes: they match the integer key 1, not "2".
		add("intkeys.1", pick("one", "one"))
		add("intkeys.2", pick(nil, nil))
		add("intkeys.'2'", pick("two", "two"))
		add("app.nope", pick(nil, nil))
	}
	cases = append(cases,
		lookupCase{node: "web01", key: "app.db.port", merge: mDeep, want: int64(5432)},
		lookupCase{node: "web01", key: "app.db", merge: mDeep, want: h("host", "db-web01", "port", int64(5432))},
		lookupCase{node: "web01", key: "app.cache.servers.1", merge: mDeep, want: "c2"},
		lookupCase{node: "db01", key: "app.name.first",
			err: "Data Provider type mismatch: Got String when a hash-like object was expected to access value using 'first' from key 'app.name.first'"},
		lookupCase{node: "web01", key: "matrix.x",
			err: "Data Provider type mismatch: Got Array when a hash-like object was expected to access value using 'x' from key 'matrix.x'"},
	)
	runCases(t, nodes, cases)
}

// TestConformanceLookupOptionsMerge replays lookup-options-merged-across-
// levels with the merge each key's lookup_options resolve to (a hash merge
// of the levels' lookup_options, done here with MergeValues), and checks
// ParseMerge's failure on the unknown strategy.
func TestConformanceLookupOptionsMerge(t *testing.T) {
	commonLO := h(
		"ports", h("merge", h("strategy", "deep")),
		"settings", h("merge", "hash"),
		"^order_", h("merge", "unique"),
		"opts_hash", h("merge", "deep"),
		"opts_string", h("merge", "deep"),
		"bogus", h("merge", "bogus"),
	)
	nodeLO := h(
		"ports", h("merge", "unique"),
		"^order_b", h("merge", "first"),
		"opts_hash", h("merge", h("strategy", "deep", "knockout_prefix", "--")),
	)
	roleLO := h(
		"settings", h("merge", "deep"),
		"^order_c", h("merge", "first"),
	)
	// lookup_options combine with a hash merge, highest level first.
	lo, err := MergeValues(mHash, nodeLO, roleLO)
	if err != nil {
		t.Fatal(err)
	}
	webLO, err := MergeValues(mHash, lo, commonLO)
	if err != nil {
		t.Fatal(err)
	}
	// Lower levels' keys (and so regexps) come first; then each higher
	// level's new keys (role's before node's, the memo being node+role).
	wantOrder := []any{"ports", "settings", "^order_", "opts_hash", "opts_string", "bogus", "^order_c", "^order_b"}
	if d := diffValues(wantOrder, webLO.(*format.Hash).Keys()); d != "" {
		t.Fatalf("lookup_options key order (-want +got):\n%s", d)
	}
	optsFor := func(lo *format.Hash, key string) format.Merge {
		t.Helper()
		// A literal entry beats any regexp; otherwise the first regexp (in
		// the combined hash's order) that matches.
		o, ok := lo.Get(key)
		for i := 0; !ok && i < lo.Len(); i++ {
			if p := lo.Key(i).(string); strings.HasPrefix(p, "^") && regexp.MustCompile(p).MatchString(key) {
				o, ok = lo.Value(i), true
			}
		}
		if !ok {
			return format.Merge{}
		}
		mv, _ := o.(*format.Hash).Get("merge")
		m, err := parseMerge(mv)
		if err != nil {
			t.Fatalf("ParseMerge(%v): %v", mv, err)
		}
		return m
	}

	common := h(
		"ports", a(int64(22), int64(80)),
		"settings", h("role", h("b", int64(2)), "common", int64(1)),
		"order_b", a("common"),
		"order_c", a("common"),
		"opts_hash", h("list", a("a", "b")),
		"opts_string", h("x", h("common", int64(1))),
		"bogus", a("common"),
	)
	node := h(
		"ports", a(int64(443)),
		"settings", h("node", int64(1)),
		"order_b", a("node"),
		"order_c", a("node"),
		"opts_hash", h("list", a("--a", "n")),
		"opts_string", h("x", h("node", int64(1))),
		"bogus", a("node"),
	)
	role := h(
		"ports", a(int64(80)),
		"settings", h("role", h("a", int64(1))),
		"order_b", a("role"),
		"order_c", a("role"),
	)
	nodes := map[string][]*format.Hash{
		"web01": {node, role, common},
		"db01":  {nil, nil, common},
	}
	var cases []lookupCase
	for _, c := range []struct {
		key  string
		want any
	}{
		{"ports", a(int64(443), int64(80), int64(22))},
		{"settings", h("role", h("b", int64(2), "a", int64(1)), "common", int64(1), "node", int64(1))},
		{"order_b", a("node", "role", "common")},
		{"order_c", a("node", "role", "common")},
		{"opts_hash", h("list", a("b", "n"))},
		{"opts_string", h("x", h("common", int64(1), "node", int64(1)))},
	} {
		cases = append(cases, lookupCase{node: "web01", key: c.key, merge: optsFor(webLO.(*format.Hash), c.key), want: c.want})
	}
	for _, c := range []struct {
		key  string
		want any
	}{
		{"ports", a(int64(22), int64(80))},
		{"settings", h("role", h("b", int64(2)), "common", int64(1))},
		{"order_b", a("common")},
		{"order_c", a("common")},
		{"opts_hash", h("list", a("a", "b"))},
		{"opts_string", h("x", h("common", int64(1)))},
	} {
		cases = append(cases, lookupCase{node: "db01", key: c.key, merge: optsFor(commonLO, c.key), want: c.want})
	}
	runCases(t, nodes, cases)

	bogus, _ := commonLO.Get("bogus")
	mv, _ := bogus.(*format.Hash).Get("merge")
	if _, err := parseMerge(mv); err == nil || err.Error() != "Unknown merge strategy: 'bogus'" {
		t.Errorf("ParseMerge(bogus) error = %v, want Unknown merge strategy: 'bogus'", err)
	}
}
