package facts

import (
	"fmt"

	"github.com/hieracc/hieracc/format"
)

// trustedHash checks a recorded $trusted: a hash whose certname is the
// node's. msg says what is wrong otherwise.
func trustedHash(certname string, v any) (t *format.Hash, msg string) {
	h, ok := v.(*format.Hash)
	if !ok {
		return nil, fmt.Sprintf("records trusted as %s, not a hash", describe(v))
	}
	c, _ := h.Get("certname")
	if c != certname {
		return nil, fmt.Sprintf("records a trusted hash whose certname is %v, not %s: $trusted must be the node's own", describeCert(c), certname)
	}
	return h, ""
}

func describeCert(c any) string {
	if s, ok := c.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return describe(c)
}
