// Package eyaml decrypts the ENC[...] values of hiera-eyaml data files
// exactly as Puppet's eyaml_lookup_key (hiera-eyaml 3.3) does: it finds the
// encrypted blocks in a string, decrypts each PKCS7 block with the level's
// keys, and gives Puppet's error messages when it cannot.
//
// The parser (this file) follows hiera-eyaml's "hiera backend" parser; the
// decrypter (pkcs7.go) reads PKCS#7 enveloped data (RSA PKCS#1 v1.5 key
// transport, AES- or 3DES-CBC content) with the standard library only.
//
// Where hieracc differs from Puppet: an ENC block of another scheme (GPG)
// is an error of the lookups that read it, where Puppet's process dies
// (hiera-eyaml-gpg is not installed with Puppet); key files named in
// hiera.yaml by an *_env_var option are not read (the server's environment
// is not known).
package eyaml

import "strings"

// Encrypted reports whether Puppet's eyaml_lookup_key treats s as encrypted:
// Ruby's /.*ENC\[.*?\]/, where "." does not match a newline, so "ENC[" and
// a later "]" must be on one line.
func Encrypted(s string) bool {
	for {
		i := strings.Index(s, "ENC[")
		if i < 0 {
			return false
		}
		rest := s[i+4:]
		j := strings.IndexAny(rest, "]\n")
		if j >= 0 && rest[j] == ']' {
			return true
		}
		s = rest
	}
}

// Token is a piece of a parsed string: plain text, or an encrypted block.
type Token struct {
	// Text is the token's text as written.
	Text string
	// Enc is set for an encrypted block; Scheme and Cipher are then its
	// scheme ("PKCS7" when it names none) and its base64 text with the
	// whitespace removed.
	Enc            bool
	Scheme, Cipher string
}

// Parse splits s as hiera-eyaml's hiera backend parser does: each match of
// ENC\[(\w+,)?([a-zA-Z0-9+/ =\n]+?)\] (Ruby regexps: \w is ASCII) is an
// encrypted block, the text between them is plain. Joining the tokens'
// Text gives s back.
func Parse(s string) []Token {
	var out []Token
	plainFrom := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "ENC[")
		if j < 0 {
			break
		}
		start := i + j
		end, scheme, cipher, ok := matchAt(s, start)
		if !ok {
			i = start + 1
			continue
		}
		if plainFrom < start {
			out = append(out, Token{Text: s[plainFrom:start]})
		}
		out = append(out, Token{Text: s[start:end], Enc: true, Scheme: scheme, Cipher: cipher})
		plainFrom, i = end, end
	}
	if plainFrom < len(s) {
		out = append(out, Token{Text: s[plainFrom:]})
	}
	return out
}

// matchAt matches the block regexp at s[start:], which begins with "ENC[".
// The optional scheme group is tried first, as Ruby's backtracking does.
func matchAt(s string, start int) (end int, scheme, cipher string, ok bool) {
	p := start + 4
	// With a scheme: \w+ then ",".
	q := p
	for q < len(s) && isWord(s[q]) {
		q++
	}
	if q > p && q < len(s) && s[q] == ',' {
		if e, c, ok := cipherAt(s, q+1); ok {
			return e, s[p:q], c, true
		}
	}
	if e, c, ok := cipherAt(s, p); ok {
		return e, "PKCS7", c, true
	}
	return 0, "", "", false
}

// cipherAt matches [a-zA-Z0-9+/ =\n]+ then "]" at s[p:].
func cipherAt(s string, p int) (end int, cipher string, ok bool) {
	q := p
	for q < len(s) && isCipher(s[q]) {
		q++
	}
	if q == p || q >= len(s) || s[q] != ']' {
		return 0, "", false
	}
	// hiera-eyaml removes whitespace before decoding.
	c := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' {
			return -1
		}
		return r
	}, s[p:q])
	return q + 1, c, true
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isCipher(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == ' ' || c == '\n'
}

// decode64 is Ruby's lenient Base64.decode64 (String#unpack("m")): bytes
// outside the alphabet are skipped, "=" ends the data, and an incomplete
// last group gives what bytes it can.
func decode64(s string) []byte {
	out := make([]byte, 0, len(s)*3/4)
	var quad [4]int
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' && n >= 2 {
			break
		}
		v := b64val(c)
		if v < 0 {
			continue
		}
		quad[n] = v
		n++
		if n == 4 {
			out = append(out, byte(quad[0]<<2|quad[1]>>4), byte(quad[1]<<4|quad[2]>>2), byte(quad[2]<<6|quad[3]))
			n = 0
		}
	}
	switch n {
	case 2:
		out = append(out, byte(quad[0]<<2|quad[1]>>4))
	case 3:
		out = append(out, byte(quad[0]<<2|quad[1]>>4), byte(quad[1]<<4|quad[2]>>2))
	}
	return out
}

func b64val(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}
