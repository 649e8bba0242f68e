package build

// Signing and sealing (format version 4): with Config.SignKey every bundle
// is signed (with a key and certificates a verifier would take: valid now,
// RSA of 2048 bits or more); with Config.SealTo each node's secret and
// sensitive keys are sealed to its Puppet agent certificate,
// SealTo/<certname>.pem, which must name the node and be valid now.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/format/trust/sign"
)

// SealMissing values: what a build does with a node whose certificate is
// not in SealTo.
const (
	SealMissingError = "error" // the default: an error naming the node
	SealMissingPlain = "plain" // its bundle is written with its secrets in plain text
)

// protector signs and seals a build's bundles.
type protector struct {
	signer *sign.Signer
	sealTo string
	plain  bool // SealMissingPlain

	mu         sync.Mutex
	recipients map[string]*sign.Recipient // by node; nil: no certificate (plain)
	settings   string                     // what the state's settings record of it (certificates: certSums)
}

// protector reads the signing key and checks the sealing settings.
func (c *Config) protector() (*protector, error) {
	p := &protector{sealTo: c.SealTo, recipients: map[string]*sign.Recipient{}}
	switch c.SealMissing {
	case "", SealMissingError:
	case SealMissingPlain:
		p.plain = true
	default:
		return nil, fmt.Errorf("--seal-missing must be %s or %s, not %q", SealMissingError, SealMissingPlain, c.SealMissing)
	}
	if c.SealMissing != "" && c.SealTo == "" {
		return nil, errors.New("--seal-missing goes with --seal-to")
	}
	if c.SignCert != "" && c.SignKey == "" {
		return nil, errors.New("--sign-cert goes with --sign-key")
	}
	h := sha256.New()
	if c.SignKey != "" {
		var err error
		if p.signer, err = sign.ReadSigner(c.SignKey, c.SignCert); err != nil {
			return nil, fmt.Errorf("--sign-key: %v", inputfs.CleanPathErr(err))
		}
		for _, f := range []string{c.SignKey, c.SignCert} {
			if f != "" {
				data, _ := inputfs.ReadPath(f)
				h.Write(data)
			}
		}
	}
	if c.SealTo != "" {
		st, err := os.Stat(c.SealTo)
		if err != nil {
			return nil, fmt.Errorf("--seal-to: %v", inputfs.CleanPathErr(err))
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("--seal-to %s: not a folder (Puppet's ssl/certs, with <certname>.pem)", c.SealTo)
		}
	}
	if c.SignKey != "" || c.SealTo != "" {
		p.settings = fmt.Sprintf(";sign=%v;seal=%v;seal-missing=%s;trust=%s", c.SignKey != "", c.SealTo != "", c.SealMissing, hex.EncodeToString(h.Sum(nil)))
	}
	return p, nil
}

// certSums folds the digest of each node's certificate into its facts
// digest in sums, so that an incremental build compiles again the nodes
// whose certificate changed (or came, or went), and only those.
func (p *protector) certSums(sums map[string]string) {
	if p.sealTo == "" {
		return
	}
	for node, s := range sums {
		if s == "" {
			continue // compiled every time
		}
		d := "none"
		if data, err := inputfs.ReadPath(filepath.Join(p.sealTo, node+".pem")); err == nil {
			sum := sha256.Sum256(data)
			d = hex.EncodeToString(sum[:16])
		}
		sums[node] = s + "+cert:" + d
	}
}

// check reads the certificates of nodes, and returns an error for each
// node whose certificate is missing (unless SealMissingPlain) or cannot
// be read: such a node's bundle is not written.
func (p *protector) check(nodes []string) []diagnostics.Diagnostic {
	if p.sealTo == "" {
		return nil
	}
	var ds []diagnostics.Diagnostic
	for _, node := range nodes {
		file := filepath.Join(p.sealTo, node+".pem")
		r, err := sign.ReadRecipient(file)
		switch {
		case err == nil && r.Name != node:
			// Sealed to it, the node's secrets would open with the key of
			// the node it names.
			ds = append(ds, diagnostics.Diagnostic{Severity: diagnostics.Error, Pos: format.Pos{File: file}, Node: node,
				Message: fmt.Sprintf("certificate of node %s names %q (its subject's common name), not %s: its secrets would be sealed to another node's key", node, r.Name, node)})
		case err == nil:
			p.recipients[node] = r
		case errors.Is(err, fs.ErrNotExist) && p.plain:
			p.recipients[node] = nil
		case errors.Is(err, fs.ErrNotExist):
			ds = append(ds, diagnostics.Diagnostic{Severity: diagnostics.Error, Pos: format.Pos{File: file}, Node: node,
				Message: fmt.Sprintf("no certificate for node %s in --seal-to %s: its secrets cannot be sealed to it (--seal-missing=plain writes them in plain text)", node, p.sealTo)})
		default:
			ds = append(ds, diagnostics.Diagnostic{Severity: diagnostics.Error, Pos: format.Pos{File: file}, Node: node,
				Message: fmt.Sprintf("certificate of node %s: %v", node, inputfs.CleanPathErr(err))})
		}
	}
	return ds
}

// of is how node's bundle is protected; false when it must not be
// written (its certificate is missing, reported by check).
func (p *protector) of(node string) (encode.Protection, bool) {
	prot := encode.Protection{Signer: p.signer}
	if p.sealTo == "" {
		return prot, true
	}
	p.mu.Lock()
	r, ok := p.recipients[node]
	p.mu.Unlock()
	prot.Recipient = r
	return prot, ok
}

// nodeNames are the certnames of nodes.
func nodeNames(nodes []compiler.Node) []string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	return names
}
