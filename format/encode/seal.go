package encode

import (
	"bytes"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/internal/wire"
	"github.com/hieracc/hieracc/format/trust"
	"github.com/hieracc/hieracc/format/trust/sign"
)

// Protection says how EncodeWith and Encoder.AppendWith sign and seal a
// bundle. The zero Protection writes a plain, unsigned bundle.
type Protection struct {
	// Signer signs the bundle: header (node, environment, revision, seal)
	// and, through the header's digest, the body.
	Signer *sign.Signer
	// Recipient, when set, is the node's certificate: every key marked
	// Secret or Sensitive is sealed whole (value or error, and details)
	// to it.
	Recipient *sign.Recipient
}

// EncodeWith is Encode with signing and sealing.
func EncodeWith(b *format.Bundle, p Protection) ([]byte, error) {
	e := encoderPool.Get().(*Encoder)
	out, err := e.AppendWith(nil, b, p)
	e.Reset()
	if e.small() {
		encoderPool.Put(e)
	}
	return out, err
}

// sealed reports whether k is sealed under p.
func (p *Protection) sealed(k *format.Key) bool {
	return p.Recipient != nil && (k.Secret || k.Sensitive())
}

// sealKey encrypts k whole: the plaintext is the body of a bundle of k
// alone (its own value and error tables, no hierarchies), so that nothing
// of it is shared with the plain keys.
func sealKey(env *trust.Envelope, node string, k *format.Key) ([]byte, error) {
	one := *k
	one.Ciphertext, one.Sealed = "", false
	e := encoderPool.Get().(*Encoder)
	data, err := e.Append(nil, &format.Bundle{Keys: []format.Key{one}})
	body := e.bodyLen
	e.Reset()
	if e.small() {
		encoderPool.Put(e)
	}
	if err != nil {
		return nil, err
	}
	h, err := format.ReadHeader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return env.Seal(node, k.Name, data[h.Size-int64(body):h.Size]), nil
}

// appendSeal writes a header's seal: nil, or array(3) [scheme,
// recipient, wrapped].
func appendSeal(w []byte, s *trust.Seal) []byte {
	if s == nil || s.Scheme == "" {
		return append(w, wire.Nil)
	}
	w = append(w, 0x93)
	w = appendString(w, s.Scheme)
	w = appendBin(w, s.Recipient[:])
	return appendBin(w, []byte(s.Wrapped))
}

// appendSignature writes a version 4 signature: nil, or array(3)
// [scheme, certs, sig].
func appendSignature(w []byte, sig *trust.Signature) []byte {
	if sig == nil {
		return append(w, wire.Nil)
	}
	w = append(w, 0x93)
	w = appendString(w, sig.Scheme)
	w = appendArrayLen(w, len(sig.Certs))
	for _, c := range sig.Certs {
		w = appendBin(w, c)
	}
	return appendBin(w, sig.Sig)
}
