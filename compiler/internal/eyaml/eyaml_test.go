package eyaml

import (
	"encoding/base64"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// testdata/keys and testdata/other are test key pairs made by `eyaml
// createkeys`; testdata/values.yaml holds values `eyaml encrypt` made with
// testdata/keys (its `block` is eyaml's block output in a literal scalar).

func keyPair(t testing.TB, dir string) KeyPair {
	t.Helper()
	kp := KeyPair{PrivatePath: dir + "/private_key.pkcs7.pem", PublicPath: dir + "/public_key.pkcs7.pem"}
	kp.Private, kp.PrivateErr = os.ReadFile(kp.PrivatePath)
	kp.Public, kp.PublicErr = os.ReadFile(kp.PublicPath)
	return kp
}

func values(t testing.TB) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("testdata/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]string
	if err := yaml.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEncrypted(t *testing.T) {
	for s, want := range map[string]bool{
		"ENC[PKCS7,abc]":         true,
		"x ENC[anything at all]": true,
		"ENC[abc\n]":             false, // "]" on another line
		"a\nENC[abc]":            true,
		"ENC[abc":                false,
		"ENC[\n]ENC[x]":          true,
		"enc[abc]":               false,
		"plain":                  false,
	} {
		if got := Encrypted(s); got != want {
			t.Errorf("Encrypted(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []Token
	}{
		{"plain", []Token{{Text: "plain"}}},
		{"ENC[PKCS7,ab+/=]", []Token{{Text: "ENC[PKCS7,ab+/=]", Enc: true, Scheme: "PKCS7", Cipher: "ab+/="}}},
		{"ENC[abc]", []Token{{Text: "ENC[abc]", Enc: true, Scheme: "PKCS7", Cipher: "abc"}}},
		{"ENC[GPG,abc]", []Token{{Text: "ENC[GPG,abc]", Enc: true, Scheme: "GPG", Cipher: "abc"}}},
		{"pre ENC[PKCS7,a b\nc] post", []Token{{Text: "pre "}, {Text: "ENC[PKCS7,a b\nc]", Enc: true, Scheme: "PKCS7", Cipher: "abc"}, {Text: " post"}}},
		// Not a block: a character outside the alphabet, an empty cipher.
		{"ENC[PKCS7,a-b]", []Token{{Text: "ENC[PKCS7,a-b]"}}},
		{"ENC[PKCS7,]", []Token{{Text: "ENC[PKCS7,]"}}},
		{"ENC[ENC[x]", []Token{{Text: "ENC["}, {Text: "ENC[x]", Enc: true, Scheme: "PKCS7", Cipher: "x"}}},
		{"ENC[a]ENC[b]", []Token{{Text: "ENC[a]", Enc: true, Scheme: "PKCS7", Cipher: "a"}, {Text: "ENC[b]", Enc: true, Scheme: "PKCS7", Cipher: "b"}}},
		{"ENC[ ]", []Token{{Text: "ENC[ ]", Enc: true, Scheme: "PKCS7", Cipher: ""}}},
		{"ENC[a_b,c]", []Token{{Text: "ENC[a_b,c]", Enc: true, Scheme: "a_b", Cipher: "c"}}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, Parse(tt.in)); d != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestDecode64(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "hello world", "\x00\xff\xfe binary"} {
		enc := base64.StdEncoding.EncodeToString([]byte(s))
		if got := string(decode64(enc)); got != s {
			t.Errorf("decode64(%q) = %q, want %q", enc, got, s)
		}
	}
	// Ruby's lenient decoding: junk skipped, "=" ends, partial groups kept.
	for in, want := range map[string]string{"aGVs\nbG8=": "hello", "aGVsbG8": "hello", "aG=VsbG8": "h", "=aGk=": "hi"} {
		if got := string(decode64(in)); got != want {
			t.Errorf("decode64(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecrypt(t *testing.T) {
	v := values(t)
	good := keyPair(t, "testdata/keys")
	tests := []struct {
		name    string
		kp      KeyPair
		in      string
		want    string
		wantErr string
	}{
		{"chomped, not decrypted", good, "ENC[not-a-block]\n", "ENC[not-a-block]", ""},
		{"string", good, v["hello"], "hello", ""},
		{"embedded", good, "a " + v["hello"] + " b " + v["hello"], "a hello b hello", ""},
		{"one line break chomped", good, v["multiline"], "line1\nline2", ""},
		{"empty", good, v["empty"], "", ""},
		{"block folded by YAML", good, strings.ReplaceAll(strings.TrimSpace(v["block"]), "\n", " "), "blocky", ""},
		{"wrong key", keyPair(t, "testdata/other"), v["hello"], "", "bad decrypt"},
		{"key and certificate differ", KeyPair{PrivatePath: "p", Private: good.Private, PublicPath: "c", Public: keyPair(t, "testdata/other").Public}, v["hello"], "", "private key does not match certificate"},
		{"not PKCS7", good, "ENC[PKCS7,aGVsbG8=]", "", "Could not parse the PKCS7: no start line"},
		{"no public key", KeyPair{PrivatePath: "x"}, v["hello"], "", "pkcs7_public_key is not defined"},
		{"no private key", KeyPair{PublicPath: "x"}, v["hello"], "", "pkcs7_private_key is not defined"},
		{"missing file", KeyPair{PrivatePath: "/k/priv.pem", PrivateErr: fs.ErrNotExist, PublicPath: "/k/pub.pem"}, v["hello"], "", "No such file or directory @ rb_sysopen - /k/priv.pem"},
		{"gpg", good, "ENC[GPG,aGVsbG8=]", "", "cannot load such file -- hiera/backend/eyaml/encryptors/gpg"},
		{"no cipher after whitespace", good, "ENC[ ]", "", "undefined method `[]' for nil:NilClass"},
		{"no keys needed without a block", KeyPair{}, "ENC[not-a-block]", "ENC[not-a-block]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, decrypted, err := NewDecrypter(tt.kp).Decrypt(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Decrypt = %q, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Decrypt = %q, %v; want %q", got, err, tt.want)
			}
			if want := strings.Contains(tt.in, "MII"); decrypted != want {
				t.Errorf("decrypted = %v, want %v", decrypted, want)
			}
		})
	}
}

// TestDecryptDamaged flips each byte of a valid value's ciphertext: every
// result is an error or some text, never a panic.
func TestDecryptDamaged(t *testing.T) {
	v := values(t)
	d := NewDecrypter(keyPair(t, "testdata/keys"))
	tok := Parse(v["hello"])[0]
	der := decode64(tok.Cipher)
	for i := range der {
		bad := append([]byte(nil), der...)
		bad[i] ^= 0x55
		_, _ = d.decryptPKCS7(bad)
	}
	if _, err := d.decryptPKCS7(der[:len(der)/2]); err == nil {
		t.Fatal("a truncated value decrypted")
	}
}

// FuzzParse holds the parser's invariants: the tokens give the input back,
// and each block is a well-formed ENC[...] of the alphabet. Decrypt never
// panics.
func FuzzParse(f *testing.F) {
	for _, s := range values(f) {
		f.Add(s)
	}
	for _, s := range []string{"ENC[PKCS7,abc]", "x ENC[ENC[a] ENC[ ]", "ENC[GPG,a b]", "ENC[a_b,]]"} {
		f.Add(s)
	}
	d := NewDecrypter(keyPair(f, "testdata/keys"))
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		for _, tok := range Parse(s) {
			b.WriteString(tok.Text)
			if tok.Enc {
				if !strings.HasPrefix(tok.Text, "ENC[") || !strings.HasSuffix(tok.Text, "]") || strings.Trim(tok.Cipher, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/=") != "" {
					t.Fatalf("bad block %+v", tok)
				}
			}
		}
		if b.String() != s {
			t.Fatalf("tokens give %q, not %q", b.String(), s)
		}
		_, _, _ = d.Decrypt(s)
	})
}
