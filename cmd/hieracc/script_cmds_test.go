package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/bundleset"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/format/trust/sign"
	"github.com/hieracc/hieracc/runtime"
)

// More commands and conditions for testdata/script.

// cmdExitcode runs a command and checks its exit code, keeping its output
// for stdout and stderr: exitcode 2 hieracc compile ...
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || neg {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// cmdBigfile writes a valid YAML data file of exactly N bytes, with one
// key, "big: 1", and comments; with -sparse, a file of N zero bytes that
// takes no room on disk (to be refused by its size, unread):
// bigfile [-sparse] FILE N.
func cmdBigfile(ts *testscript.TestScript, neg bool, args []string) {
	sparse := len(args) > 0 && args[0] == "-sparse"
	if sparse {
		args = args[1:]
	}
	if len(args) != 2 || neg {
		ts.Fatalf("usage: bigfile [-sparse] FILE BYTES")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	file := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(file), 0o755))
	if sparse {
		f, err := os.Create(file)
		ts.Check(err)
		ts.Check(f.Truncate(int64(n)))
		ts.Check(f.Close())
		return
	}
	head := "big: 1\n"
	line := "#" + strings.Repeat("x", 1022) + "\n"
	if n < len(head) {
		ts.Fatalf("bigfile: at least %d bytes", len(head))
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(head)
	for b.Len()+len(line) <= n {
		b.WriteString(line)
	}
	if rest := n - b.Len(); rest > 0 {
		b.WriteString("#" + strings.Repeat("x", rest-1))
	}
	ts.Check(os.WriteFile(file, []byte(b.String()), 0o644))
}

// scriptCondition adds conditions:
//
//	[root]     running as root, which reads files whatever their mode
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "root":
		return os.Geteuid() == 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// cmdPKI makes the keys and certificates of a test fleet in Puppet's
// layout (formattest.PKI): pki DIR [-ec] NODE...
func cmdPKI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: pki DIR [-ec] NODE...")
	}
	ec := len(args) > 1 && args[1] == "-ec"
	nodes := args[1:]
	if ec {
		nodes = args[2:]
	}
	ts.Check(formattest.PKI(ts.MkAbs(args[0]), ec, nodes...))
}

// cmdCert writes a private key (RSA, 2048 bits) and a self-signed
// certificate for it, whose subject's common name is CN: cert CN KEY CERT
// [expired|future|rsa1024].
func cmdCert(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: cert CN KEY CERT [expired|future|rsa1024]")
	}
	bits, from, until := 2048, time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	if len(args) == 4 {
		switch args[3] {
		case "expired":
			from, until = time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour)
		case "future":
			from, until = time.Now().Add(24*time.Hour), time.Now().Add(48*time.Hour)
		case "rsa1024":
			bits = 1024
		default:
			ts.Fatalf("cert: unknown option %q", args[3])
		}
	}
	key, err := rsa.GenerateKey(rand.Reader, bits)
	ts.Check(err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: args[0]}, NotBefore: from, NotAfter: until,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
}

// cmdSplitdetails re-encodes the bundles of folders with their details
// shared (encode.EncodeShared), writing each shared details file to
// DIR/details/ as a compile does, and fails when a bundle shares none:
// splitdetails [-sign KEY] DIR... The bundles are read through the
// runtime, with their shared details files when they have some already;
// -sign signs them again with KEY.
func cmdSplitdetails(ts *testscript.TestScript, neg bool, args []string) {
	var p encode.Protection
	if len(args) > 1 && args[0] == "-sign" {
		s, err := sign.ReadSigner(ts.MkAbs(args[1]), "")
		ts.Check(err)
		p.Signer, args = s, args[2:]
	}
	if neg || len(args) == 0 {
		ts.Fatalf("usage: splitdetails [-sign KEY] DIR...")
	}
	for _, dir := range args {
		files, err := filepath.Glob(filepath.Join(ts.MkAbs(dir), "*"+bundleset.Ext))
		ts.Check(err)
		if len(files) == 0 {
			ts.Fatalf("splitdetails: no bundles in %s", dir)
		}
		for _, f := range files {
			b, err := runtime.Open(f)
			ts.Check(err)
			d, err := b.Details()
			ts.Check(err)
			data, sh, err := encode.EncodeShared(d, p)
			ts.Check(err)
			if sh == nil {
				ts.Fatalf("splitdetails: %s: encode.EncodeShared wrote no shared details file", f)
			}
			shared := filepath.Join(filepath.Dir(f), filepath.FromSlash(format.SharedDetailsName(sh.Digest)))
			ts.Check(os.MkdirAll(filepath.Dir(shared), 0o755))
			ts.Check(os.WriteFile(shared, sh.Data, 0o644))
			ts.Check(os.WriteFile(f, data, 0o640))
		}
	}
}

// cmdCorrupt changes the last byte of every file in a folder (a damaged
// copy): corrupt DIR.
func cmdCorrupt(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: corrupt DIR")
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(entries) == 0 {
		ts.Fatalf("corrupt: no files in %s", args[0])
	}
	for _, e := range entries {
		f := filepath.Join(ts.MkAbs(args[0]), e.Name())
		data, err := os.ReadFile(f)
		ts.Check(err)
		if len(data) == 0 {
			ts.Fatalf("corrupt: %s is empty", f)
		}
		data[len(data)-1] ^= 1
		ts.Check(os.WriteFile(f, data, 0o644))
	}
}
