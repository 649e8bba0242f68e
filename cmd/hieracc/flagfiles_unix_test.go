//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format/formattest"
)

// TestFlagFilesSpecial gives every flag that names a file a named pipe
// and /dev/zero: each is an error naming the path (and the flag, where
// the message is this command's), never a hang on the pipe or a read of
// /dev/zero until memory runs out.
func TestFlagFilesSpecial(t *testing.T) {
	exe, err := exec.LookPath("hieracc") // this test binary, installed by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("env/hiera.yaml", "version: 5\nhierarchy:\n  - name: Common\n    path: common.yaml\n")
	write("env/data/common.yaml", "k: 1\n")
	write("nodes/web01.yaml", "role: web\n")
	if err := formattest.PKI(filepath.Join(dir, "pki"), true, "web01"); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	// --seal-to names a folder: its <certname>.pem is the special file.
	for name, target := range map[string]string{"certs-fifo": fifo, "certs-zero": "/dev/zero"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, name, "web01.pem")); err != nil {
			t.Fatal(err)
		}
	}
	// An eyaml level whose options name the private key by an absolute path.
	for name, target := range map[string]string{"eyaml-fifo": fifo, "eyaml-zero": "/dev/zero"} {
		write(name+"/hiera.yaml", "version: 5\nhierarchy:\n  - name: Secrets\n    lookup_key: eyaml_lookup_key\n    path: secrets.eyaml\n"+
			"    options:\n      pkcs7_private_key: "+target+"\n      pkcs7_public_key: "+target+"\n")
		write(name+"/data/secrets.eyaml", "s: ENC[PKCS7,MIIBeQYJKoZIhvcNAQcDoIIBajCCAWYCAQAxggEhMIIBHQIBAD]\n")
	}
	run := func(t *testing.T, args ...string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		err := cmd.Run()
		if ctx.Err() != nil {
			t.Fatalf("hieracc %s: still running after 20 s", strings.Join(args, " "))
		}
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
	if code, out := run(t, "compile", "--env", "env", "--facts", "nodes", "--out", "out"); code != 0 {
		t.Fatalf("compile: exit %d\n%s", code, out)
	}
	key, cert := "pki/ssl/private_keys/web01.pem", "pki/ssl/certs/web01.pem"
	compile := []string{"compile", "--env", "env", "--facts", "nodes", "--out", "out2"}
	pdb := slices.Concat(compile, []string{"--puppetdb", "https://127.0.0.1:1"})
	for _, tc := range []struct {
		name string
		args []string // F: the special file
		flag string   // what the message must name besides the path
	}{
		{"sign-key", slices.Concat(compile, []string{"--sign-key", "F"}), "--sign-key"},
		{"sign-cert", slices.Concat(compile, []string{"--sign-key", "pki/signer/key.pem", "--sign-cert", "F"}), ""}, // compiler/build/trust.go's message says --sign-key
		{"pkcs7-private-key", slices.Concat(compile, []string{"--pkcs7-private-key", "F"}), "--pkcs7-private-key"},
		{"pkcs7-public-key", slices.Concat(compile, []string{"--pkcs7-public-key", "F"}), "--pkcs7-public-key"},
		{"puppetdb-cacert", slices.Concat(pdb, []string{"--puppetdb-cacert", "F"}), "--puppetdb-cacert"},
		{"puppetdb-cert", slices.Concat(pdb, []string{"--puppetdb-cert", "F", "--puppetdb-key", key}), "--puppetdb-cert"},
		{"puppetdb-key", slices.Concat(pdb, []string{"--puppetdb-cert", cert, "--puppetdb-key", "F"}), "--puppetdb-key"},
		{"verify-key", []string{"verify", "--key", "F", "out"}, "--key"},
		{"verify-ca", []string{"verify", "--ca", "F", "--signer", "ci.example.com", "out"}, "--ca"},
		{"lookup-private-key", []string{"lookup", "--bundle", "out", "--node", "web01", "--private-key", "F", "k"}, "--private-key"},
	} {
		for special, path := range map[string]string{"fifo": fifo, "zero": "/dev/zero"} {
			t.Run(special+"/"+tc.name, func(t *testing.T) {
				args := make([]string, len(tc.args))
				for i, a := range tc.args {
					if a == "F" {
						a = path
					}
					args[i] = a
				}
				code, out := run(t, args...)
				if code == 0 || !strings.Contains(out, path+": ") || !strings.Contains(out, "not a regular file") || !strings.Contains(out, tc.flag) {
					t.Errorf("hieracc %s: exit %d, want an error naming %s %s, not a regular file:\n%s", strings.Join(args, " "), code, tc.flag, path, out)
				}
			})
		}
	}
	// Files the flags name through a folder or a hiera.yaml.
	for _, special := range []string{"fifo", "zero"} {
		t.Run(special+"/seal-to", func(t *testing.T) {
			code, out := run(t, slices.Concat(compile, []string{"--seal-to", "certs-" + special})...)
			if p := filepath.Join("certs-"+special, "web01.pem"); code == 0 || !strings.Contains(out, p+": ") || !strings.Contains(out, "not a regular file") {
				t.Errorf("compile --seal-to certs-%s: exit %d, want an error naming %s, not a regular file:\n%s", special, code, p, out)
			}
		})
		t.Run(special+"/eyaml-options", func(t *testing.T) {
			code, out := run(t, "compile", "--env", "eyaml-"+special, "--facts", "nodes", "--out", "out3")
			if code == 0 || !strings.Contains(out, "not a regular file") {
				t.Errorf("compile with eyaml keys in eyaml-%s: exit %d, want an error: not a regular file:\n%s", special, code, out)
			}
		})
	}
}
