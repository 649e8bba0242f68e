package hiera

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// TestPuppetDifferential compares this package with Puppet's own Ruby code
// (MergeStrategy, deep_merge, LookupKey, Array#sort) on random inputs.
// It needs Puppet installed and is opt-in, being slow:
//
//	HIERACC_PUPPET_DIFF=1 go test ./format/hiera -run Differential
//
// HIERACC_PUPPET_DIFF_N sets the number of cases per kind (default 3000),
// HIERACC_PUPPET_DIFF_SEED the random seed.
func TestPuppetDifferential(t *testing.T) {
	if os.Getenv("HIERACC_PUPPET_DIFF") == "" {
		t.Skip("set HIERACC_PUPPET_DIFF=1 to compare with Puppet")
	}
	if _, err := exec.LookPath("puppet"); err != nil {
		t.Skip("puppet is not installed")
	}
	n := 3000
	if s := os.Getenv("HIERACC_PUPPET_DIFF_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed := uint64(1)
	if s := os.Getenv("HIERACC_PUPPET_DIFF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	r := rand.New(rand.NewPCG(seed, 2))
	var reqs []map[string]any
	var checks []func(resp map[string]json.RawMessage) string

	add := func(req map[string]any, check func(resp map[string]json.RawMessage) string) {
		reqs = append(reqs, req)
		checks = append(checks, check)
	}
	for range n {
		m := randMerge(r)
		if m.Strategy == "first" {
			continue // Puppet's first strategy cannot merge; MergeValues returns e1
		}
		a, b := randValue(r, 3), randValue(r, 3)
		if r.IntN(3) == 0 {
			a, b = randHash(r, 3), randHash(r, 3)
		}
		add(map[string]any{"op": "merge", "merge": enc(mergeValue(m)), "a": enc(a), "b": enc(b)},
			func(resp map[string]json.RawMessage) string {
				before := ruby.Inspect(a) + ruby.Inspect(b)
				got, err := MergeValues(m, a, b)
				if after := ruby.Inspect(a) + ruby.Inspect(b); after != before {
					return "inputs modified: " + before + " became " + after
				}
				return compareResult(resp, got, err)
			})
	}
	// Deep merges of similar shapes, rich in knockout strings and arrays of
	// hashes, to reach deep_merge's aliasing paths.
	for range n {
		m := format.Merge{Strategy: "deep", SortMergedArrays: r.IntN(5) == 0, MergeHashArrays: r.IntN(2) == 0}
		if r.IntN(4) != 0 {
			// Ruby interpolates the prefix into a regexp: try some that are
			// not literal.
			m.KnockoutPrefix = []string{"--", "--", "--", "-", "-+", "a|b", "[ab]"}[r.IntN(7)]
		}
		a, b := randDeep(r, 3), randDeep(r, 3)
		add(map[string]any{"op": "merge", "merge": enc(mergeValue(m)), "a": enc(a), "b": enc(b)},
			func(resp map[string]json.RawMessage) string {
				before := ruby.Inspect(a) + ruby.Inspect(b)
				got, err := MergeValues(m, a, b)
				if after := ruby.Inspect(a) + ruby.Inspect(b); after != before {
					return "inputs modified: " + before + " became " + after
				}
				return compareResult(resp, got, err)
			})
	}
	for range n / 3 {
		a := randArray(r, 2)
		add(map[string]any{"op": "sort", "a": enc(a)}, func(resp map[string]json.RawMessage) string {
			got, err := rubySort(a)
			return compareResult(resp, got, err)
		})
	}
	for range n / 3 {
		opt := randMergeOption(r)
		add(map[string]any{"op": "parse", "merge": enc(opt)}, func(resp map[string]json.RawMessage) string {
			m, err := parseMerge(opt)
			if e, ok := resp["err"]; ok {
				var msg string
				_ = json.Unmarshal(e, &msg)
				// hieracc may append a hint to Puppet's message.
				if err == nil || puppetMessage(err) != msg {
					return fmt.Sprintf("want error %q, got %+v, %v", msg, m, err)
				}
				return ""
			}
			if err != nil {
				if strings.HasPrefix(err.Error(), "hieracc does not support") {
					return ""
				}
				return fmt.Sprintf("want success %s, got %v", resp["ok"], err)
			}
			var ok struct{ S string }
			var cls []json.RawMessage
			var name string
			var opts any
			if json.Unmarshal(resp["ok"], &ok) != nil || json.Unmarshal([]byte(ok.S), &cls) != nil ||
				json.Unmarshal(cls[0], &name) != nil || decInto(cls[1], &opts) != nil {
				return "bad response " + string(resp["ok"])
			}
			want := format.Merge{Strategy: map[string]format.Strategy{
				"DefaultMergeStrategy": "", "FirstFoundStrategy": "first", "HashMergeStrategy": "hash",
				"UniqueMergeStrategy": "unique", "DeepMergeStrategy": "deep", "UnconstrainedDeepMergeStrategy": "deep",
			}[name]}
			if o, _ := opts.(*format.Hash); o != nil {
				ko, _ := o.Get("knockout_prefix")
				want.KnockoutPrefix, _ = ko.(string)
				sm, _ := o.Get("sort_merged_arrays")
				want.SortMergedArrays = Truthy(sm)
				mh, _ := o.Get("merge_hash_arrays")
				want.MergeHashArrays = Truthy(mh)
			}
			if m != want {
				return fmt.Sprintf("want %+v (%s), got %+v", want, resp["ok"], m)
			}
			return ""
		})
	}
	for range n {
		key := randKey(r)
		v := randValue(r, 3)
		add(map[string]any{"op": "key", "key": key, "v": enc(v)}, func(resp map[string]json.RawMessage) string {
			return compareKey(resp, key, v)
		})
	}
	for range n {
		m := randMerge(r)
		tree, ev := randTree(r, m)
		add(map[string]any{"op": "lookup", "merge": enc(mergeValue(m)), "tree": tree}, func(resp map[string]json.RawMessage) string {
			got, found, err := ev()
			if err == nil && !found {
				if _, ok := resp["ok"]; ok && string(resp["ok"]) == `{"nf":1}` {
					return ""
				}
				return fmt.Sprintf("want %s, got not found", resp)
			}
			return compareResult(resp, got, err)
		})
	}

	var in strings.Builder
	for _, q := range reqs {
		b, _ := json.Marshal(q)
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command("ruby", "-I/usr/lib/ruby/vendor_ruby", "testdata/puppet_diff.rb")
	cmd.Stdin = strings.NewReader(in.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ruby: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<24)
	i, failures := 0, 0
	for sc.Scan() {
		var resp map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
			t.Fatalf("bad response %q: %v", sc.Text(), err)
		}
		if msg := checks[i](resp); msg != "" {
			failures++
			if failures <= 25 {
				q, _ := json.Marshal(reqs[i])
				t.Errorf("case %d %s:\n%s", i, q, msg)
			}
		}
		i++
	}
	if i != len(reqs) {
		t.Fatalf("ruby answered %d of %d requests", i, len(reqs))
	}
	if failures > 0 {
		t.Errorf("%d of %d cases differ", failures, len(reqs))
	}
}

func compareResult(resp map[string]json.RawMessage, got any, err error) string {
	if e, ok := resp["err"]; ok {
		var msg string
		_ = json.Unmarshal(e, &msg)
		if err == nil || err.Error() != msg {
			return fmt.Sprintf("want error %q\ngot %s, %v", msg, ruby.Inspect(got), err)
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("want %s\ngot error %v", resp["ok"], err)
	}
	var want any
	if err := decInto(resp["ok"], &want); err != nil {
		return err.Error()
	}
	if !format.Identical(want, got) || ruby.Inspect(want) != ruby.Inspect(got) {
		return fmt.Sprintf("want %s\ngot  %s", ruby.Inspect(want), ruby.Inspect(got))
	}
	return ""
}

func compareKey(resp map[string]json.RawMessage, key string, v any) string {
	k, err := ParseKey(key)
	var dig any
	found := false
	if err == nil {
		dig, found, err = k.Dig(v)
	}
	if e, ok := resp["err"]; ok {
		var msg string
		_ = json.Unmarshal(e, &msg)
		if err == nil || err.Error() != msg {
			return fmt.Sprintf("want error %q, got %+v %v", msg, k, err)
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("want %s, got error %v", resp["ok"], err)
	}
	var ok struct {
		Root     string
		Module   *string
		Segments []map[string]string
		Dig      json.RawMessage
	}
	if err := json.Unmarshal(resp["ok"], &ok); err != nil {
		return err.Error()
	}
	mod := ""
	if ok.Module != nil {
		mod = *ok.Module
	}
	if ok.Root != k.Root || mod != k.Module || len(ok.Segments) != len(k.Segments) {
		return fmt.Sprintf("want %s, got %+v", resp["ok"], k)
	}
	for i, s := range ok.Segments {
		g := k.Segments[i]
		if n, isIdx := s["i"]; isIdx {
			if !g.IsIndex || g.Name != n {
				return fmt.Sprintf("segment %d: want index %s, got %+v", i, n, g)
			}
		} else if g.IsIndex || g.Name != s["s"] {
			return fmt.Sprintf("segment %d: want %q, got %+v", i, s["s"], g)
		}
	}
	if string(ok.Dig) == "null" || len(ok.Dig) == 0 {
		if found {
			return fmt.Sprintf("want not found, got %s", ruby.Inspect(dig))
		}
		return ""
	}
	var want any
	if err := decInto(ok.Dig, &want); err != nil {
		return err.Error()
	}
	if !found || !format.Identical(want, dig) {
		return fmt.Sprintf("dig: want %s, got %s (found %v)", ruby.Inspect(want), ruby.Inspect(dig), found)
	}
	return ""
}

// ---- tagged JSON ----

func enc(v any) map[string]any {
	switch v := v.(type) {
	case nil:
		return map[string]any{"n": 1}
	case bool:
		return map[string]any{"b": v}
	case int64:
		return map[string]any{"i": strconv.FormatInt(v, 10)}
	case float64:
		return map[string]any{"f": strconv.FormatFloat(v, 'g', -1, 64)}
	case string:
		return map[string]any{"s": v}
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = enc(e)
		}
		return map[string]any{"a": a}
	case *format.Hash:
		h := make([]any, 0, v.Len())
		for k, e := range v.All() {
			h = append(h, []any{enc(k), enc(e)})
		}
		return map[string]any{"h": h}
	}
	panic(fmt.Sprintf("enc %T", v))
}

func decInto(raw json.RawMessage, out *any) error {
	var t map[string]json.RawMessage
	if err := json.Unmarshal(raw, &t); err != nil {
		return err
	}
	v, err := dec(t)
	*out = v
	return err
}

func dec(t map[string]json.RawMessage) (any, error) {
	for tag, raw := range t {
		switch tag {
		case "n":
			return nil, nil
		case "b":
			var b bool
			err := json.Unmarshal(raw, &b)
			return b, err
		case "i":
			var s string
			_ = json.Unmarshal(raw, &s)
			return strconv.ParseInt(s, 10, 64)
		case "f":
			var s string
			_ = json.Unmarshal(raw, &s)
			return strconv.ParseFloat(s, 64)
		case "s":
			var s string
			err := json.Unmarshal(raw, &s)
			return s, err
		case "a":
			var elems []map[string]json.RawMessage
			if err := json.Unmarshal(raw, &elems); err != nil {
				return nil, err
			}
			a := make([]any, len(elems))
			for i, e := range elems {
				v, err := dec(e)
				if err != nil {
					return nil, err
				}
				a[i] = v
			}
			return a, nil
		case "h":
			var pairs [][2]map[string]json.RawMessage
			if err := json.Unmarshal(raw, &pairs); err != nil {
				return nil, err
			}
			h := format.NewHash(len(pairs))
			for _, p := range pairs {
				k, err := dec(p[0])
				if err != nil {
					return nil, err
				}
				v, err := dec(p[1])
				if err != nil {
					return nil, err
				}
				h.Set(k, v)
			}
			return h, nil
		}
	}
	return nil, fmt.Errorf("bad tagged value %v", t)
}

// ---- random inputs ----

var (
	diffStrings = []string{"a", "b", "c", "--a", "--b", "--", "---a", "A", "", "x\n--a", "it's"}
	diffKeys    = []any{"a", "b", "c", "--a", "d", "a", "b"}
)

func randScalar(r *rand.Rand) any {
	switch r.IntN(9) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2, 3:
		return int64(r.IntN(4))
	case 4:
		return []float64{1.0, 1.5, 2.0, -0.5, 1e20}[r.IntN(5)]
	}
	return diffStrings[r.IntN(len(diffStrings))]
}

func randValue(r *rand.Rand, depth int) any {
	if depth == 0 {
		return randScalar(r)
	}
	switch r.IntN(6) {
	case 0, 1:
		return randArray(r, depth-1)
	case 2, 3:
		return randHash(r, depth-1)
	}
	return randScalar(r)
}

func randArray(r *rand.Rand, depth int) []any {
	n := r.IntN(5)
	a := make([]any, n)
	allHashes := r.IntN(4) == 0
	for i := range a {
		if allHashes {
			a[i] = randHash(r, max(depth-1, 0))
		} else if depth > 0 && r.IntN(4) == 0 {
			a[i] = randValue(r, depth-1)
		} else {
			a[i] = randScalar(r)
		}
	}
	return a
}

func randHash(r *rand.Rand, depth int) *format.Hash {
	n := r.IntN(4)
	h := format.NewHash(n)
	for range n {
		var k any = diffKeys[r.IntN(len(diffKeys))]
		switch r.IntN(20) {
		case 0:
			k = int64(r.IntN(3))
		case 1:
			k = ""
		case 2:
			k = nil
		case 3:
			k = 1.5
		}
		if depth > 0 {
			h.Set(k, randValue(r, depth-1))
		} else {
			h.Set(k, randScalar(r))
		}
	}
	return h
}

func randDeep(r *rand.Rand, depth int) any {
	strs := []string{"a", "b", "--a", "--b", "--", "a", "c"}
	switch x := r.IntN(10); {
	case depth == 0 || x < 2:
		if r.IntN(6) == 0 {
			return []any{nil, false, int64(1)}[r.IntN(3)]
		}
		return strs[r.IntN(len(strs))]
	case x < 6:
		n := r.IntN(5)
		a := make([]any, n)
		hashes := r.IntN(2) == 0
		for i := range a {
			if hashes && r.IntN(6) != 0 {
				a[i] = randDeepHash(r, depth-1)
			} else {
				a[i] = strs[r.IntN(len(strs))]
			}
		}
		return a
	}
	return randDeepHash(r, depth-1)
}

func randDeepHash(r *rand.Rand, depth int) *format.Hash {
	keys := []string{"a", "b", "c"}
	h := format.NewHash(3)
	for range r.IntN(4) {
		h.Set(keys[r.IntN(len(keys))], randDeep(r, depth))
	}
	return h
}

func randMerge(r *rand.Rand) format.Merge {
	switch r.IntN(6) {
	case 0:
		return format.Merge{Strategy: "unique"}
	case 1:
		return format.Merge{Strategy: "hash"}
	case 2:
		return format.Merge{Strategy: "first"}
	}
	m := format.Merge{Strategy: "deep"}
	if r.IntN(2) == 0 {
		m.KnockoutPrefix = "--"
	}
	m.SortMergedArrays = r.IntN(4) == 0
	m.MergeHashArrays = r.IntN(3) == 0
	return m
}

// mergeValue is m as a lookup_options merge value.
func mergeValue(m format.Merge) any {
	if m.Strategy != "deep" {
		return string(m.Strategy) // a format.Strategy is not a value enc knows
	}
	h := format.NewHash(4)
	h.Set("strategy", "deep")
	if m.KnockoutPrefix != "" {
		h.Set("knockout_prefix", m.KnockoutPrefix)
	}
	h.Set("sort_merged_arrays", m.SortMergedArrays)
	h.Set("merge_hash_arrays", m.MergeHashArrays)
	return h
}

func randMergeOption(r *rand.Rand) any {
	names := []any{"deep", "hash", "unique", "first", "default", "bogus", "deeep", "Deep", "unconstrained_deep", int64(5), nil, true, false, []any{"a"}}
	if r.IntN(3) == 0 {
		return names[r.IntN(len(names))]
	}
	h := format.NewHash(4)
	if r.IntN(8) != 0 {
		h.Set("strategy", names[r.IntN(len(names))])
	}
	opts := []any{"knockout_prefix", "sort_merged_arrays", "merge_hash_arrays", "merge_debug", "sort_merge_arrays", "stratgy", "x", "", int64(1)}
	vals := []any{"--", true, false, nil, int64(1), "yes", []any{}, []any{"a"}}
	for range r.IntN(4) {
		h.Set(opts[r.IntN(len(opts))], vals[r.IntN(len(vals))])
	}
	return h
}

func randKey(r *rand.Rand) string {
	parts := []string{"a", "b", "0", "1", "-1", "+1", "'a.b'", `"x"`, " a ", "", "9999999999999999999999", "::a", "m::k", ":1", "x y", "'", "1_0"}
	n := 1 + r.IntN(4)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString([]string{".", ".", ".", "..", ". "}[r.IntN(5)])
		}
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// randTree builds a random [global, env, module] lookup tree, returning it
// in puppet_diff.rb's form and a function running Resolve over it.
func randTree(r *rand.Rand, m format.Merge) (any, func() (any, bool, error)) {
	var layers [3]*format.Hierarchy
	vals := map[[3]int]any{}
	errs := map[[3]int]string{}
	var tree []any
	for l := range 3 {
		if r.IntN(5) == 0 {
			tree = append(tree, map[string]any{"nf": 1})
			continue
		}
		h := &format.Hierarchy{Present: true}
		levels := []any{}
		for lv := range r.IntN(4) {
			var level format.Level
			locs := []any{}
			for loc := range r.IntN(3) {
				level.Locations = append(level.Locations, format.Location{Exists: true})
				switch x := r.IntN(10); {
				case x < 4:
					locs = append(locs, map[string]any{"nf": 1})
				case x == 4 && r.IntN(4) == 0:
					msg := fmt.Sprintf("boom %d.%d.%d", l, lv, loc)
					errs[[3]int{l, lv, loc}] = msg
					locs = append(locs, map[string]any{"err": msg})
				default:
					v := randValue(r, 2)
					if m.Strategy == "hash" && r.IntN(4) != 0 {
						v = randHash(r, 2)
					}
					vals[[3]int{l, lv, loc}] = v
					locs = append(locs, map[string]any{"v": enc(v)})
				}
			}
			h.Levels = append(h.Levels, level)
			levels = append(levels, map[string]any{"list": locs})
		}
		layers[l] = h
		tree = append(tree, map[string]any{"list": levels})
	}
	return map[string]any{"list": tree}, func() (any, bool, error) {
		return Resolve(m, layers, func(layer format.Layer, level, loc int) (any, bool, error) {
			k := [3]int{int(layer), level, loc}
			if msg, ok := errs[k]; ok {
				return nil, false, fmt.Errorf("%s", msg)
			}
			v, ok := vals[k]
			return v, ok, nil
		})
	}
}
