package main

import (
	"bytes"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/render"
)

var inspectCmd = &command{
	name:     "inspect",
	synopsis: "show what bundles hold: node, format, revision, signer, seal, keys",
	usage:    inspectUsage,
	run:      runInspect,
}

// bundleInfo is what inspect says of one bundle. It reads the bundle as an
// agent does (runtime.Open) and never prints a value: a key's size is the
// length of its value rendered as JSON, and keys whose value is secret
// (decrypted from eyaml, Sensitive or sealed) have no size.
type bundleInfo struct {
	File          string `json:"file"`
	Node          string `json:"node"`
	Environment   string `json:"environment"`
	FormatVersion int    `json:"format_version"`
	Revision      string `json:"revision"`
	// SourceRevision is what compile --source-revision named (by
	// default the git commit of a clean control repo); "" for none.
	SourceRevision string         `json:"source_revision"`
	Digest         string         `json:"digest"` // SHA-256 of the body, hex
	Bytes          int64          `json:"bytes"`  // the file's size
	Keys           int            `json:"keys"`
	FailingKeys    int            `json:"failing_keys"` // keys whose lookup fails (a recorded error)
	SealedKeys     int            `json:"sealed_keys"`
	Signature      *signatureInfo `json:"signature"` // nil: not signed
	Seal           *sealInfo      `json:"seal"`      // nil: not sealed
	SharedDetails  *sharedInfo    `json:"shared_details"`
	KeyList        []keyInfo      `json:"key_list,omitempty"` // with --keys
}

// signatureInfo describes a bundle's signature as the bundle carries it:
// inspect does not verify it (verify does).
type signatureInfo struct {
	Scheme string `json:"scheme"`
	// Signer is the subject of the signer's certificate; "" when a bare
	// key signed (the bundle then does not say which).
	Signer    string     `json:"signer,omitempty"`
	Issuer    string     `json:"issuer,omitempty"`
	NotBefore *time.Time `json:"not_before,omitempty"`
	NotAfter  *time.Time `json:"not_after,omitempty"`
	// Validity is "valid", "expired" or "not yet valid" now, for a
	// certificate; "" for a bare key.
	Validity string `json:"validity,omitempty"`
}

type sealInfo struct {
	Scheme string `json:"scheme"`
	// Recipient is the SHA-256 fingerprint of the certificate the secrets
	// are sealed to, hex.
	Recipient string `json:"recipient"`
}

type sharedInfo struct {
	File    string `json:"file"`
	Present bool   `json:"present"`
}

type keyInfo struct {
	Name string `json:"name"`
	// Kind is "value", "error" (the lookup fails), "secret" (text
	// decrypted from eyaml), "sensitive" (convert_to Sensitive) or "sealed".
	Kind  string `json:"kind"`
	Bytes *int   `json:"bytes,omitempty"` // for a value: the length of lookup --render-as json's output (none when that fails: NaN, infinities)
}

// inspectTotals sums the bundles inspected.
type inspectTotals struct {
	Bundles       int   `json:"bundles"`
	Bytes         int64 `json:"bytes"`
	Keys          int   `json:"keys"`
	FailingKeys   int   `json:"failing_keys"`
	Signed        int   `json:"signed"`
	Sealed        int   `json:"sealed"`
	SharedDetails int   `json:"shared_details_files"`
	SharedBytes   int64 `json:"shared_details_bytes"`
	MissingShared int   `json:"shared_details_missing"`
}

func runInspect(c *cmdEnv, args []string) int {
	var asJSON, keys bool
	var formatName string
	fl := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fl.StringVar(&formatName, "format", "text", "")
	fl.BoolVar(&keys, "keys", false, "")
	paths, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	switch formatName {
	case "text":
	case "json":
		asJSON = true
	default:
		return c.usageError("--format %q: give text or json", formatName)
	}
	if len(paths) == 0 {
		return c.usageError("no bundle given: a bundle file, or the folder 'hieracc compile' wrote (its --out)")
	}
	var infos []*bundleInfo
	failed, folder := 0, false
	for _, p := range paths {
		files, bad, err := verifyFiles(p)
		if err != nil {
			c.errorf("%v", cleanPathErr(err))
			failed++
			continue
		}
		folder = folder || isDir(p)
		for _, e := range bad {
			c.errorf("%s: %v", p, e)
			failed++
		}
		for _, f := range files {
			info, err := inspectBundle(f, keys)
			if err != nil {
				c.errorf("%s: %s", f.file, strings.TrimPrefix(err.Error(), "runtime: "))
				failed++
				continue
			}
			infos = append(infos, info)
		}
	}
	var totals *inspectTotals
	if folder || len(infos) > 1 {
		totals = sumInfos(infos)
	}
	if asJSON {
		out := struct {
			Bundles []*bundleInfo  `json:"bundles"`
			Totals  *inspectTotals `json:"totals,omitempty"`
		}{infos, totals}
		if out.Bundles == nil {
			out.Bundles = []*bundleInfo{}
		}
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			c.errorf("%v", err)
			return exitFail
		}
	} else {
		// Header strings come from the bundles: no control character reaches
		// the terminal as it is.
		printInspect(safeWriter{c.stdout}, infos, totals)
	}
	if failed > 0 {
		return exitFail
	}
	return exitOK
}

// inspectBundle reads one bundle: its header, signature and seal as the file
// holds them, and what a lookup of each key gives.
func inspectBundle(f verifyFile, listKeys bool) (*bundleInfo, error) {
	b, err := runtime.Open(f.file)
	if err != nil {
		return nil, err
	}
	h := b.Header()
	if f.node != "" && h.Node != f.node {
		return nil, fmt.Errorf("holds the bundle of node %s, not %s", h.Node, f.node)
	}
	st, err := os.Stat(f.file)
	if err != nil {
		return nil, err
	}
	info := &bundleInfo{
		File:           f.file,
		Node:           h.Node,
		Environment:    h.Environment,
		FormatVersion:  h.Version,
		Revision:       h.Revision,
		SourceRevision: h.SourceRevision,
		Digest:         hex.EncodeToString(h.Digest[:]),
		Bytes:          st.Size(),
		Signature:      describeSignature(b, time.Now()),
	}
	if h.Seal.Scheme != "" {
		info.Seal = &sealInfo{Scheme: h.Seal.Scheme, Recipient: hex.EncodeToString(h.Seal.Recipient[:])}
	}
	if sf := b.SharedDetailsFile(); sf != "" {
		_, err := os.Stat(sf)
		info.SharedDetails = &sharedInfo{File: sf, Present: err == nil}
	}
	names := b.Keys()
	info.Keys = len(names)
	// The secret flag is in the details; they are read only for --keys.
	var secret map[string]bool
	if listKeys {
		d, err := b.Details()
		if err != nil {
			return nil, fmt.Errorf("cannot list its keys: %w", err)
		}
		secret = map[string]bool{}
		for i := range d.Keys {
			if d.Keys[i].Secret {
				secret[d.Keys[i].Name] = true
			}
		}
	}
	for _, k := range names {
		v, err := b.Lookup(k)
		ki := keyInfo{Name: k, Kind: "value"}
		var se *runtime.SealedError
		var fe *format.Error
		switch {
		case errors.As(err, &se):
			ki.Kind = "sealed"
			info.SealedKeys++
		case errors.As(err, &fe):
			ki.Kind = "error"
			info.FailingKeys++
		case err != nil:
			return nil, fmt.Errorf("key %s: %w", k, err)
		case secret[k]:
			ki.Kind = "secret"
		default:
			if _, ok := v.(*runtime.Sensitive); ok {
				ki.Kind = "sensitive"
			} else if listKeys {
				// A value JSON cannot hold (a NaN or an infinity, as YAML's
				// .nan and .inf give) has no length: lookup --render-as json
				// fails on it, as Puppet's does. The bundle is whole.
				if data, err := render.As(v, render.JSON); err == nil {
					n := len(bytes.TrimSuffix(data, []byte("\n")))
					ki.Bytes = &n
				}
			}
		}
		if listKeys {
			info.KeyList = append(info.KeyList, ki)
		}
	}
	return info, nil
}

// describeSignature says who signed b, as the bundle's certificate says,
// and whether that certificate is valid at now.
func describeSignature(b *runtime.Bundle, now time.Time) *signatureInfo {
	sig := b.Signature()
	if sig == nil {
		return nil
	}
	si := &signatureInfo{Scheme: sig.Scheme}
	if len(sig.Certs) == 0 {
		return si
	}
	cert, err := x509.ParseCertificate(sig.Certs[0])
	if err != nil {
		si.Signer = "(a certificate that does not parse)"
		return si
	}
	si.Signer = cert.Subject.String()
	si.Issuer = cert.Issuer.String()
	nb, na := cert.NotBefore.UTC(), cert.NotAfter.UTC()
	si.NotBefore, si.NotAfter = &nb, &na
	switch {
	case now.Before(nb):
		si.Validity = "not yet valid"
	case now.After(na):
		si.Validity = "expired"
	default:
		si.Validity = "valid"
	}
	return si
}

func sumInfos(infos []*bundleInfo) *inspectTotals {
	t := &inspectTotals{}
	shared := map[string]bool{}
	for _, i := range infos {
		t.Bundles++
		t.Bytes += i.Bytes
		t.Keys += i.Keys
		t.FailingKeys += i.FailingKeys
		if i.Signature != nil {
			t.Signed++
		}
		if i.Seal != nil {
			t.Sealed++
		}
		if sd := i.SharedDetails; sd != nil && !shared[sd.File] {
			shared[sd.File] = true
			t.SharedDetails++
			if st, err := os.Stat(sd.File); err == nil {
				t.SharedBytes += st.Size()
			} else {
				t.MissingShared++
			}
		}
	}
	return t
}

// printInspect writes the text report: each bundle's header as a block
// (and its keys with --keys), or, for a folder, one line a bundle and the
// totals.
func printInspect(w io.Writer, infos []*bundleInfo, totals *inspectTotals) {
	if totals != nil && !hasKeyLists(infos) {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NODE\tENVIRONMENT\tFORMAT\tKEYS\tFAILING\tBYTES\tSIGNED\tSEALED")
		for _, i := range infos {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", i.Node, i.Environment, i.FormatVersion,
				i.Keys, i.FailingKeys, i.Bytes, yesNo(i.Signature != nil), yesNo(i.Seal != nil))
		}
		tw.Flush()
		printTotals(w, totals)
		return
	}
	for n, i := range infos {
		if n > 0 {
			fmt.Fprintln(w)
		}
		printBundleInfo(w, i)
	}
	if totals != nil {
		fmt.Fprintln(w)
		printTotals(w, totals)
	}
}

func hasKeyLists(infos []*bundleInfo) bool {
	for _, i := range infos {
		if i.KeyList != nil {
			return true
		}
	}
	return false
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func printBundleInfo(w io.Writer, i *bundleInfo) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, args...)) }
	row("bundle", "%s", i.File)
	row("node", "%s", i.Node)
	row("environment", "%s", i.Environment)
	row("format", "version %d", i.FormatVersion)
	row("revision", "%s", i.Revision)
	if i.SourceRevision != "" {
		row("source revision", "%s", i.SourceRevision)
	} else {
		row("source revision", "none (compiled from a work tree with changes, or outside git)")
	}
	row("digest", "sha256:%s", i.Digest)
	row("size", "%d bytes", i.Bytes)
	keys := plural(i.Keys, "key")
	var notes []string
	if i.FailingKeys > 0 {
		notes = append(notes, fmt.Sprintf("%d failing", i.FailingKeys))
	}
	if i.SealedKeys > 0 {
		notes = append(notes, fmt.Sprintf("%d sealed", i.SealedKeys))
	}
	if len(notes) > 0 {
		keys += " (" + strings.Join(notes, ", ") + ")"
	}
	row("keys", "%s", keys)
	switch s := i.Signature; {
	case s == nil:
		row("signed", "no")
	case s.Signer == "":
		row("signed", "yes, %s, by a key (the bundle names no certificate); not verified here: see hieracc verify", s.Scheme)
	default:
		row("signed", "yes, %s, by %s (issued by %s)", s.Scheme, s.Signer, s.Issuer)
		row("certificate", "%s, %s to %s; not verified here: see hieracc verify", s.Validity,
			s.NotBefore.Format(time.RFC3339), s.NotAfter.Format(time.RFC3339))
	}
	if i.Seal == nil {
		row("sealed", "no")
	} else {
		row("sealed", "yes, %s, to the certificate sha256:%s", i.Seal.Scheme, i.Seal.Recipient)
	}
	switch sd := i.SharedDetails; {
	case sd == nil:
		row("shared details", "none (the bundle holds its details)")
	case sd.Present:
		row("shared details", "%s", sd.File)
	default:
		row("shared details", "%s (missing: explanations and lookup-time merges need it)", sd.File)
	}
	tw.Flush()
	if i.KeyList == nil {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tKIND\tBYTES")
	for _, k := range i.KeyList {
		size := "-"
		if k.Bytes != nil {
			size = fmt.Sprint(*k.Bytes)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Name, k.Kind, size)
	}
	tw.Flush()
}

func printTotals(w io.Writer, t *inspectTotals) {
	fmt.Fprintf(w, "total: %s, %d bytes, %s (%d failing); %d signed, %d sealed",
		plural(t.Bundles, "bundle"), t.Bytes, plural(t.Keys, "key"), t.FailingKeys, t.Signed, t.Sealed)
	if t.SharedDetails > 0 {
		fmt.Fprintf(w, "; %s, %d bytes", plural(t.SharedDetails, "shared details file"), t.SharedBytes)
		if t.MissingShared > 0 {
			fmt.Fprintf(w, " (%d missing)", t.MissingShared)
		}
	}
	fmt.Fprintln(w)
}

const inspectUsage = `Usage:
  hieracc inspect [--keys] [--format text|json] PATH...

Shows what bundles are, without looking any value up for a person: for each
bundle file, or each bundle of the folders 'hieracc compile' wrote (their
--out; a folder of the shards' folders too), its node, environment, format
version, revision (a digest of what was compiled), body digest and size; its
keys, how many fail and how many are sealed; who signed it, as the
certificate it carries says, and that certificate's validity (inspect does
not verify: 'hieracc verify' does); whether its secrets are sealed, and to
which certificate; and the shared details file it names. A folder prints one
line a bundle and the totals.

Flags:
  --keys           also list each bundle's keys: its name, its kind (value,
                   error, secret, sensitive, sealed) and, for a value, the
                   length of its JSON rendering in bytes (none for a NaN or
                   an infinity, which JSON cannot hold). No value is printed,
                   and a secret's length is not either.
  --format FORMAT  text (the default) or json.

Example:
  hieracc inspect bundles/
  hieracc inspect --keys bundles/web01.example.net.bundle

Exit codes:
  0  every bundle was read
  1  a bundle could not be read (each is named)
  2  bad command line
`
