package compiler

import (
	"strings"
	"testing"
)

// TestShortenEncrypted: a diagnostic quotes an ENC[...] block by its
// scheme, first characters and length; short blocks, text that only looks
// like one and the rest of the message are kept.
func TestShortenEncrypted(t *testing.T) {
	long := "MIIBeQYJ" + strings.Repeat("A", 412)
	for _, tc := range []struct{ in, want string }{
		{"plain message", "plain message"},
		{"decrypting ENC[PKCS7," + long + "] when looking up k", "decrypting ENC[PKCS7,MIIBeQYJ…(412 more characters)] when looking up k"},
		{"ENC[" + long + "]", "ENC[MIIBeQYJ…(412 more characters)]"},
		{"a ENC[GPG," + long + "] b ENC[PKCS7," + long + "]", "a ENC[GPG,MIIBeQYJ…(412 more characters)] b ENC[PKCS7,MIIBeQYJ…(412 more characters)]"},
		{"ENC[PKCS7,aGVsbG8=]", "ENC[PKCS7,aGVsbG8=]"},
		{"ENC[not a block", "ENC[not a block"},
	} {
		if got := shortenEncrypted(tc.in); got != tc.want {
			t.Errorf("shortenEncrypted(%.40q...):\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
