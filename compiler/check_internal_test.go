package compiler

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTemplateRegexp pins which paths a level's path template names.
func TestTemplateRegexp(t *testing.T) {
	for _, tc := range []struct {
		tmpl    string
		yes, no []string
	}{
		{"env/data/role/%{facts.role}.yaml", []string{"env/data/role/web.yaml", "env/data/role/.yaml"}, []string{"env/data/role/web.yml", "env/data/web.yaml"}},
		{"env/data/g/%{facts.g}/%{facts.k}.yaml", []string{"env/data/g/a/b.yaml", "env/data/g/b.yaml"}, []string{"env/data/gb.yaml"}},
		{"env/data/%{::dc}/x.yaml", []string{"env/data/x.yaml", "env/data/fra/x.yaml"}, []string{"env/datax.yaml"}},
		{"env/data/lit/%{literal('%')}x.yaml", []string{"env/data/lit/%x.yaml"}, []string{"env/data/lit/ax.yaml"}},
		{"env/data/a+b/%{}c.yaml", []string{"env/data/a+b/c.yaml"}, []string{"env/data/aab/c.yaml"}},
	} {
		re := templateRegexp(tc.tmpl)
		for _, p := range tc.yes {
			if !re.MatchString(p) {
				t.Errorf("%s does not name %s (%s)", tc.tmpl, p, re)
			}
		}
		for _, p := range tc.no {
			if re.MatchString(p) {
				t.Errorf("%s names %s (%s)", tc.tmpl, p, re)
			}
		}
	}
}

// FuzzTemplateRegexp: any template (hiera.yaml is the user's text) gives
// a regexp, without panicking, that matches the template with each
// interpolation filled in.
func FuzzTemplateRegexp(f *testing.F) {
	for _, s := range []string{"a/%{x}/b.yaml", "%{x}", "%{literal('%')}", "a//%{}/%{y}", "%{a}%{b}/", "[a]*?{b,c}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		re := templateRegexp(tmpl)
		if re == nil {
			if utf8.ValidString(tmpl) {
				t.Fatalf("%q: no regexp", tmpl)
			}
			return
		}
		filled := interpolation.ReplaceAllStringFunc(tmpl, func(m string) string {
			expr := m[2 : len(m)-1]
			if sm := literalCall.FindStringSubmatch(expr); sm != nil {
				return sm[1] + sm[2]
			}
			if strings.TrimSpace(expr) == "" {
				return ""
			}
			return "v"
		})
		if !re.MatchString(filled) {
			t.Errorf("%q: %s does not match %q", tmpl, re, filled)
		}
		wildcard(tmpl, true)
		wildcard(tmpl, false)
		literalPrefix(tmpl)
	})
}
