package format

// Secret reports whether the key's value or contributions hold text
// decrypted from ENC[...] (Key.Secret), from the key's flags: its details
// need not be decoded.
func (k *IndexKey) Secret() bool { return k.secret }
