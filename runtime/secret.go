package runtime

import "github.com/hieracc/hieracc/format/hiera"

// Secret reports whether key's value is secret, as explain.Key's
// Explanation.Secret says: its data holds text decrypted from ENC[...], or
// its lookups return a Sensitive. Unlike explain.Key, it reads only the
// key's flags, not the details. A key the bundle does not hold, or a malformed one, is not.
// A server that shows values to others (hieracc serve) hides these.
func (b *Bundle) Secret(key string) bool {
	k, err := hiera.ParseKey(key)
	if err != nil {
		return false
	}
	i := b.x.Find(k.Root)
	if i < 0 {
		return false
	}
	return b.x.Keys[i].Secret() || b.x.Keys[i].Sensitive
}
