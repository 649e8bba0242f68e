package bundlediff

// Stage: diff two values down to the paths where they differ.

import (
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
	"github.com/hieracc/hieracc/runtime/render"
)

// valueDiff is one difference between two values, at path (unescaped
// JSON Pointer tokens).
type valueDiff struct {
	path             []string
	kind             Kind
	old, new         any
	hasOld, hasNew   bool
	oldKeys, newKeys []any // Reordered only
}

// maxLCS bounds the table of the longest-common-subsequence match of two
// arrays (cells); larger arrays are compared element by element.
const maxLCS = 1 << 22

// diffValues appends the differences between a and b, found at path.
func diffValues(path []string, a, b any, out *[]valueDiff) {
	if ruby.KindName(a) != ruby.KindName(b) {
		*out = append(*out, valueDiff{path: path, kind: TypeChanged, old: a, new: b, hasOld: true, hasNew: true})
		return
	}
	switch a := a.(type) {
	case *format.Hash:
		diffHashes(path, a, b.(*format.Hash), out)
	case []any:
		diffArrays(path, a, b.([]any), out)
	default:
		if !format.Equal(a, b) {
			*out = append(*out, valueDiff{path: path, kind: Changed, old: a, new: b, hasOld: true, hasNew: true})
		}
	}
}

// child is path with one more token, never sharing path's backing array:
// siblings must not overwrite each other's paths.
func child(path []string, tok string) []string {
	return append(path[:len(path):len(path)], tok)
}

func diffHashes(path []string, a, b *format.Hash, out *[]valueDiff) {
	// Key order first: users see it (Puppet keeps it), so the same entries
	// in another order are a change of their own.
	var ca, cb []any
	for _, k := range a.Keys() {
		if b.Has(k) {
			ca = append(ca, k)
		}
	}
	for _, k := range b.Keys() {
		if a.Has(k) {
			cb = append(cb, k)
		}
	}
	for i := range ca {
		if ca[i] != cb[i] {
			*out = append(*out, valueDiff{path: path, kind: Reordered, old: a, new: b, hasOld: true, hasNew: true,
				oldKeys: a.Keys(), newKeys: b.Keys()})
			break
		}
	}
	for i := range a.Len() {
		if k := a.Key(i); !b.Has(k) {
			*out = append(*out, valueDiff{path: child(path, keyToken(k)), kind: Removed, old: a.Value(i), hasOld: true})
		}
	}
	for i := range b.Len() {
		k := b.Key(i)
		if av, ok := a.Get(k); ok {
			diffValues(child(path, keyToken(k)), av, b.Value(i), out)
		} else {
			*out = append(*out, valueDiff{path: child(path, keyToken(k)), kind: Added, new: b.Value(i), hasNew: true})
		}
	}
}

// diffArrays matches the elements the two arrays have in common (a longest
// common subsequence), so that inserting one element reports one addition,
// not a change of every element after it. Between matches, removed and
// added elements are paired as changes of one element and compared
// further (a record in a list whose one field changed); the rest are
// removals (OLD's index) and additions (NEW's index).
func diffArrays(path []string, a, b []any, out *[]valueDiff) {
	pre := 0
	for pre < len(a) && pre < len(b) && format.Identical(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && format.Identical(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	i, j := 0, 0
	for _, m := range lcs(am, bm) {
		hunk(path, pre, am, bm, i, m[0], j, m[1], out)
		i, j = m[0]+1, m[1]+1
	}
	hunk(path, pre, am, bm, i, len(am), j, len(bm), out)
}

// hunk reports am[i0:i1] replaced by bm[j0:j1]; off is the index of am[0]
// and bm[0] in the whole arrays.
func hunk(path []string, off int, am, bm []any, i0, i1, j0, j1 int, out *[]valueDiff) {
	for ; i0 < i1 && j0 < j1; i0, j0 = i0+1, j0+1 {
		diffValues(child(path, strconv.Itoa(off+j0)), am[i0], bm[j0], out)
	}
	for ; i0 < i1; i0++ {
		*out = append(*out, valueDiff{path: child(path, strconv.Itoa(off+i0)), kind: Removed, old: am[i0], hasOld: true})
	}
	for ; j0 < j1; j0++ {
		*out = append(*out, valueDiff{path: child(path, strconv.Itoa(off+j0)), kind: Added, new: bm[j0], hasNew: true})
	}
}

// lcs returns the index pairs of a longest common subsequence of a and b
// (elements Identical), in order. Arrays too large for the table match
// nothing: every element is then paired with the one at its index.
func lcs(a, b []any) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 || n*m > maxLCS {
		return nil
	}
	// t[i][j] is the length of an LCS of a[i:] and b[j:].
	w := m + 1
	t := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if format.Identical(a[i], b[j]) {
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			} else {
				t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case t[i*w+j] == t[(i+1)*w+j+1]+1 && format.Identical(a[i], b[j]):
			out = append(out, [2]int{i, j})
			i, j = i+1, j+1
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// keyToken is a hash key as a pointer token: the string itself, or for
// another scalar its Ruby to_s (1, 1.5, true; nil is ""), as Puppet's JSON
// names keys. An Integer key 1 and a String key "1" thus share a token.
func keyToken(k any) string {
	if s, ok := k.(string); ok {
		return s
	}
	out, err := render.As(k, render.Text)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(out), "\n")
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointer joins tokens into a JSON Pointer (RFC 6901): "" for the whole
// value, else "/" before each token, with "~" and "/" escaped.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		pointerEscaper.WriteString(&b, t)
	}
	return b.String()
}
