package trust

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"fmt"
)

// Seal is a bundle's seal, as its header holds it: the scheme, the
// recipient's certificate fingerprint and the wrapped bundle key (RSA)
// or the ephemeral public key (ECDH).
type Seal struct {
	Scheme    string // "" when the bundle is not sealed
	Recipient [32]byte
	Wrapped   string
}

// Envelope holds the key of one sealed bundle and seals or opens its
// secrets: AES-256-GCM, with a synthetic nonce (HMAC-SHA256 of the key's
// name and plaintext under a key derived from the bundle key, cut to 12
// bytes), so a nonce repeats only with its plaintext, and the node and
// key name as associated data.
type Envelope struct {
	aead  cipher.AEAD
	nonce []byte // the HMAC key of the synthetic nonces
}

// ECDHKey derives the bundle key of a SealECDH seal from the ECDH shared
// secret, the ephemeral public key and the recipient's fingerprint.
func ECDHKey(shared, ephemeral []byte, fingerprint [32]byte) []byte {
	return Derive(shared, SealLabel, 32, ephemeral, fingerprint[:])
}

// NewKeyEnvelope returns the Envelope of a bundle key (32 bytes): package
// sign makes the key when it seals a bundle, OpenEnvelope recovers it.
func NewKeyEnvelope(key []byte) (*Envelope, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Envelope{aead: aead, nonce: Derive(key, "nonce", 32)}, nil
}

// OpenEnvelope opens the seal with the node's private key (RSA or EC
// P-256); a key that cannot is ErrWrongKey.
func OpenEnvelope(seal *Seal, key crypto.PrivateKey) (*Envelope, error) {
	wrong := func(why string) error { return fmt.Errorf("%w: %s", ErrWrongKey, why) }
	switch seal.Scheme {
	case SealRSA:
		k, ok := key.(*rsa.PrivateKey)
		if !ok {
			return nil, wrong(fmt.Sprintf("the bundle is sealed with RSA, the key is %T", key))
		}
		if k == nil {
			return nil, wrong("a nil key")
		}
		bk, err := rsa.DecryptOAEP(sha256.New(), nil, k, []byte(seal.Wrapped), []byte(SealLabel))
		if err != nil || len(bk) != 32 {
			return nil, wrong("it is another node's key")
		}
		return NewKeyEnvelope(bk)
	case SealECDH:
		k, ok := key.(*ecdsa.PrivateKey)
		if !ok {
			return nil, wrong(fmt.Sprintf("the bundle is sealed with ECDH P-256, the key is %T", key))
		}
		if k == nil {
			return nil, wrong("a nil key")
		}
		ek, err := k.ECDH()
		if err != nil || k.Curve == nil || k.Curve.Params().Name != "P-256" {
			return nil, wrong("not a P-256 key")
		}
		pub, err := ecdh.P256().NewPublicKey([]byte(seal.Wrapped))
		if err != nil {
			return nil, fmt.Errorf("trust: the seal's ephemeral key: %v", err)
		}
		shared, err := ek.ECDH(pub)
		if err != nil {
			return nil, wrong(err.Error())
		}
		return NewKeyEnvelope(ECDHKey(shared, []byte(seal.Wrapped), seal.Recipient))
	}
	return nil, fmt.Errorf("trust: unknown seal scheme %q", seal.Scheme)
}

// Seal encrypts the plaintext of key name of node's bundle: nonce (12
// bytes), then ciphertext and tag.
func (e *Envelope) Seal(node, name string, plaintext []byte) []byte {
	m := hmac.New(sha256.New, e.nonce)
	m.Write(lengthPrefixed(name))
	m.Write(plaintext)
	nonce := m.Sum(nil)[:e.aead.NonceSize()]
	return e.aead.Seal(nonce, nonce, plaintext, associated(node, name))
}

// Open decrypts what Seal made; a blob that does not open (another key,
// another node or key name, damaged) is ErrWrongKey.
func (e *Envelope) Open(node, name string, blob []byte) ([]byte, error) {
	n := e.aead.NonceSize()
	if len(blob) < n+e.aead.Overhead() {
		return nil, errors.New("sealed value too short")
	}
	out, err := e.aead.Open(nil, blob[:n], blob[n:], associated(node, name))
	if err != nil {
		return nil, fmt.Errorf("%w: the sealed value of key %q does not open", ErrWrongKey, name)
	}
	return out, nil
}

// associated is the associated data of the blob of key name of node's
// bundle.
func associated(node, name string) []byte {
	b := []byte("hieracc sealed key v4\x00")
	b = append(b, lengthPrefixed(node)...)
	return append(b, lengthPrefixed(name)...)
}

func lengthPrefixed(s string) []byte {
	n := len(s)
	return append([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, s...)
}
