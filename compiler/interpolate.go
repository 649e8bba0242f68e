package compiler

// Stage: interpolation of %{...} expressions, in hierarchy paths and in data
// (Puppet's Lookup::Interpolation).

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/internal/share"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
	"github.com/hieracc/hieracc/format/ruby"
)

var methodCall = regexp.MustCompile(`^(\w+)\((?:"([^"]+)"|'([^']+)')\)$`)

// nextExpr finds the next %{...} at or after i, as Puppet's /%\{([^}]*)\}/
// does: the expression ends at the first "}". It returns the match bounds,
// or start -1. An unclosed "%{" is left as text.
func nextExpr(s string, i int) (start, end int) {
	j := strings.Index(s[i:], "%{")
	if j < 0 {
		return -1, -1
	}
	start = i + j
	k := strings.IndexByte(s[start+2:], '}')
	if k < 0 {
		return -1, -1
	}
	return start, start + 2 + k + 1
}

// emptyInterpolations are expressions Puppet replaces by "" without looking
// anything up.
var emptyInterpolations = map[string]bool{"": true, "::": true, `""`: true, "''": true, `"::"`: true, "'::'": true}

const errAliasNotEntire = "'alias' interpolation is only permitted if the expression is equal to the entire string"

// errMethodsNotAllowed is Puppet's message for lookup()/alias()/... in hiera.yaml.
const errMethodsNotAllowed = "Interpolation using method syntax is not allowed in this context"

// needsInterpolation reports whether v holds any "%{" that interpolation
// would act on (in strings or in hash keys below the top level).
func needsInterpolation(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, "%{")
	case []any:
		for _, e := range v {
			if needsInterpolation(e) {
				return true
			}
		}
	case *format.Hash:
		for k, e := range v.All() {
			if needsInterpolation(k) || needsInterpolation(e) {
				return true
			}
		}
	}
	return false
}

// interpolate resolves every %{...} in v for node n. Values without any are
// returned as they are (shared, never copied); values are never mutated.
func (ip *interpolator) interpolate(v any, allowMethods bool) (any, error) {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "%{") {
			return v, nil // v, not x: boxing x again would allocate
		}
		return ip.interpolateString(x, allowMethods)
	case []any:
		if !needsInterpolation(x) {
			return v, nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			x, err := ip.interpolate(e, allowMethods)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case *format.Hash:
		if !needsInterpolation(x) {
			return v, nil
		}
		if !slices.ContainsFunc(x.Keys(), keyInterpolates) {
			// The keys stay as they are, so they stay distinct.
			h, err := x.Remap(func(_ int, e any) (any, error) {
				return ip.interpolate(e, allowMethods)
			})
			if err != nil {
				return nil, err // not a nil *Hash in a non-nil any
			}
			return h, nil
		}
		out := format.NewHash(x.Len())
		for k, e := range x.All() {
			// Keys of nested hashes are interpolated too (top-level keys of a
			// data file are not: they never pass through here).
			if keyInterpolates(k) {
				ks := k.(string)
				x, err := ip.interpolateString(ks, allowMethods)
				if err != nil {
					return nil, err
				}
				k = hashKey(x)
			}
			x, err := ip.interpolate(e, allowMethods)
			if err != nil {
				return nil, err
			}
			out.Set(k, x)
		}
		return out, nil
	}
	return v, nil
}

// keyInterpolates reports whether interpolation acts on the hash key k.
func keyInterpolates(k any) bool {
	ks, ok := k.(string)
	return ok && strings.Contains(ks, "%{")
}

// interpolator interpolates %{...} for a node: in hierarchy paths and in
// the data its lookups read. It reads the node's scope and makes nested
// lookups through n.
type interpolator struct {
	n *nodeRun
	// local is mapped_paths' per-element variable.
	local map[string]any
	// scopeMemo holds the value of each variable expression read so far.
	scopeMemo map[string]any
	// at is what is being interpolated, for the position of warnings.
	at site
	// aliases counts the alias() results of a collection interpolated.
	aliases int
	// globText: interpolation is building a glob pattern, and escapes
	// the text it inserts (see interpolatePath).
	globText bool
	// hide > 0 while interpolating text decrypted from ENC[...]: its
	// messages write hiera.Redacted for what they would quote of it (a
	// variable's name, a key, the text itself).
	hide int
}

// interpPlan says where in a data file's value interpolation acts, found
// once when the file is loaded, so that nodes do not search the value for
// "%{" again: a nil plan means nowhere. A string's plan has neither keys
// nor kids.
type interpPlan struct {
	keys []bool        // hash: whether key i holds "%{" (nil if none does)
	kids []*interpPlan // container: element (hash: value) i's plan
	// exprs are a string's %{...} (see scanExprs); nil for a string whose
	// "%{" is never closed.
	exprs []interpExpr
	// node: interpolating here may read what is the node's alone (see
	// nodeExpr): the string, or a key or value below.
	node bool
	// nodeKids are the positions of the kids that read what is the
	// node's alone (readsNode), in order: all that rebind rebuilds.
	nodeKids []int32
}

// planFor returns the plan of v; what it marks is exactly what interpolate
// acts on.
func planFor(v any) *interpPlan {
	switch v := v.(type) {
	case string:
		if strings.Contains(v, "%{") {
			return &interpPlan{exprs: scanExprs(nil, v, nil), node: stringReadsNode(v)}
		}
	case []any:
		var p *interpPlan
		for i, e := range v {
			if kp := planFor(e); kp != nil {
				if p == nil {
					p = &interpPlan{kids: make([]*interpPlan, len(v))}
				}
				p.kids[i] = kp
				p.node = p.node || kp.node
			}
		}
		return p.withNodeKids()
	case *format.Hash:
		var p *interpPlan
		i := 0
		for k, e := range v.All() {
			ks, _ := k.(string)
			key, kp := strings.Contains(ks, "%{"), planFor(e)
			if key || kp != nil {
				if p == nil {
					p = &interpPlan{keys: make([]bool, v.Len()), kids: make([]*interpPlan, v.Len())}
				}
				p.keys[i], p.kids[i] = key, kp
				p.node = p.node || key && stringReadsNode(ks) || kp != nil && kp.node
			}
			i++
		}
		return p.withNodeKids()
	}
	return nil
}

// withNodeKids sets a container's plan's nodeKids; it returns p.
func (p *interpPlan) withNodeKids() *interpPlan {
	if p == nil {
		return nil
	}
	for i, kp := range p.kids {
		if kp.readsNode() {
			p.nodeKids = append(p.nodeKids, int32(i))
		}
	}
	return p
}

// readsNode reports whether interpolating the value whose plan is p may
// read what is the node's alone (see nodeExpr): then a contribution of
// it is bound (format.Contribution.Bound). Interpolations of other facts
// (role, datacenter, domain) read what the node's neighbours share.
func (p *interpPlan) readsNode() bool { return p != nil && p.node }

// stringReadsNode reports whether interpolating s may read what is the
// node's alone.
func stringReadsNode(s string) bool {
	for start, end := nextExpr(s, 0); start >= 0; start, end = nextExpr(s, end) {
		if nodeExpr(s[start+2 : end-1]) {
			return true
		}
	}
	return false
}

// nodeExpr reports whether the interpolation expression expr (the text
// between "%{" and "}") may read what is the node's alone: its certname
// or host name (trusted.certname, trusted.hostname, clientcert, certname,
// fqdn, hostname, networking.fqdn, networking.hostname, as facts or
// top-scope variables, or anything below them), or anything through a
// method (lookup(), alias(), hiera(), scope(): the key or variable it
// reads may be the node's).
func nodeExpr(expr string) bool {
	e := strings.TrimSpace(expr)
	if strings.ContainsRune(e, '(') {
		return !strings.HasPrefix(e, "literal(")
	}
	e = strings.TrimPrefix(e, "::")
	e = strings.TrimPrefix(e, "facts.")
	for _, v := range [...]string{"trusted.certname", "trusted.hostname", "clientcert", "certname", "fqdn", "hostname", "networking.fqdn", "networking.hostname"} {
		if e == v || strings.HasPrefix(e, v+".") {
			return true
		}
	}
	return false
}

// interpolatePlanned is interpolate for a value whose plan is known.
func (ip *interpolator) interpolatePlanned(v any, p *interpPlan, allowMethods bool) (any, error) {
	if p == nil {
		return v, nil
	}
	switch v := v.(type) {
	case string:
		return ip.interpolateExprs(v, p.exprs, allowMethods)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			x, err := ip.interpolatePlanned(e, p.kids[i], allowMethods)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case *format.Hash:
		if !slices.Contains(p.keys, true) {
			// The keys stay as they are, so they stay distinct.
			h, err := v.Remap(func(i int, e any) (any, error) {
				return ip.interpolatePlanned(e, p.kids[i], allowMethods)
			})
			if err != nil {
				return nil, err
			}
			return h, nil
		}
		out := format.NewHash(v.Len())
		i := 0
		for k, e := range v.All() {
			if p.keys[i] {
				x, err := ip.interpolateString(k.(string), allowMethods)
				if err != nil {
					return nil, err
				}
				k = hashKey(x)
			}
			x, err := ip.interpolatePlanned(e, p.kids[i], allowMethods)
			if err != nil {
				return nil, err
			}
			out.Set(k, x)
			i++
		}
		return out, nil
	}
	return ip.interpolate(v, allowMethods)
}

// hashKey turns an interpolated key back into a valid hash key: an alias()
// can produce a collection, which Ruby would use as a key; we use its text.
func hashKey(v any) any {
	switch v.(type) {
	case nil, bool, int64, float64, string:
		return v
	}
	return ruby.ToS(v)
}

// interpExpr is one %{...} of a string: its bounds, and its expression
// parsed (nil for one of emptyInterpolations).
type interpExpr struct {
	start, end int
	call       *methodExpr
}

// scanExprs appends to dst every %{...} of s, in order, parsing each
// expression with the cache calls (nil: none). A data file's strings are
// scanned once, when it is loaded (planFor); other strings as they are
// interpolated.
func scanExprs(dst []interpExpr, s string, calls map[string]*methodExpr) []interpExpr {
	for start, end := nextExpr(s, 0); start >= 0; start, end = nextExpr(s, end) {
		e := interpExpr{start: start, end: end}
		if expr := strings.TrimSpace(s[start+2 : end-1]); !emptyInterpolations[expr] {
			e.call = parseMethod(expr, calls)
		}
		dst = append(dst, e)
	}
	return dst
}

func (ip *interpolator) interpolateString(s string, allowMethods bool) (any, error) {
	var buf [4]interpExpr
	return ip.interpolateExprs(s, scanExprs(buf[:0], s, ip.n.w.calls), allowMethods)
}

// interpolateExprs is interpolateString for a string whose expressions
// are known (see scanExprs).
func (ip *interpolator) interpolateExprs(s string, exprs []interpExpr, allowMethods bool) (any, error) {
	// Only the text this call inserts is escaped for a glob: values
	// interpolated again inside it are escaped once, here.
	escape := ip.globText
	ip.globText = false
	defer func() { ip.globText = escape }()
	if len(exprs) == 0 {
		ip.warnUnclosed(s) // the caller saw a "%{"
		return s, nil
	}
	// Each expression's text is found first, then the result is written
	// in memory of its exact size.
	var buf [8]string
	texts := buf[:0]   // what each expression inserts
	size, last := 0, 0 // the result's length so far, and where s is at
	for _, e := range exprs {
		size += e.start - last
		last = e.end
		if e.call == nil {
			texts = append(texts, "")
			continue
		}
		call := e.call
		if call.ok && !allowMethods {
			return nil, lookupError(errMethodsNotAllowed)
		}
		method, arg, checkName := call.method, call.arg, call.check
		if method == "alias" && s != s[e.start:e.end] {
			return nil, lookupError(errAliasNotEntire)
		}
		var val any
		var err error
		// valSecret: what the expression gives holds decrypted text.
		wasSecret := ip.n.secret
		ip.n.secret = false
		switch method {
		case "lookup", "hiera":
			val, err = ip.n.lookupWithDefault(arg)
			ip.n.share.Record(share.Dep{Lookup: true, Global: ip.n.globalOnly > 0, Name: arg, Value: val, Err: share.ErrText(err)})
		case "alias":
			val, err = ip.n.aliasWithDefault(arg)
			ip.n.share.Record(share.Dep{Lookup: true, Alias: true, Global: ip.n.globalOnly > 0, Name: arg, Value: val, Err: share.ErrText(err)})
		case "scope":
			val, err = ip.scopeLookup(arg, s)
		case "literal":
			val = arg
		default:
			ip.n.secret = wasSecret
			if ip.hide > 0 {
				method = hiera.Redacted
			}
			return nil, lookupError(fmt.Sprintf("Unknown interpolation method '%s'", method))
		}
		valSecret := ip.n.secret
		ip.n.secret = wasSecret || valSecret
		if err != nil {
			return nil, ip.hidden(err, s[e.start+2:e.end-1], call)
		}
		if method == "alias" {
			// The whole string is the alias: its value, of any type, is the
			// result, and it is not interpolated again.
			switch val.(type) {
			case []any, *format.Hash:
				ip.aliases++
			}
			return val, nil
		}
		// What a lookup or a variable gives is interpolated again (so a
		// literal('%') escape in it is expanded here), under a recursion check.
		if err := ip.n.stack.push(checkName); err != nil {
			return nil, ip.hidden(err, s[e.start+2:e.end-1], call)
		}
		if valSecret {
			ip.hide++ // the value holds decrypted text
		}
		val, err = ip.interpolate(val, allowMethods)
		if valSecret {
			ip.hide--
		}
		ip.n.stack.pop()
		if err != nil {
			return nil, ip.hidden(err, s[e.start+2:e.end-1], call)
		}
		text := ""
		if val != nil {
			if _, isStr := val.(string); !isStr && inspectSize(val, maxInterpolated) > maxInterpolated {
				return nil, errTooLong()
			}
			text = ruby.ToS(val)
			if escape {
				text = escapeGlob(text)
			}
			if size+len(text) > maxInterpolated {
				return nil, errTooLong()
			}
			size += len(text)
		}
		texts = append(texts, text)
		if _, isStr := val.(string); isStr && !escape && len(exprs) == 1 && e.start == 0 && e.end == len(s) {
			// The string is this one expression ("%{trusted.certname}"),
			// which gives a string: that string is the result, as it is
			// (boxed already: copying it would cost two allocations).
			return val, nil
		}
	}
	if strings.Contains(s[last:], "%{") {
		ip.warnUnclosed(s)
	}
	return joinTexts(s, exprs, texts, size+len(s)-last), nil
}

// joinTexts returns s with its expressions replaced by texts, size bytes.
func joinTexts(s string, exprs []interpExpr, texts []string, size int) string {
	var b strings.Builder
	b.Grow(size)
	last := 0
	for i, e := range exprs {
		b.WriteString(s[last:e.start])
		b.WriteString(texts[i])
		last = e.end
	}
	b.WriteString(s[last:])
	return b.String()
}

func errTooLong() *format.Error {
	return limitError("interpolation gives a string of more than %d bytes", maxInterpolated)
}

// methodExpr is an interpolation expression parsed: a method call, or a
// variable (method "scope", arg the expression).
type methodExpr struct {
	method, arg string
	ok          bool // it is a method call
	// check is the name the value is interpolated under on the
	// recursion guard: "scope:" and the variable for scope, else the
	// argument.
	check string
}

// parseMethod parses expr, once per cache (nil: no cache).
func parseMethod(expr string, cache map[string]*methodExpr) *methodExpr {
	if m, ok := cache[expr]; ok {
		return m
	}
	m := &methodExpr{method: "scope", arg: expr}
	if mm := methodCall.FindStringSubmatch(expr); mm != nil {
		m = &methodExpr{method: mm[1], arg: mm[2] + mm[3], ok: true}
	}
	m.check = m.arg
	if m.method == "scope" {
		m.check = "scope:" + m.arg
	}
	if cache != nil {
		cache[expr] = m
	}
	return m
}

// warnUnclosed reports a "%{" without its "}": Puppet keeps it as text
// without a word, but it is most likely a typo.
func (ip *interpolator) warnUnclosed(s string) {
	if ip.hide > 0 {
		s = hiera.Redacted
	}
	ip.n.warn(fmt.Sprintf("%q holds a \"%%{\" that is never closed: Puppet keeps it as text", s))
}

// scopeLookup is Puppet's scope interpolation method: a top-scope variable,
// dug into with the rest of the key. A missing variable or sub-key is nil/"".
func (ip *interpolator) scopeLookup(expr, subject string) (any, error) {
	v, err := ip.scopeValue(expr, subject)
	ip.n.share.Record(share.Dep{Name: expr, Value: v, Err: share.ErrText(err)})
	return v, err
}

func (ip *interpolator) scopeValue(expr, subject string) (any, error) {
	// The node's variables never change: each expression is read once
	// (but for mapped_paths' own variable, and for undefined variables,
	// whose warning names each place that reads them).
	if ip.local == nil {
		if v, ok := ip.scopeMemo[expr]; ok {
			return v, nil
		}
	}
	k, err := ip.n.w.parseExpr(expr)
	if err != nil {
		if ip.hide > 0 {
			subject = hiera.Redacted
		}
		return nil, lookupError(fmt.Sprintf("Syntax error in string: %s", subject))
	}
	val, ok := ip.local[k.Root]
	if !ok {
		val, ok = ip.n.scope.get(k.Root)
	}
	if !ok {
		ip.n.warnUndefined(k.Root)
		return nil, nil
	}
	v, found := val, true
	if len(k.Segments) > 0 {
		if v, found, err = k.Dig(val); err != nil {
			return nil, lookupError(err.Error())
		}
		if !found {
			v = ""
		}
	}
	if ip.local == nil {
		if ip.scopeMemo == nil {
			ip.scopeMemo = map[string]any{}
		}
		ip.scopeMemo[expr] = v
		ip.n.w.share.SeeVar(expr, v)
	}
	return v, nil
}

// hidden is err, an interpolation's failure, as a message may give it
// while interpolating decrypted text (hide > 0): without the texts of
// the expression that failed (expr, as written between "%{" and "}", its
// argument and each part of that, a key or variable, quoted or in a
// recursion's chain of keys; a known method's name is no secret). The
// text of the whole value is redacted by readEntry.
func (ip *interpolator) hidden(err error, expr string, call *methodExpr) error {
	if ip.hide == 0 || err == nil {
		return err
	}
	texts := []string{expr, call.arg}
	texts = append(texts, strings.FieldsFunc(call.arg, func(r rune) bool { return r == '.' || r == '\'' || r == '"' || r == ' ' })...)
	fe := asFormatError(err)
	msg := redactNames(fe.Message, texts)
	if msg == fe.Message {
		return err
	}
	e := *fe
	e.Message = msg
	return &e
}

// redactNames is hiera.RedactMessage for names out of decrypted text,
// which a message also writes unquoted ("Recursive lookup detected in
// [a, b]"): a name of three characters or more is redacted wherever it
// stands as a word of its own.
func redactNames(msg string, names []string) string {
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	var quoted []any
	for _, t := range names {
		if t == "" {
			continue
		}
		quoted = append(quoted, t)
	}
	msg = hiera.RedactMessage(msg, quoted...)
	for _, t := range names {
		if len(t) >= 3 {
			msg = replaceWord(msg, t, hiera.Redacted)
		}
	}
	return msg
}

// replaceWord replaces each occurrence of w in s that is a word of its
// own: not part of a longer name.
func replaceWord(s, w, by string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, w)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(w)
		if i > 0 && nameByte(s[i-1]) || end < len(s) && nameByte(s[end]) {
			b.WriteString(s[:end])
		} else {
			b.WriteString(s[:i])
			b.WriteString(by)
		}
		s = s[end:]
	}
}

func nameByte(c byte) bool {
	return c == '_' || c == ':' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
