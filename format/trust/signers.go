package trust

import (
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// A CA issues certificates to every Puppet agent, so a CA alone does not
// say who may sign bundles: any agent could sign any node's bundle. A CA
// verifier also takes signer rules, and the signer's certificate must
// match one of them. A rule is:
//
//   - a certname, the certificate's subject common name: ci.example.com;
//   - a pattern of certnames (Go's path.Match): *.ci.example.com;
//   - an extension the certificate carries and its value, EXT=VALUE: EXT
//     is an OID (1.3.6.1.4.1.34380.1.3.13) or the short name of one of
//     Puppet's (pp_auth_role, pp_role, ...), VALUE the extension's text
//     as Puppet reads it (an ASN.1 string's text, else its bytes).

// errNoSigner is NewCAVerifier's error without signer rules.
var errNoSigner = errors.New("a CA alone does not say who may sign: every certificate it issued " +
	"(every Puppet agent's) could sign any node's bundle; name the signer: its certname " +
	"(ci.example.com), a pattern of certnames (*.ci.example.com), or an extension its " +
	"certificate carries (pp_auth_role=hieracc-signer, or OID=VALUE)")

// signerRule is one rule: a certname or pattern (glob), or an extension
// and its value (oid, value).
type signerRule struct {
	text  string // as given
	glob  string
	oid   asn1.ObjectIdentifier
	value string
}

// puppetOIDs are the short names of Puppet's certificate extensions
// (Puppet::SSL::Oids).
var puppetOIDs = map[string]string{
	"pp_uuid":             "1.3.6.1.4.1.34380.1.1.1",
	"pp_instance_id":      "1.3.6.1.4.1.34380.1.1.2",
	"pp_image_name":       "1.3.6.1.4.1.34380.1.1.3",
	"pp_preshared_key":    "1.3.6.1.4.1.34380.1.1.4",
	"pp_cost_center":      "1.3.6.1.4.1.34380.1.1.5",
	"pp_product":          "1.3.6.1.4.1.34380.1.1.6",
	"pp_project":          "1.3.6.1.4.1.34380.1.1.7",
	"pp_application":      "1.3.6.1.4.1.34380.1.1.8",
	"pp_service":          "1.3.6.1.4.1.34380.1.1.9",
	"pp_employee":         "1.3.6.1.4.1.34380.1.1.10",
	"pp_created_by":       "1.3.6.1.4.1.34380.1.1.11",
	"pp_environment":      "1.3.6.1.4.1.34380.1.1.12",
	"pp_role":             "1.3.6.1.4.1.34380.1.1.13",
	"pp_software_version": "1.3.6.1.4.1.34380.1.1.14",
	"pp_department":       "1.3.6.1.4.1.34380.1.1.15",
	"pp_cluster":          "1.3.6.1.4.1.34380.1.1.16",
	"pp_provisioner":      "1.3.6.1.4.1.34380.1.1.17",
	"pp_region":           "1.3.6.1.4.1.34380.1.1.18",
	"pp_datacenter":       "1.3.6.1.4.1.34380.1.1.19",
	"pp_zone":             "1.3.6.1.4.1.34380.1.1.20",
	"pp_network":          "1.3.6.1.4.1.34380.1.1.21",
	"pp_securitypolicy":   "1.3.6.1.4.1.34380.1.1.22",
	"pp_cloudplatform":    "1.3.6.1.4.1.34380.1.1.23",
	"pp_apptier":          "1.3.6.1.4.1.34380.1.1.24",
	"pp_hostname":         "1.3.6.1.4.1.34380.1.1.25",
	"pp_owner":            "1.3.6.1.4.1.34380.1.1.26",
	"pp_authorization":    "1.3.6.1.4.1.34380.1.3.1",
	"pp_auth_role":        "1.3.6.1.4.1.34380.1.3.13",
}

// parseSignerRule parses one rule.
func parseSignerRule(s string) (signerRule, error) {
	r := signerRule{text: s}
	bad := func(why string) (signerRule, error) {
		return signerRule{}, fmt.Errorf("signer %q: %s", s, why)
	}
	if ext, value, ok := strings.Cut(s, "="); ok {
		if dotted, ok := puppetOIDs[ext]; ok {
			ext = dotted
		}
		parts := strings.Split(ext, ".")
		for _, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || p != strconv.Itoa(n) {
				return bad("EXT=VALUE needs an OID (1.3.6.1.4.1.34380.1.3.13) or one of Puppet's extension names (pp_auth_role, pp_role, ...) before '='")
			}
			r.oid = append(r.oid, n)
		}
		if len(r.oid) < 2 {
			return bad("an OID has at least two numbers")
		}
		if value == "" {
			return bad("no value after '='")
		}
		r.value = value
		return r, nil
	}
	switch {
	case s == "":
		return bad("empty: give a certname, a pattern of certnames or EXT=VALUE")
	case strings.Trim(s, "*?") == "":
		return bad("it matches every certificate the CA issued: name the signer")
	}
	if _, err := path.Match(s, ""); err != nil {
		return bad("bad pattern")
	}
	if matchesAnyName(s) {
		return bad("it matches every certificate the CA issued: name the signer")
	}
	r.glob = s
	return r, nil
}

// anyLabels are labels of every shape a certname's may have (Puppet's are
// lower case: letters, digits, '-', '_').
var anyLabels = []string{"a", "zz9", "0", "9-x", "_y", "-"}

// matchesAnyName reports whether the pattern glob matches every certname of
// some number of labels, so names no signer: "*" and "?*" do, and so do
// "[^.]*", "*[a-z0-9_\-]*" and "*.*" (every name with a dot, which every
// agent's is). It tries, for 1 to 6 labels, names whose every label takes
// each shape of anyLabels in turn: a pattern matching all of them leaves
// no label of that count of labels to choose.
func matchesAnyName(glob string) bool {
	for n := 1; n <= 6; n++ {
		all := true
		for i := range anyLabels {
			labels := make([]string, n)
			for j := range labels {
				labels[j] = anyLabels[(i+j)%len(anyLabels)]
			}
			if ok, _ := path.Match(glob, strings.Join(labels, ".")); !ok {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// matches reports whether the certificate c matches the rule.
func (r signerRule) matches(c *x509.Certificate) bool {
	if r.glob != "" {
		ok, _ := path.Match(r.glob, c.Subject.CommonName)
		return ok && c.Subject.CommonName != ""
	}
	for _, e := range c.Extensions {
		if e.Id.Equal(r.oid) {
			return extensionText(e.Value) == r.value
		}
	}
	return false
}

// extensionText is an extension's value as Puppet reads it (its trusted
// facts' extensions): the text of an ASN.1 string (Puppet writes
// UTF8String), else the bytes themselves.
func extensionText(der []byte) string {
	var v asn1.RawValue
	if rest, err := asn1.Unmarshal(der, &v); err == nil && len(rest) == 0 && v.Class == asn1.ClassUniversal && !v.IsCompound {
		switch v.Tag {
		case asn1.TagUTF8String, asn1.TagPrintableString, asn1.TagIA5String, asn1.TagT61String, 26: // 26: VisibleString
			return string(v.Bytes)
		}
	}
	return string(der)
}

// signerNames lists the rules, for messages.
func signerNames(rules []signerRule) string {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.text
	}
	return strings.Join(names, ", ")
}
