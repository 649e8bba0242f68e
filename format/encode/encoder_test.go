package encode

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/internal/wire"
	"github.com/hieracc/hieracc/internal/cputime"
)

// fleet builds bundles of n nodes with k keys each, sharing values the way
// a compile of a fleet does: every data file's values are built once and
// held by pointer by every node whose hierarchy reaches that file; merged
// keys get a new value per node (equal across the nodes of a slice, not
// shared), interpolated strings a new string per node. With shareKeys,
// nodes that resolve a key alike also share its Key struct (its
// contributions' slice).
func fleet(n, k int, shareKeys bool) []*format.Bundle {
	r := rand.New(rand.NewPCG(1, 2))
	const roles, dcs, oses = 12, 4, 3
	type file struct {
		level int
		vals  map[int]any // by key number
	}
	newFile := func(level int, share float64) *file {
		f := &file{level: level, vals: map[int]any{}}
		for i := range k {
			if share >= 1 || r.Float64() < share {
				f.vals[i] = fleetValue(r, i)
			}
		}
		return f
	}
	common := newFile(4, 1)
	var roleF, dcF, osF []*file
	for range roles {
		roleF = append(roleF, newFile(1, 0.2))
	}
	for range dcs {
		dcF = append(dcF, newFile(2, 0.2))
	}
	for range oses {
		osF = append(osF, newFile(3, 0.2))
	}
	names := make([]string, k)
	merge := make([]format.Merge, k)
	for i := range names {
		names[i] = fmt.Sprintf("profile::mod%02d::param_%04d", i%40, i)
		if i%20 == 7 {
			merge[i] = format.Merge{Strategy: "deep"}
		}
	}
	slices.Sort(names)
	modules := make([]format.Module, 10)
	for i := range modules {
		modules[i] = format.Module{Name: fmt.Sprintf("mod%d", i), Hierarchy: format.Hierarchy{Present: true, Levels: []format.Level{
			{Name: "OS", Locations: []format.Location{{Path: "data/os/Debian.yaml", Exists: i%2 == 0}}},
			{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}},
		}}}
	}
	type keyCache = map[[5]*file]*format.Key
	shared := make([]keyCache, k)
	for i := range shared {
		shared[i] = keyCache{}
	}
	var out []*format.Bundle
	for node := range n {
		cert := fmt.Sprintf("node%05d.dc%d.example.com", node, node%dcs)
		role, dc, os := r.IntN(roles), node%dcs, r.IntN(oses)
		nodeF := newFile(0, 0.01)
		files := [5]*file{nodeF, roleF[role], dcF[dc], osF[os], common}
		b := &format.Bundle{Node: cert, Environment: "production", Revision: "r1",
			Env: format.Hierarchy{Present: true, Levels: []format.Level{
				{Name: "Per-node", Locations: []format.Location{{Path: "data/nodes/" + cert + ".yaml", Exists: true}}},
				{Name: "Role", Locations: []format.Location{{Path: fmt.Sprintf("data/role/r%d.yaml", role), Exists: true}}},
				{Name: "DC", Locations: []format.Location{{Path: fmt.Sprintf("data/dc/dc%d.yaml", dc), Exists: true}}},
				{Name: "OS", Locations: []format.Location{{Path: fmt.Sprintf("data/os/os%d.yaml", os), Exists: true}}},
				{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}},
			}},
			Modules: modules,
			Keys:    make([]format.Key, k),
		}
		for i := range k {
			var key [5]*file // the files that hold the key: what decides its result
			var cs []format.Contribution
			for j, f := range files {
				if v, ok := f.vals[i]; ok {
					key[j] = f
					if s, ok := v.(string); ok && i%10 == 3 { // interpolated: a new string per node
						v = s + "." + cert
					}
					cs = append(cs, format.Contribution{Layer: format.LayerEnvironment, Level: f.level, Line: 1 + i%300, Column: 3, Value: v})
				}
			}
			if key[0] == nil && shareKeys && i%10 != 3 {
				if sk := shared[i][key]; sk != nil {
					b.Keys[i] = *sk
					continue
				}
			}
			kk := format.Key{Name: names[i], Merge: merge[i], Contributions: cs, Value: cs[0].Value}
			if merge[i].Strategy != "" && len(cs) > 1 {
				kk.Value = fleetMerge(cs)
			}
			b.Keys[i] = kk
			if key[0] == nil && shareKeys && i%10 != 3 {
				shared[i][key] = &b.Keys[i]
			}
		}
		out = append(out, b)
	}
	return out
}

// fleetMerge merges the contributions' values (a stand-in for a deep
// merge: a new container, equal for equal inputs).
func fleetMerge(cs []format.Contribution) any {
	switch cs[0].Value.(type) {
	case []any:
		var a []any
		for _, c := range cs {
			if x, ok := c.Value.([]any); ok {
				a = append(a, x...)
			}
		}
		return a
	case *format.Hash:
		h := format.NewHash(8)
		for i := len(cs) - 1; i >= 0; i-- {
			if x, ok := cs[i].Value.(*format.Hash); ok {
				for k, v := range x.All() {
					h.Set(k, v)
				}
			}
		}
		return h
	}
	return cs[0].Value
}

var fleetWords = strings.Fields("alpha api archive audit auth backup billing cache cart catalog checkout config core cron data deploy edge events export feed gateway graph hub identity images")

func fleetValue(r *rand.Rand, key int) any {
	word := func() string { return fleetWords[r.IntN(len(fleetWords))] }
	switch key % 10 {
	case 0, 3, 5:
		return fmt.Sprintf("/srv/%s/%s-%d", word(), word(), r.IntN(50))
	case 1:
		return int64(r.IntN(70000))
	case 2:
		return r.IntN(2) == 0
	case 4, 7:
		a := make([]any, 1+r.IntN(6))
		for i := range a {
			a[i] = fmt.Sprintf("%s%d.example.com", word(), r.IntN(9))
		}
		return a
	case 6:
		return 0.5 + float64(r.IntN(8))
	}
	h := format.NewHash(4)
	h.Set("ensure", "present")
	h.Set("port", int64(8000+r.IntN(100)))
	h.Set("path", "/etc/"+word())
	if r.IntN(2) == 0 {
		h.Set("options", format.HashOf([]any{"timeout", "retries"}, []any{int64(r.IntN(60)), int64(3)}, nil))
	}
	return h
}

// sampleBundles are the bundles the encoders must agree on.
func sampleBundles() []*format.Bundle {
	deep := any("leaf")
	for range format.MaxDepth {
		deep = []any{deep}
	}
	tooDeep := []any{deep}
	wide := format.HashOf([]any{"x"}, []any{int64(1)}, nil)
	for i := range 25 {
		wide = format.HashOf([]any{"a", "b", "i"}, []any{wide, wide, int64(i)}, nil)
	}
	big := make([]any, 70000)
	for i := range big {
		big[i] = int64(i) - 35000
	}
	bigH := format.NewHash(70000)
	for i := range 70000 {
		bigH.Set(fmt.Sprint("k", i), float64(i))
	}
	scalars := []any{nil, true, false, int64(0), int64(-1), int64(-32), int64(-33), int64(127), int64(128),
		int64(255), int64(256), int64(65535), int64(65536), int64(math.MaxUint32), int64(math.MaxUint32) + 1,
		int64(math.MinInt8), int64(math.MinInt8) - 1, int64(math.MinInt16), int64(math.MinInt16) - 1,
		int64(math.MinInt32), int64(math.MinInt32) - 1, int64(math.MaxInt64), int64(math.MinInt64),
		0.0, math.Copysign(0, -1), 1.0, math.NaN(), math.Inf(-1), "", "x", strings.Repeat("s", 31),
		strings.Repeat("s", 32), strings.Repeat("s", 255), strings.Repeat("s", 256), strings.Repeat("s", 65535),
		strings.Repeat("s", 65536), []any{}, &format.Hash{}, make([]any, 15), make([]any, 16), make([]any, 65536)}
	errA := &format.Error{Message: "a", Pos: format.Pos{File: "f", Line: -5, Column: 1 << 40}, Level: "L"}
	out := []*format.Bundle{
		{},
		{Node: "n", NodeError: errA},
		{Keys: []format.Key{{Name: "a", Value: scalars}, {Name: "b", Value: rawHash(scalars[:29], scalars[:29])}}},
		{Keys: []format.Key{{Name: "deep", Value: deep}, {Name: "deep2", Value: []any{deep, "x"}}}},
		{Keys: []format.Key{{Name: "big", Value: big}, {Name: "bigh", Value: bigH}, {Name: "c", Value: []any{big, bigH}}}},
		{Keys: []format.Key{{Name: "b", Value: "x"}, {Name: "a", Value: "y"}}},
		{Keys: []format.Key{{Name: "a", Value: 1}}},
		{Keys: []format.Key{{Name: "a", Value: []any{"ok", map[string]any{}}}}},
		{Keys: []format.Key{{Name: "a", Value: (*format.Hash)(nil)}}},
		{Keys: []format.Key{{Name: "a", Value: tooDeep}}},
		{Keys: []format.Key{{Name: "a", Value: wide}}},
		{Keys: []format.Key{{Name: "a", Contributions: []format.Contribution{{Value: "x"}, {Layer: 3}}}}},
		{Keys: []format.Key{{Name: "a", Defaults: []format.Contribution{{Value: "x"}, {Level: -1}}}}},
		{Keys: []format.Key{{Name: "a", Defaults: []format.Contribution{{Value: int32(1)}}}}},
		{Revision: strings.Repeat("r", 1<<16)},
		{Revision: strings.Repeat("r", 1<<16-200)},
		{Modules: []format.Module{{Name: "b"}, {Name: "a"}}},
		{Node: "errs", NodeError: errA, Modules: []format.Module{
			{Name: "a", Err: errA, Default: &format.Hierarchy{Present: true, Levels: []format.Level{{Name: "x", Locations: []format.Location{{Path: "p", Exists: true, Original: "%{x}"}}}}}},
			{Name: "b", Hierarchy: format.Hierarchy{Levels: make([]format.Level, 20)}},
			{Name: "c", Err: &format.Error{Message: "c"}},
		}, Keys: []format.Key{
			{Name: "a", Err: &format.Error{Message: "c"}, Contributions: []format.Contribution{{Err: errA, Layer: format.LayerModule, Level: math.MaxInt32, Location: 300, Line: -1, Column: -100000}}},
			{Name: "b", Value: "v", Merge: format.Merge{Strategy: "deep", KnockoutPrefix: "--", MergeHashArrays: true}, MergeFrom: &format.OptionsEntry{Entry: "^b", Pos: format.Pos{File: "f", Line: -1, Column: 1 << 40}, Level: "l"},
				DefaultMerge: format.Merge{SortMergedArrays: true}, Defaults: []format.Contribution{{Value: "v"}, {Err: &format.Error{Message: "d"}}}},
		}},
		{Keys: []format.Key{{Name: "n", Err: errA, Contributions: []format.Contribution{{Value: "top"}, {Err: errA, Level: 1}},
			Asked: []format.Asked{
				{Contributions: []format.Contribution{{Value: "top"}, {Value: []any{"low", "top"}, Level: 1}}},
				{Text: "n.b", Contributions: []format.Contribution{{Value: "top"}, {Err: &format.Error{Message: "r"}, Level: 1}}, Defaults: []format.Contribution{{Value: "d"}}},
			}}}},
		{Keys: []format.Key{{Name: "n", Asked: []format.Asked{{Text: "n.b"}}}}},
		{Keys: []format.Key{{Name: "n", Asked: []format.Asked{{}, {}}}}},
		{Keys: []format.Key{{Name: "n", Asked: []format.Asked{{Contributions: []format.Contribution{{Layer: 7}}}}}}},
		{Keys: []format.Key{{Name: "a", Err: errA, Contributions: []format.Contribution{{Err: &format.Error{Message: "c"}}}}}, Modules: []format.Module{{Name: "m", Err: &format.Error{Message: "m"}}},
			Options: []format.OptionScope{
				{Literal: []format.OptionEntry{{Name: "x", Err: errA}, {Name: "y"}}, Pattern: []format.OptionEntry{{Name: "^z", Err: &format.Error{Message: "z"}}, {Name: "^c", Err: &format.Error{Message: "c"}}}},
				{Module: "m"},
				{Module: "m", Default: true, Err: &format.Error{Message: "m"}},
			}},
		{Options: []format.OptionScope{{Module: "m", Default: true}, {Module: "m"}}},
		{Options: []format.OptionScope{{Pattern: []format.OptionEntry{{Name: "^("}}}}},
	}
	many := &format.Bundle{}
	for i := range 40 {
		many.Keys = append(many.Keys, format.Key{Name: fmt.Sprintf("k%03d", i), Value: slices.Repeat([]any{"x"}, i),
			Contributions: slices.Repeat([]format.Contribution{{Value: int64(i)}}, i)})
	}
	out = append(out, many)
	out = append(out, sharedContributions()...)
	out = append(out, fleet(20, 300, true)...)
	return out
}

// sharedContributions are bundles whose keys share Contributions and
// Defaults slices in every way the Encoder must tell apart.
func sharedContributions() []*format.Bundle {
	h := format.HashOf([]any{"k"}, []any{[]any{"v", int64(1)}}, nil)
	cs := []format.Contribution{{Value: "a", Line: 1}, {Value: h, Layer: format.LayerModule, Level: 300, Location: 70000, Line: -40, Column: 1 << 33}, {Value: []any{h}}}
	ecs := []format.Contribution{{Value: "a"}, {Err: &format.Error{Message: "boom"}}, {Value: "b"}}
	deep := format.Merge{Strategy: "deep"}
	var out []*format.Bundle
	for i := range 3 {
		v := any("x")
		if i == 1 {
			v = h
		}
		b := &format.Bundle{Node: fmt.Sprint("shared", i), Keys: []format.Key{
			{Name: "a", Contributions: cs, Value: v},
			{Name: "b", Contributions: cs[:1], Value: "y"},
			{Name: "c", Defaults: cs, Value: h, DefaultMerge: format.Merge{Strategy: format.Strategy(fmt.Sprint(i))}},
			{Name: "d", Contributions: cs, Defaults: cs[1:], Value: "x", Merge: deep},
			{Name: "e", Contributions: cs[1:], Defaults: cs, Value: cs[2].Value},
			{Name: "f", Contributions: ecs, Value: "a"},
			{Name: "g", Contributions: cs[:2], Value: "a"},
			{Name: "h", Value: "nothing"},
		}}
		if i == 2 {
			b.Keys[0].Err = &format.Error{Message: "a failed"}
			b.Keys[1].Value = nil
			b.Keys[6].Defaults = ecs[2:]
		}
		out = append(out, b)
	}
	return out
}

// encodeBoth encodes b with refEncode and with e, and fails if they differ.
func encodeBoth(t *testing.T, e *Encoder, b *format.Bundle) {
	t.Helper()
	want, werr := refEncode(b)
	got, gerr := e.Encode(b)
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("bundle %.40q: error %v, want %v", b.Node, gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("bundle %.40q: Encoder's %d bytes differ from the reference's %d", b.Node, len(got), len(want))
	}
	if werr == nil {
		// Append must write the same after existing bytes.
		prefix := []byte("prefix")
		app, err := e.Append(slices.Clip(prefix), b)
		if err != nil || !bytes.Equal(app[:6], prefix) || !bytes.Equal(app[6:], want) {
			t.Fatalf("bundle %.40q: Append differs from Encode (%v)", b.Node, err)
		}
	}
}

// TestEncoderMatchesReference checks that Encoder writes exactly what the
// encoder it replaced wrote, bundle after bundle with one Encoder (so with
// what it remembers), with Encode, and with an Encoder that forgets often.
func TestEncoderMatchesReference(t *testing.T) {
	bundles := sampleBundles()
	e := NewEncoder()
	for range 2 {
		for _, b := range bundles {
			encodeBoth(t, e, b)
		}
	}
	small := NewEncoder()
	small.maxRemembered = 50
	for _, b := range bundles {
		encodeBoth(t, small, b)
	}
	for _, b := range bundles {
		want, werr := refEncode(b)
		got, gerr := Encode(b)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || !bytes.Equal(got, want) {
			t.Fatalf("Encode(%.40q) differs from the reference: %v, %v", b.Node, gerr, werr)
		}
	}
}

// TestEncoderCollisions makes container structure hashes collide (8
// values): dedup must compare in full and never merge two different
// values.
func TestEncoderCollisions(t *testing.T) {
	e := NewEncoder()
	e.in.weakHash = true
	for _, b := range sampleBundles() {
		encodeBoth(t, e, b)
	}
}

// TestEncoderGenerationWraps checks that the bundle generation marking the
// value table's entries may wrap around: entries of the first bundles must
// not look present again then.
func TestEncoderGenerationWraps(t *testing.T) {
	bundles := fleet(6, 50, false)
	e := NewEncoder()
	for _, b := range bundles { // generations 1 to 12
		encodeBoth(t, e, b)
	}
	e.in.gen = math.MaxUint32 - 1
	for _, b := range slices.Backward(bundles) { // generations MaxUint32, then 1 to 11 again
		encodeBoth(t, e, b)
	}
}

// TestEncoderReset checks that Reset forgets values that were modified.
func TestEncoderReset(t *testing.T) {
	h := &format.Hash{}
	h.Set("a", int64(1))
	a := []any{"x", h}
	b := &format.Bundle{Keys: []format.Key{{Name: "k", Value: a}, {Name: "l", Value: h}}}
	e := NewEncoder()
	encodeBoth(t, e, b)
	h.Set("b", int64(2))
	a[0] = "y"
	e.Reset()
	encodeBoth(t, e, b)
}

// TestEncodeForgets checks that Encode keeps nothing of the caller's.
func TestEncodeForgets(t *testing.T) {
	h := &format.Hash{}
	h.Set("a", int64(1))
	b := &format.Bundle{Keys: []format.Key{{Name: "k", Value: h}}}
	if _, err := Encode(b); err != nil {
		t.Fatal(err)
	}
	h.Set("b", int64(2)) // allowed: Encode remembers nothing
	got, _ := Encode(b)
	want, _ := refEncode(b)
	if !bytes.Equal(got, want) {
		t.Fatal("Encode used a value remembered from an earlier call")
	}
}

// FuzzEncoderMatchesReference decodes fuzzed bodies (whose values share
// subtrees, as decoded ones do) and checks that both encoders agree, three
// times over with one Encoder, so that it meets the bundle's contributions
// again and remembers them.
func FuzzEncoderMatchesReference(f *testing.F) {
	for _, b := range sampleBundles() {
		if data, err := refEncode(b); err == nil && len(data) < 4096 {
			_, body := splitForTest(f, data)
			f.Add(body)
		}
	}
	e := NewEncoder()
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := format.Decode(sealForTest(body))
		if err != nil {
			return
		}
		encodeBoth(t, e, b) // encodes twice
		encodeBoth(t, e, b)
	})
}

// splitForTest returns the header and body of an encoding.
func splitForTest(t testing.TB, data []byte) (header, body []byte) {
	start := headerLen(t, data)
	return data[:start], data[start:]
}

// sealForTest wraps a body in a valid header.
func sealForTest(body []byte) []byte {
	digest := sha256.Sum256(body)
	out := appendUint([]byte(wire.Magic), format.Version)
	out = appendArrayLen(out, 6)
	out = appendBin(out, digest[:])
	out = appendUint(out, uint64(len(body)))
	for _, s := range []string{"n", "e", "r"} {
		out = appendString(out, s)
	}
	out = appendFixed32(out, crc32.Checksum(out, wire.Castagnoli))
	return append(out, body...)
}

// BenchmarkEncodeFleet encodes the bundles of 100 nodes × 2,000 keys of a
// fleet, as a compile does:
//
//   - ref: the encoder Encoder replaced, the baseline of the same run;
//   - encode: the package's Encode (nothing shared between bundles);
//   - cold: one new Encoder for the 100 bundles;
//   - warm: one Encoder that has encoded 100 other nodes of the fleet
//     first (untimed), as in the middle of a large fleet;
//   - warm-append: the same, appending to one reused buffer;
//   - warm-same: the warm Encoder given the first bundle 100 times, with
//     its shared file (AppendShared): each bundle identical to the last,
//     the memo's case (consecutive nodes of a slice, most of their keys).
//
// Each op is a pass over the 100 bundles. ns/bundle, cpu-ns/bundle (process
// CPU time, GC included: steadier than wall time on a busy machine, and
// what a compile on a fixed number of cores pays) and x-ref (ref's CPU time
// over this one's, when ref ran first) are the figures to compare.
// sharedkeys=true is a fleet whose compiler also shares Key structs
// between the nodes that resolve a key alike.
func BenchmarkEncodeFleet(b *testing.B) {
	for _, shareKeys := range []bool{false, true} {
		all := fleet(200, 2000, shareKeys)
		warmup, bundles := all[:100], all[100:]
		var size int
		for _, bd := range bundles {
			data, err := refEncode(bd)
			if err != nil {
				b.Fatal(err)
			}
			size += len(data)
		}
		var ref time.Duration // CPU time per pass
		for _, mode := range []string{"ref", "encode", "cold", "warm", "warm-append", "warm-same"} {
			b.Run(fmt.Sprintf("sharedkeys=%v/%s", shareKeys, mode), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size))
				var buf []byte
				var cpu time.Duration
				for range b.N {
					b.StopTimer()
					e := NewEncoder()
					if strings.HasPrefix(mode, "warm") {
						for _, bd := range warmup {
							if _, err := e.Encode(bd); err != nil {
								b.Fatal(err)
							}
						}
					}
					b.StartTimer()
					cpu0 := cputime.Used()
					for _, bd := range bundles {
						var err error
						switch mode {
						case "ref":
							_, err = refEncode(bd)
						case "encode":
							_, err = Encode(bd)
						case "cold", "warm":
							_, err = e.Encode(bd)
						case "warm-append":
							buf, err = e.Append(buf[:0], bd)
						case "warm-same":
							buf, _, err = e.AppendShared(buf[:0], bundles[0], Protection{})
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					cpu += cputime.Used() - cpu0
				}
				cpu /= time.Duration(b.N)
				if mode == "ref" {
					ref = cpu
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(bundles)), "ns/bundle")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(len(bundles)), "cpu-ns/bundle")
				if ref > 0 && cpu > 0 {
					b.ReportMetric(float64(ref)/float64(cpu), "x-ref")
				}
			})
		}
	}
}

// TestEncodeAllocs checks that Encode allocates its output once, at its
// final size, and that Append into a buffer with room allocates nothing
// once the Encoder has seen the bundle's shape.
func TestEncodeAllocs(t *testing.T) {
	b := fleet(1, 300, false)[0]
	b.Node = strings.Repeat("n", 40) // a str8 header field
	want, _ := refEncode(b)
	e := NewEncoder()
	out, _ := e.Encode(b)
	if cap(out) != len(want) && cap(out) > len(want)+80 {
		t.Errorf("Encode's output has capacity %d for %d bytes", cap(out), len(want))
	}
	if raceDetector {
		t.Skip("allocations are not counted under the race detector")
	}
	buf := make([]byte, 0, 2*len(want))
	e.Append(buf, b)
	if n := testing.AllocsPerRun(10, func() { e.Append(buf[:0], b) }); n != 0 {
		t.Errorf("Append allocates %v times per bundle, want 0", n)
	}
}

// randomFleet builds bundles from a pool of values and contributions that
// they share in every way: the same pointers, equal copies, values shared
// in part, contributions shared whole or not, values first met in one key
// and then in another.
func randomFleet(seed uint64, bundles, keys int) []*format.Bundle {
	r := rand.New(rand.NewPCG(seed, 7))
	var scalars []any
	for i := range 12 {
		scalars = append(scalars, fmt.Sprint("s", i%8), int64(i%5), float64(i%3), i%2 == 0, nil)
	}
	var values []any
	var build func(depth int) any
	build = func(depth int) any {
		switch n := r.IntN(10); {
		case n < 4 || depth > 3:
			if len(values) > 0 && r.IntN(3) == 0 {
				return values[r.IntN(len(values))]
			}
			return scalars[r.IntN(len(scalars))]
		case n < 7:
			a := make([]any, r.IntN(4))
			for i := range a {
				a[i] = build(depth + 1)
			}
			return a
		default:
			h := format.NewHash(3)
			for range r.IntN(4) {
				h.Set(scalars[r.IntN(len(scalars))], build(depth+1))
			}
			return h
		}
	}
	for range 40 {
		values = append(values, build(0))
	}
	// copyOf returns an equal value with new containers.
	var copyOf func(v any) any
	copyOf = func(v any) any {
		switch v := v.(type) {
		case []any:
			a := make([]any, len(v))
			for i := range v {
				a[i] = copyOf(v[i])
			}
			return a
		case *format.Hash:
			h := format.NewHash(v.Len())
			for k, x := range v.All() {
				h.Set(k, copyOf(x))
			}
			return h
		}
		return v
	}
	pick := func() any {
		v := values[r.IntN(len(values))]
		if r.IntN(4) == 0 {
			return copyOf(v)
		}
		return v
	}
	contribs := func() []format.Contribution {
		cs := make([]format.Contribution, r.IntN(3))
		for i := range cs {
			cs[i] = format.Contribution{Layer: format.Layer(r.IntN(3)), Level: r.IntN(3), Line: r.IntN(300), Value: pick()}
			if r.IntN(20) == 0 {
				cs[i] = format.Contribution{Err: &format.Error{Message: fmt.Sprint("e", r.IntN(3))}}
			}
		}
		return cs
	}
	var pool [][]format.Contribution
	for range 30 {
		pool = append(pool, contribs())
	}
	var out []*format.Bundle
	for i := range bundles {
		b := &format.Bundle{Node: fmt.Sprint("node", i)}
		for k := range keys {
			if r.IntN(5) == 0 {
				continue
			}
			key := format.Key{Name: fmt.Sprintf("k%03d", k), Value: pick()}
			switch r.IntN(3) {
			case 0:
				key.Contributions = pool[r.IntN(len(pool))]
			case 1:
				key.Contributions = contribs()
			}
			if r.IntN(4) == 0 {
				key.Defaults = pool[r.IntN(len(pool))]
			}
			if r.IntN(30) == 0 {
				key.Err = &format.Error{Message: "key error"}
			}
			b.Keys = append(b.Keys, key)
		}
		out = append(out, b)
	}
	return out
}

// TestEncoderRandomFleets compares the Encoder with the reference on
// random fleets, with and without colliding hashes and frequent forgetting.
func TestEncoderRandomFleets(t *testing.T) {
	for seed := range uint64(20) {
		bundles := randomFleet(seed, 30, 60)
		for _, cfg := range []struct {
			weak      bool
			max, once int
		}{{false, defaultMaxRemembered, maxOnce}, {true, defaultMaxRemembered, maxOnce}, {false, 300, maxOnce}, {false, defaultMaxRemembered, 5}} {
			e := NewEncoder()
			e.in.weakHash, e.maxRemembered, e.recs.maxOnce = cfg.weak, cfg.max, cfg.once
			for _, b := range bundles {
				encodeBoth(t, e, b)
			}
		}
	}
}

// TestEncoderPauses checks that an Encoder stops remembering contributions
// that no bundle shares, and still writes the same bytes.
func TestEncoderPauses(t *testing.T) {
	e := NewEncoder()
	paused := false
	for _, b := range fleet(40, 300, false) {
		encodeBoth(t, e, b)
		paused = paused || e.recs.pause > 0
	}
	if !paused {
		t.Error("the Encoder kept remembering contributions no bundle shares")
	}
}

// TestSharedFilesRemembered checks that the encoder of shared files
// remembers their records' contributions from the first file on (their
// values go to the global table), and never stops remembering them,
// even when no two files share a record: the files of a fleet's slices
// hold the same data files' values, which their next files meet again.
// Each file is the one a fresh encoder writes.
func TestSharedFilesRemembered(t *testing.T) {
	e := NewEncoder()
	for i, b := range fleet(40, 300, false) { // no record shared: each file new
		_, sd, err := e.AppendShared(nil, b, Protection{})
		if err != nil {
			t.Fatal(err)
		}
		_, fresh, err := EncodeShared(b, Protection{})
		if err != nil {
			t.Fatal(err)
		}
		if sd == nil || fresh == nil || sd.Digest != fresh.Digest || !bytes.Equal(sd.Data, fresh.Data) {
			t.Fatalf("bundle %d: the shared file differs from a fresh encoder's", i)
		}
		sub := e.share.sub
		if sub.recs.pause > 0 {
			t.Fatalf("bundle %d: the encoder of shared files stopped remembering contributions", i)
		}
		if i == 0 && sub.recs.twice == 0 {
			t.Error("the first shared file's records were not remembered")
		}
	}
}

// TestSubEncoderSharesTable checks that the encoder of shared files
// interns into the global table of the Encoder it writes them for
// (newSub): the records' values are there, for the bundles' views and
// values; that it never resets itself, which would clear a table the
// Encoder holds ids of (the Encoder resets both); and that the Encoder
// counts what it holds against its bound (tooMuch).
func TestSubEncoderSharesTable(t *testing.T) {
	e := NewEncoder()
	for i, b := range fleet(40, 300, false) { // each file new
		data, sd, err := e.AppendShared(nil, b, Protection{})
		if err != nil {
			t.Fatal(err)
		}
		want, fresh, err := EncodeShared(b, Protection{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, want) || sd == nil || fresh == nil || !bytes.Equal(sd.Data, fresh.Data) {
			t.Fatalf("bundle %d: the bundle or its shared file differs from a fresh encoder's", i)
		}
		if i > 0 {
			continue
		}
		strs := 0
		for _, r := range e.share.prevFile.keys {
			for _, c := range r.Contributions {
				if s, ok := c.Value.(string); ok {
					strs++
					if _, ok := e.in.glob.strs[s]; !ok {
						t.Fatalf("record %q: its contribution %q is not in the Encoder's table", r.Name, s)
					}
				}
			}
		}
		if strs == 0 {
			t.Fatal("no string in the shared file's records")
		}
		e.share.sub.maxRemembered = 1 // it would reset itself at every file
	}
	n := e.remembered() + len(e.share.sub.recs.recs)
	if e.maxRemembered = n; e.tooMuch() {
		t.Errorf("an Encoder holding %d things with its sub-encoder is too much for a bound of %d", n, n)
	}
	if e.maxRemembered = n - 1; !e.tooMuch() {
		t.Errorf("an Encoder holding %d things with its sub-encoder is not too much for a bound of %d", n, n-1)
	}
}

// evolve calls visit with n bundles, each made from the one before as a
// compiler of a fleet hands them to an Encoder: most keys the very Key of
// the bundle before (identical: the memo's case), others with another
// value, contributions (bound ones among them), defaults, error, merge,
// convert_to or asked, or a variant met bundles ago (the keyRecs' case);
// some keys gone, some back; the modules changed now and then. With
// reuse, each bundle's Keys are the memory of the one before's, rewritten
// (as compiler.Input.Emit's are).
func evolve(seed uint64, n, keys int, reuse bool, visit func(*format.Bundle)) {
	r := rand.New(rand.NewPCG(seed, 11))
	sources := randomFleet(seed, 6, keys) // variants of each key, met again and again
	variants := map[string][]format.Key{}
	var names []string
	for _, b := range sources {
		for _, k := range b.Keys {
			if variants[k.Name] == nil {
				names = append(names, k.Name)
			}
			variants[k.Name] = append(variants[k.Name], k)
		}
	}
	slices.Sort(names)
	mods := [2][]format.Module{
		{{Name: "m", Hierarchy: format.Hierarchy{Present: true, Levels: []format.Level{{Name: "c", Locations: []format.Location{{Path: "data/c.yaml", Exists: true, Original: "c.yaml"}}}}}}},
		{{Name: "m", Hierarchy: format.Hierarchy{Present: true, Levels: []format.Level{{Name: "c", Locations: []format.Location{{Path: "data/c.yaml", Exists: false, Original: "c.yaml"}}}}}}},
	}
	// change returns k with one thing changed.
	change := func(k format.Key, node int) format.Key {
		switch r.IntN(9) {
		case 0:
			k.Value = fmt.Sprint("value of node ", node)
		case 1: // a bound contribution: the node's own file, or interpolated
			cs := slices.Clone(k.Contributions)
			c := format.Contribution{Line: node, Value: fmt.Sprint("bound ", node), Bound: true}
			if r.IntN(2) == 0 && len(cs) > 0 {
				cs[r.IntN(len(cs))] = c
			} else {
				cs = append([]format.Contribution{c}, cs...)
			}
			if r.IntN(8) == 0 {
				cs[0].Value, cs[0].Err = nil, &format.Error{Message: fmt.Sprint("bound error ", node%3)}
			}
			k.Contributions = cs
		case 2:
			k.Defaults = slices.Clone(k.Contributions)
			if len(k.Defaults) > 0 && r.IntN(2) == 0 {
				k.Defaults[0].Bound = true
			}
		case 3:
			k.Err = &format.Error{Message: fmt.Sprint("error of node ", node%4)}
		case 4:
			x := r.IntN(3)
			if x != 0 {
				k.Merge = format.Merge{Strategy: format.MergeDeep, KnockoutPrefix: fmt.Sprint(node % 2)}
			}
			if x != 1 {
				k.MergeFrom = &format.OptionsEntry{Entry: k.Name, Pos: format.Pos{File: "data/c.yaml", Line: node % 3}, Level: "c"}
			}
		case 5:
			k.ConvertTo = []format.Value{"String"}
		case 6:
			a := format.Asked{Contributions: slices.Clone(k.Contributions)}
			if len(a.Contributions) > 0 {
				a.Contributions[0].Bound = r.IntN(2) == 0
			}
			k.Asked = []format.Asked{a, {Text: k.Name + ".x", Defaults: k.Defaults}}
		case 7:
			k.Secret = !k.Secret
		default:
			k.Contributions = slices.Clone(k.Contributions) // equal, not identical
		}
		return k
	}
	var prev, next []format.Key
	mod := 0
	for node := range n {
		byName := map[string]*format.Key{}
		for i := range prev {
			byName[prev[i].Name] = &prev[i]
		}
		next = next[:0]
		// A quiet bundle has the keys of the last one but for a few
		// bound contributions (the same records) and one edit: a key
		// changed, or one gone and another back.
		quiet := r.IntN(2) == 0
		edit, gone, back := -1, -1, -1
		if r.IntN(2) == 0 {
			edit = r.IntN(len(names))
		}
		var missing []int
		for x, name := range names {
			if byName[name] == nil {
				missing = append(missing, x)
			}
		}
		switch x := r.IntN(6); {
		case x == 0 && len(missing) > 0:
			gone, back = r.IntN(len(names)), missing[r.IntN(len(missing))]
		case x == 1:
			gone = len(names) - 1 - r.IntN(3) // near the end: one record fewer
		}
		for x, name := range names {
			old := byName[name]
			vs := variants[name]
			switch y := r.IntN(40); {
			case quiet && old == nil:
				if x == back {
					next = append(next, vs[r.IntN(len(vs))])
				}
			case quiet && x == edit && old != nil:
				next = append(next, change(*old, node))
			case quiet && x == gone && old != nil:
			case quiet && y < 3:
				k := *old // a bound contribution more: the same record
				k.Contributions = append([]format.Contribution{{Value: fmt.Sprint("bound ", node), Bound: true}}, k.Contributions...)
				next = append(next, k)
			case quiet:
				next = append(next, *old)
			case y == 0 && old != nil: // gone
			case old != nil && y < 30:
				next = append(next, *old) // identical
			case old != nil && y < 34:
				next = append(next, change(*old, node))
			case y < 37:
				next = append(next, vs[r.IntN(len(vs))])
			default:
				next = append(next, change(vs[r.IntN(len(vs))], node))
			}
		}
		if r.IntN(6) == 0 {
			mod = 1 - mod
		}
		b := &format.Bundle{Node: fmt.Sprint("node", node), Modules: mods[mod]}
		if reuse {
			// The last bundle's memory, rewritten.
			prev = append(prev[:0], next...)
			b.Keys = prev
		} else {
			prev = slices.Clone(next)
			b.Keys = prev
		}
		visit(b)
	}
}

// TestEncoderEvolvingFleets compares the Encoder with the reference, and
// its shared files with a fresh encoder's, on bundles that share keys
// with the bundle before them by identity (see evolve), with and without
// colliding hashes, frequent forgetting, and Keys memory reused.
func TestEncoderEvolvingFleets(t *testing.T) {
	for seed := range uint64(6) {
		for _, cfg := range []struct {
			weak, reuse bool
			max, once   int
		}{{false, false, defaultMaxRemembered, maxOnce}, {false, true, defaultMaxRemembered, maxOnce},
			{true, true, defaultMaxRemembered, maxOnce}, {false, true, 300, maxOnce}, {false, false, defaultMaxRemembered, 5}} {
			e, es := NewEncoder(), NewEncoder()
			for _, x := range []*Encoder{e, es} {
				x.in.weakHash, x.maxRemembered, x.recs.maxOnce = cfg.weak, cfg.max, cfg.once
			}
			evolve(seed, 40, 50, cfg.reuse, func(b *format.Bundle) {
				encodeBoth(t, e, b)
				got, gsd, gerr := es.AppendShared(nil, b, Protection{})
				want, wsd, werr := EncodeShared(b, Protection{})
				if fmt.Sprint(gerr) != fmt.Sprint(werr) || !bytes.Equal(got, want) {
					t.Fatalf("seed %d %+v, %s: AppendShared's bundle differs from a fresh encoder's (%v, %v)", seed, cfg, b.Node, gerr, werr)
				}
				if (gsd == nil) != (wsd == nil) || gsd != nil && (gsd.Digest != wsd.Digest || !bytes.Equal(gsd.Data, wsd.Data)) {
					t.Fatalf("seed %d %+v, %s: AppendShared's shared file differs from a fresh encoder's", seed, cfg, b.Node)
				}
				if gerr == nil && gsd != nil {
					// Read back with its shared file (a value table that
					// starts with the file's view), it is b.
					if d, err := decodeShared(got, gsd.Data); err != nil {
						t.Fatalf("seed %d %+v, %s: %v", seed, cfg, b.Node, err)
					} else if x, y := refEncodeOrErr(b), refEncodeOrErr(d); x != y {
						t.Fatalf("seed %d %+v, %s: AppendShared's bundle decodes to another bundle", seed, cfg, b.Node)
					}
				}
			})
		}
	}
}

// TestEncoderMemoKeepsOrder checks that keys identical to the last
// bundle's, or named as its keys, are still refused out of order or
// twice.
func TestEncoderMemoKeepsOrder(t *testing.T) {
	a := &format.Bundle{Keys: []format.Key{{Name: "a", Value: "x"}, {Name: "b", Value: "y"}, {Name: "c", Value: "z"}}}
	b := &format.Bundle{Keys: a.Keys[1:]}
	for _, c := range []struct {
		last *format.Bundle
		keys []format.Key
	}{
		{b, []format.Key{{Name: "b", Value: "other"}, b.Keys[0]}}, // the same name twice, the second the last bundle's first
		{a, []format.Key{{Name: "b", Value: "other"}, a.Keys[1]}},
		{a, []format.Key{a.Keys[0], a.Keys[0]}},
		{a, []format.Key{a.Keys[1], a.Keys[0]}},
		{a, []format.Key{a.Keys[0], a.Keys[2], a.Keys[1]}},
		// Keys named as the last bundle's, not identical.
		{a, []format.Key{{Name: "b", Value: "other"}, {Name: "a", Value: "other"}}},
		{a, []format.Key{{Name: "a", Value: "other"}, {Name: "c", Value: "other"}, {Name: "b", Value: "other"}}},
		{a, []format.Key{{Name: "b", Value: "other"}, {Name: "b", Value: "another"}}},
	} {
		e := NewEncoder()
		if _, err := e.Encode(c.last); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Encode(&format.Bundle{Keys: c.keys}); err == nil || !strings.Contains(err.Error(), "not sorted and unique") {
			t.Errorf("keys %v: error %v, want not sorted and unique", c.keys, err)
		}
	}
}

// TestEncoderMemoFinds checks that the memo finds the keys identical to
// the last bundle's, and that after a bundle that found few it searches
// only the first keys of one whose first keys are not found either.
func TestEncoderMemoFinds(t *testing.T) {
	b := fleet(1, 300, false)[0]
	e := NewEncoder()
	if _, err := e.Encode(b); err != nil {
		t.Fatal(err)
	}
	same := &format.Bundle{Node: "same", Keys: slices.Clone(b.Keys)}
	if _, err := e.Encode(same); err != nil {
		t.Fatal(err)
	}
	if e.mem.priorHits != len(b.Keys) {
		t.Errorf("a bundle of the last bundle's keys found %d of %d", e.mem.priorHits, len(b.Keys))
	}
	other := func() *format.Bundle {
		o := &format.Bundle{Node: "other", Keys: slices.Clone(b.Keys)}
		for i := range o.Keys {
			o.Keys[i].Contributions = slices.Clone(o.Keys[i].Contributions)
		}
		return o
	}
	for range 2 {
		if _, err := e.Encode(other()); err != nil {
			t.Fatal(err)
		}
		if e.mem.priorHits != 0 {
			t.Errorf("a bundle of other keys found %d", e.mem.priorHits)
		}
	}
	searched := 0
	for _, m := range e.keyRecs {
		if m.named >= 0 {
			searched++
		}
	}
	if searched != probeKeys {
		t.Errorf("after a bundle that found none, %d keys were searched, want %d", searched, probeKeys)
	}
}

// TestEncoderStringsShareMemory checks that strings starting at the same
// address but of different lengths (a string and its prefix) keep their
// own ids: the cache of global strings by their memory must tell them
// apart.
func TestEncoderStringsShareMemory(t *testing.T) {
	s := strings.Repeat("abcdef", 2)
	long, short := s[:6], s[:3]
	e := NewEncoder()
	for _, v := range []string{long, long, short, long, short} {
		// A value built anew each time, as an interpolated one: its
		// strings met in two bundles go to the global table (and the
		// cache).
		encodeBoth(t, e, &format.Bundle{Node: "n", Keys: []format.Key{{Name: "k", Value: []any{v, "x"}}, {Name: "l", Value: v}}})
	}
}

// TestEncoderBoundKeysNotRemembered checks that AppendShared does not
// remember the variant of a key with a bound contribution (one node's,
// never met again) among the keyRecs, and remembers the others'.
func TestEncoderBoundKeysNotRemembered(t *testing.T) {
	e := NewEncoder()
	shared := []format.Contribution{{Line: 1, Value: "shared"}}
	for node := range 4 {
		bound := []format.Contribution{{Line: 2, Value: fmt.Sprint("bound ", node), Bound: true}}
		b := &format.Bundle{Node: fmt.Sprint("node", node), Keys: []format.Key{
			{Name: "a", Value: bound[0].Value, Contributions: bound},
			{Name: "b", Value: "shared", Contributions: shared},
		}}
		if _, _, err := e.AppendShared(nil, b, Protection{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(e.recs.recs); n != 1 {
		t.Errorf("%d variants remembered, want 1 (the unbound key's)", n)
	}
}

// TestEncoderBoundValuesLikeLast checks AppendShared against a fresh
// encoder on bundles whose keys' values and bound contributions are built
// anew for each node from one template (as interpolating a node's name in
// a data file's value does): the same children, by identity, but for the
// node's strings and the containers holding them, nested. The encoder
// takes the ids of the children they share with the last bundle's values
// of the key (internLike, appendKids). Templates change now and then,
// and sometimes a value is the last bundle's, the key's own, or an error.
func TestEncoderBoundValuesLikeLast(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 12))
		// Children met again and again, by identity.
		inner := format.NewHash(2)
		inner.Set("x", []any{"a", "b"})
		inner.Set("y", "z")
		pool := []any{"name", "port", int64(80), []any{"a", "b"}, "ensure", "present", 2.5, true, nil, inner}
		// build makes the value of template (key, variant) for node.
		build := func(key string, variant, node int) any {
			kr := rand.New(rand.NewPCG(seed, uint64(len(key))<<8|uint64(key[0])<<16|uint64(variant)))
			var mk func(depth int) any
			mk = func(depth int) any {
				switch x := kr.IntN(7); {
				case depth < 3 && x < 3:
					n := 1 + kr.IntN(4)
					h := format.NewHash(n)
					for i := range n {
						h.Set(fmt.Sprint("k", i), mk(depth+1))
					}
					return h
				case depth < 3 && x == 3:
					a := make([]any, 1+kr.IntN(3))
					for i := range a {
						a[i] = mk(depth + 1)
					}
					return a
				case x == 4:
					return fmt.Sprint("host", node)
				default:
					return pool[kr.IntN(len(pool))]
				}
			}
			return mk(0)
		}
		variant := func() int {
			if r.IntN(8) == 0 {
				return 1
			}
			return 0
		}
		shared := []format.Contribution{{Line: 1, Value: "shared"}}
		last := map[string]any{}
		e := NewEncoder()
		for node := range 30 {
			var keys []format.Key
			for _, name := range []string{"a", "b", "c", "d", "e"} {
				v := last[name]
				switch x := r.IntN(8); {
				case v == nil || x < 5:
					v = build(name, variant(), node)
				case x < 7: // the last bundle's very value
				default:
					v = pool[r.IntN(len(pool))]
				}
				last[name] = v
				own := build(name+"v", variant(), node)
				if r.IntN(6) == 0 { // the key's own value
					own = v
				}
				bound := []format.Contribution{{Line: 2, Value: v, Bound: true}}
				if r.IntN(10) == 0 {
					bound[0].Value, bound[0].Err = nil, &format.Error{Message: "bound error"}
				}
				for x := range r.IntN(3) { // more bound contributions
					bound = append(bound, format.Contribution{Line: 3 + x, Value: build(fmt.Sprint(name, x), variant(), node), Bound: true})
				}
				keys = append(keys, format.Key{Name: name, Value: own, Contributions: append(bound, shared...)})
			}
			b := &format.Bundle{Node: fmt.Sprint("node", node), Keys: keys}
			got, gsd, gerr := e.AppendShared(nil, b, Protection{})
			want, wsd, werr := EncodeShared(b, Protection{})
			if gerr != nil || werr != nil || !bytes.Equal(got, want) {
				t.Fatalf("seed %d, %s: AppendShared's bundle differs from a fresh encoder's (%v, %v)", seed, b.Node, gerr, werr)
			}
			if (gsd == nil) != (wsd == nil) || gsd != nil && gsd.Digest != wsd.Digest {
				t.Fatalf("seed %d, %s: AppendShared's shared file differs from a fresh encoder's", seed, b.Node)
			}
		}
	}
}

// TestEncoderKeepsBoundKids checks what an Encoder keeps of a bundle's
// bound values for the next (keepBoundKids, appendKids): walked with
// likeBound.next, each bound contribution gives its own value and the ids
// of its children, the local containers among them referring to lists of
// their own children in the tree, nested.
func TestEncoderKeepsBoundKids(t *testing.T) {
	node := func(n int) *format.Bundle {
		host := fmt.Sprint("host", n) // a local string: its containers are local
		nested := format.NewHash(2)
		nested.Set("name", host)
		nested.Set("list", []any{"a", host, []any{host}})
		h := format.NewHash(3)
		h.Set("ensure", "present")
		h.Set("nested", nested)
		h.Set("port", int64(80))
		bound := []format.Contribution{
			{Line: 1, Value: h, Bound: true},
			{Line: 2, Value: "scalar", Bound: true},
			{Line: 3, Err: &format.Error{Message: "error"}, Bound: true},
			{Line: 4, Value: "unbound"},
			{Line: 5, Value: []any{host, nested, "b"}, Bound: true},
		}
		return &format.Bundle{Node: fmt.Sprint("node", n), Keys: []format.Key{{Name: "k", Value: "own", Contributions: bound}}}
	}
	e := NewEncoder()
	for n := range 2 {
		b := node(n)
		if _, _, err := e.AppendShared(nil, b, Protection{}); err != nil {
			t.Fatal(err)
		}
		// The next bundle's view of this one's key (keepPrior made it the
		// last bundle's).
		like := e.mem.likeBound(0)
		var check func(path string, v any, kids []int32)
		check = func(path string, v any, kids []int32) {
			var children []any
			switch x := v.(type) {
			case *format.Hash:
				for i := range x.Len() {
					children = append(children, x.Key(i), x.Value(i))
				}
			case []any:
				children = x
			}
			if len(kids) != len(children) {
				t.Fatalf("node %d, %s: %d ids for %d children", n, path, len(kids), len(children))
			}
			for i, c := range children {
				switch id := kids[i]; {
				case id <= -2:
					check(fmt.Sprint(path, ".", i), c, subList(e.mem.lastBound, id))
				case id >= 0:
					if want, err := e.in.intern(c, 0, false); err != nil || want != id {
						t.Fatalf("node %d, %s.%d: id %d, want %d (%v)", n, path, i, id, want, err)
					}
				}
			}
		}
		for j, c := range b.Keys[0].Contributions {
			if !c.Bound {
				continue
			}
			v, kids, ok := like.next()
			if !ok || !sameIface(v, c.Value) {
				t.Fatalf("node %d: bound contribution %d: next gave %v, %v", n, j, v, ok)
			}
			check(fmt.Sprint("contribution ", j), v, kids)
		}
		if _, _, ok := like.next(); ok {
			t.Fatalf("node %d: next gave more than the bound contributions", n)
		}
	}
}

// TestRememberOverwrites checks that a memo entry written over an old one
// (remember reuses the memo's buffer) keeps nothing of it.
func TestRememberOverwrites(t *testing.T) {
	e := NewEncoder()
	k := &format.Key{Name: "k", Value: "v", Contributions: []format.Contribution{{Value: "v"}}}
	buf := make([]priorKey, 1, 2)
	buf[0] = priorKey{name: "old", value: int64(1), contribs: &format.Contribution{}, priorFound: priorFound{
		nc: 7, more: 7, valueID: 7, rec: 7, record: 7, bound: 7, usable: true,
		nameAt: 7, nameLen: 7, kidsAt: 7, kidsN: 7, boundAt: 7, boundN: 7,
	}}
	got := e.mem.remember(buf[:0], k, -1)
	want := priorKey{name: "k", value: "v", contribs: &k.Contributions[0], priorFound: priorFound{nc: 1, more: -1, valueID: -1, rec: -1, record: -1}}
	if len(got) != 1 || got[0] != want {
		t.Errorf("remember wrote %+v over an old entry, want %+v", got, want)
	}
	// Over the same key's entry (its pointers left as they are).
	buf[0].priorFound = priorFound{nc: 7, more: 7, valueID: 7, rec: 7, record: 7, bound: 7, usable: true}
	if got := e.mem.remember(buf[:0], k, -1); len(got) != 1 || got[0] != want {
		t.Errorf("remember wrote %+v over the same key's old entry, want %+v", got, want)
	}
	// A key that is not plain: its copy over an old one, other then the same.
	s := &format.Key{Name: "s", Value: "v", Secret: true}
	e.mem.more = append(e.mem.more[:0], format.Key{Name: "old", Value: int64(1), Contributions: k.Contributions})[:0]
	for range 2 {
		got := e.mem.remember(buf[:0], s, -1)
		if len(got) != 1 || got[0].more != 0 || len(e.mem.more) != 1 || !identical(&e.mem.more[0], s) {
			t.Fatalf("remember kept %+v (more %d) of a key that is not plain, want %+v", e.mem.more, got[0].more, *s)
		}
		e.mem.more = e.mem.more[:0]
	}
}

// TestMemoOfIdenticalKeys checks that an Encoder given the same bundle
// again and again remembers the same of its keys each time: what it found
// for a key identical to the last bundle's, written as the key is first
// read, is what it finds for a key met anew (its value's node id, its
// keyRec, its shared-file record, its names and children's places).
func TestMemoOfIdenticalKeys(t *testing.T) {
	b := fleet(2, 400, true)[1]
	e := NewEncoder()
	var first []priorFound
	for round := range 4 {
		if _, _, err := e.AppendShared(nil, b, Protection{}); err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			continue // its keys' variants were met once: no keyRec yet
		}
		if e.mem.priorHits != len(b.Keys) {
			t.Fatalf("round %d: %d keys of %d found identical to the last bundle's", round, e.mem.priorHits, len(b.Keys))
		}
		var found []priorFound
		global := 0
		for _, p := range e.mem.prior {
			found = append(found, p.priorFound)
			if p.valueID >= 0 {
				global++
			}
		}
		if global == 0 {
			t.Fatalf("round %d: no key's value is in the global table", round)
		}
		if first == nil {
			first = found
			continue
		}
		for i := range max(len(first), len(found)) {
			if i >= len(first) || i >= len(found) {
				t.Fatalf("round %d: %d keys remembered, round 1 %d", round, len(found), len(first))
			}
			if first[i] != found[i] {
				t.Fatalf("round %d: key %d: remembered %+v, round 1 %+v", round, i, found[i], first[i])
			}
		}
	}
}

// TestEncoderNodeStrings checks the strings of a value built anew for
// each node that are not the last bundle's at their place (internNodeString):
// the node's own, met again in its bundle, and one whose text is a
// string of the global table, which must keep its id there (the value
// table holds each value once).
func TestEncoderNodeStrings(t *testing.T) {
	e := NewEncoder()
	for node := range 6 {
		host := fmt.Sprint("host", node)
		own := strings.Clone(host)
		if node >= 3 {
			// Built for the node, its text that of a global string.
			own = strings.Clone("common")
		}
		b := &format.Bundle{Node: host, Keys: []format.Key{
			{Name: "a", Value: "common"}, // met in every bundle: global
			{Name: "k", Value: []any{own, "x", []any{strings.Clone(host), "y"}}},
			{Name: "l", Value: []any{strings.Clone(host), strings.Clone(own)}},
		}}
		encodeBoth(t, e, b)
	}
}

// decodeShared decodes a bundle with its shared details file.
func decodeShared(data, shared []byte) (*format.Bundle, error) {
	x, err := format.DecodeIndex(data)
	if err != nil {
		return nil, err
	}
	if err := x.AttachShared(shared); err != nil {
		return nil, err
	}
	return x.Bundle()
}

// refEncodeOrErr is the reference encoding of b, or its error, as a
// string to compare.
func refEncodeOrErr(b *format.Bundle) string {
	data, err := refEncode(b)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(data)
}

// TestKeyMemoSize checks that a keyMemo, read by every pass over a
// bundle's keys, still takes 32 bytes: two a cache line (encode.go).
func TestKeyMemoSize(t *testing.T) {
	if n := unsafe.Sizeof(keyMemo{}); n != 32 {
		t.Errorf("a keyMemo takes %d bytes, want 32", n)
	}
}

// TestEncoderNamedValue checks keys that are not the last bundle's (their
// contributions are new) but whose value may be the last bundle's value
// of the key of the same name (namedValue): the very value, an equal
// scalar in new memory, a slice of the same array but shorter, an equal
// container built anew, or another value; with and without a shared
// file, the value met in one bundle (local) or more (global).
func TestEncoderNamedValue(t *testing.T) {
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 13))
		inner := format.NewHash(1)
		inner.Set("x", "y")
		fresh := func() any {
			switch r.IntN(9) {
			case 0:
				return strings.Clone("common")
			case 1:
				return int64(r.IntN(3))
			case 2:
				return []any{"a", strings.Clone("b"), inner}
			case 3:
				h := format.NewHash(2)
				h.Set("x", "y")
				h.Set(strings.Clone("k"), []any{int64(1), "a"})
				return h
			case 4:
				return nil
			case 5:
				return []any{}
			case 6:
				return 1.5
			case 7:
				return inner
			}
			return fmt.Sprint("v", r.IntN(4))
		}
		for _, shared := range []bool{false, true} {
			e := NewEncoder()
			last := map[string]any{}
			for node := range 40 {
				var keys []format.Key
				for _, name := range []string{"a", "b", "c", "d"} {
					v, ok := last[name]
					switch x := r.IntN(10); {
					case !ok || x < 3:
						v = fresh()
					case x < 7: // the last bundle's very value
					case x == 7: // equal, in new memory, if a string
						if s, ok := v.(string); ok {
							v = strings.Clone(s)
						}
					default: // the same array, shorter
						if a, ok := v.([]any); ok && len(a) > 1 {
							v = a[:len(a)-1]
						}
					}
					last[name] = v
					// New contributions: the key is not the last bundle's.
					cs := []format.Contribution{{Line: 1 + r.IntN(2), Value: v, Bound: r.IntN(3) == 0}, {Line: 9, Value: "other"}}
					k := format.Key{Name: name, Value: v, Contributions: cs}
					if r.IntN(12) == 0 {
						k.Value, k.Err = nil, &format.Error{Message: "key error"}
					}
					keys = append(keys, k)
				}
				b := &format.Bundle{Node: fmt.Sprint("node", node), Keys: keys}
				if !shared {
					encodeBoth(t, e, b)
					continue
				}
				got, gsd, gerr := e.AppendShared(nil, b, Protection{})
				want, wsd, werr := EncodeShared(b, Protection{})
				if gerr != nil || werr != nil || !bytes.Equal(got, want) {
					t.Fatalf("seed %d, %s: AppendShared's bundle differs from a fresh encoder's (%v, %v)", seed, b.Node, gerr, werr)
				}
				if (gsd == nil) != (wsd == nil) || gsd != nil && gsd.Digest != wsd.Digest {
					t.Fatalf("seed %d, %s: AppendShared's shared file differs from a fresh encoder's", seed, b.Node)
				}
			}
		}
	}
}
