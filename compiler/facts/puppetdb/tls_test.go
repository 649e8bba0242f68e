package puppetdb

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pki is a CA and the certificates it issued, as Puppet's CA issues
// PuppetDB's and its clients'.
type pki struct {
	ca    *x509.Certificate
	caKey *ecdsa.PrivateKey
	dir   string
}

func newPKI(t *testing.T) *pki {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Puppet CA: test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	p := &pki{ca: ca, caKey: key, dir: t.TempDir()}
	p.write(t, "ca.pem", "CERTIFICATE", der)
	return p
}

func (p *pki) write(t *testing.T, name, typ string, der []byte) string {
	f := filepath.Join(p.dir, name)
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// issue returns the PEM files of a new certificate and its key.
func (p *pki) issue(t *testing.T, name string, usage x509.ExtKeyUsage) (cert, key string, pair tls.Certificate) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &k.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalPKCS8PrivateKey(k)
	cert, key = p.write(t, name+".pem", "CERTIFICATE", der), p.write(t, name+"-key.pem", "PRIVATE KEY", kder)
	pair, err = tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key, pair
}

// TestFetchTLS reaches a PuppetDB that, like a real one on its SSL port,
// accepts only clients with a certificate of its CA.
func TestFetchTLS(t *testing.T) {
	p := newPKI(t)
	_, _, serverPair := p.issue(t, "puppetdb", x509.ExtKeyUsageServerAuth)
	clientCert, clientKey, _ := p.issue(t, "hieracc", x509.ExtKeyUsageClientAuth)
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	var reqs []string
	plain := replay(t, &reqs)
	defer plain.Close()
	srv := httptest.NewUnstartedServer(plain.Config.Handler)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes below
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serverPair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(p.dir, "ca.pem")

	nodes, probs, err := Fetch(context.Background(), Config{URL: srv.URL, Cert: clientCert, Key: clientKey, CACert: ca,
		Query: `inventory[certname] { environment = "trusted" }`})
	if err != nil || len(probs) > 0 || len(nodes) != 4 {
		t.Fatalf("with a client certificate: %d nodes, err %v, problems %v", len(nodes), err, probs)
	}
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no client certificate", Config{URL: srv.URL, CACert: ca}, "certificate"},
		{"PuppetDB's CA not trusted", Config{URL: srv.URL, Cert: clientCert, Key: clientKey}, "certificate signed by unknown authority"},
		{"a CA file without a certificate", Config{URL: srv.URL, CACert: clientKey}, "no PEM certificate in it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Fetch(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want one containing %q", err, tt.want)
			}
		})
	}
}
