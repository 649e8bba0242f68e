package compiler

// eyaml levels (lookup_key: eyaml_lookup_key): their files are read as YAML
// data, and each ENC[...] value in them is decrypted when the file is
// loaded, before interpolation, as Puppet's eyaml_lookup_key does. A value
// that cannot be decrypted fails only the lookups of its top-level key.

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/compiler/internal/eyaml"
	"github.com/hieracc/hieracc/format"
)

// eyamlFunction is how a level with lookup_key: eyaml_lookup_key is recorded.
const eyamlFunction = "lookup_key:eyaml_lookup_key"

// KeyFile is a PEM key file given on the command line.
type KeyFile struct {
	Name string // as given, for messages
	Data []byte
}

// eyamlKeyPaths are the key files an eyaml level's options name ("" when
// an option is not defined).
type eyamlKeyPaths struct{ private, public string }

// eyamlKeysOf reads pkcs7_private_key and pkcs7_public_key from a level's
// options.
func eyamlKeysOf(opts any) eyamlKeyPaths {
	h, _ := opts.(*format.Hash)
	get := func(k string) string {
		v, _ := h.Get(k)
		s, _ := v.(string)
		return s
	}
	return eyamlKeyPaths{get("pkcs7_private_key"), get("pkcs7_public_key")}
}

// keyring holds a decrypter for each key pair eyaml levels name.
type keyring struct {
	decrypters map[keyringKey]*eyaml.Decrypter
	// uses says, for each key pair, which levels use it and where their
	// keys come from: a compile's diagnostics report keys that cannot be
	// used once per level (see keysFailure), not once per value.
	uses map[keyringKey]*keyUse
	// failed maps the message of each value that failed for want of its
	// level's keys (Puppet's, which a bundle keeps) to its key pair's use.
	failed sync.Map
	// sum digests every key used, for revisions: new keys may decrypt
	// the same files to other values. Zero when no level uses eyaml.
	sum [32]byte
}

// keyringKey identifies a level's key pair: the files its options name,
// and the folder relative names start from.
type keyringKey struct {
	root  string
	paths eyamlKeyPaths
}

// newKeyring reads the keys of every eyaml level of the given layers: the
// files given by in.PKCS7PrivateKey and in.PKCS7PublicKey, else those the
// level's options (or a Hiera 3 :eyaml: section) name. An absolute path is
// read from the folder a mount gives it, else from the local disk (the only
// files hieracc reads outside its input folders); a relative one inside
// the layer's folder.
func newKeyring(in Input, configs []*config) *keyring {
	kr := &keyring{decrypters: map[keyringKey]*eyaml.Decrypter{}, uses: map[keyringKey]*keyUse{}}
	readAbs := in.ReadKeyFile
	if readAbs == nil {
		readAbs = func(p string) ([]byte, error) { return format.ReadRegular(p, dataload.MaxFileSize) }
	}
	mounts := cleanMounts(in.Mounts)
	read := func(root, p string) ([]byte, error) {
		if path.IsAbs(p) {
			if mp, ok := mapServerPath(mounts, path.Clean(p)); ok {
				return fs.ReadFile(in.FS, mp)
			}
			return readAbs(p)
		}
		return fs.ReadFile(in.FS, path.Join(root, p))
	}
	h := sha256.New()
	used := false
	for _, c := range configs {
		if c == nil || !c.present || c.err != nil {
			continue
		}
		for _, lvl := range slices.Concat(c.hierarchy, c.defaultHierarchy) {
			if lvl.function != eyamlFunction {
				continue
			}
			k := keyringKey{c.root, lvl.keys}
			if u := kr.uses[k]; u != nil {
				u.levels = append(u.levels, lvl.name)
				continue
			}
			used = true
			kp := eyaml.KeyPair{PrivatePath: k.paths.private, PublicPath: k.paths.public}
			if f := in.PKCS7PrivateKey; f != nil {
				kp.PrivatePath, kp.Private = f.Name, f.Data
			} else if kp.PrivatePath != "" {
				kp.Private, kp.PrivateErr = read(c.root, kp.PrivatePath)
			}
			if f := in.PKCS7PublicKey; f != nil {
				kp.PublicPath, kp.Public = f.Name, f.Data
			} else if kp.PublicPath != "" {
				kp.Public, kp.PublicErr = read(c.root, kp.PublicPath)
			}
			fmt.Fprintf(h, "%d:%s%d:%s%x%x\n", len(kp.PrivatePath), kp.PrivatePath, len(kp.PublicPath), kp.PublicPath,
				sha256.Sum256(kp.Private), sha256.Sum256(kp.Public))
			dec := eyaml.NewDecrypter(kp)
			kr.decrypters[k] = dec
			kr.uses[k] = &keyUse{
				dec: dec, pos: lvl.pos.In(c.file), levels: []string{lvl.name}, v3: lvl.noRoot,
				private: keySource{path: kp.PrivatePath, flag: in.PKCS7PrivateKey != nil},
				public:  keySource{path: kp.PublicPath, flag: in.PKCS7PublicKey != nil},
				mounts:  mounts,
			}
		}
	}
	if used {
		h.Sum(kr.sum[:0])
	}
	return kr
}

// keyUse is a key pair as the levels that use it name it.
type keyUse struct {
	dec     *eyaml.Decrypter
	pos     format.Pos // the first level's, in its hiera.yaml
	levels  []string   // the levels' names, the first first
	v3      bool       // a Hiera 3 config's :eyaml: section names the keys
	private keySource
	public  keySource
	mounts  []Mount

	once sync.Once
	diag diagnostics.Diagnostic
}

// keySource is where a key file comes from: the path an option names (""
// when it names none), or the one a flag gives.
type keySource struct {
	path string
	flag bool
}

// eyamlErrorStart starts hiera-eyaml's message for a value it cannot
// decrypt (decryptError.message).
const eyamlErrorStart = "hiera-eyaml backend error decrypting "

// keysFailure returns, for the message of a lookup that failed because
// its eyaml level's keys cannot be used, the compile's diagnostic for
// those keys: one for the level however many values and keys fail, which
// names the level, the key files it looked for and the flags that supply
// them, and quotes no ciphertext. The lookup's own error (in the bundle)
// stays Puppet's.
func (kr *keyring) keysFailure(msg string) (diagnostics.Diagnostic, bool) {
	if kr == nil {
		return diagnostics.Diagnostic{}, false
	}
	i := strings.Index(msg, eyamlErrorStart)
	if i < 0 {
		return diagnostics.Diagnostic{}, false
	}
	v, ok := kr.failed.Load(msg[i:])
	if !ok {
		return diagnostics.Diagnostic{}, false
	}
	u := v.(*keyUse)
	u.once.Do(func() { u.diag = u.diagnostic() })
	return u.diag, true
}

// diagnostic words the keys' problem for people: the eyaml error, where
// each key was looked for, and the flags that supply them.
func (u *keyUse) diagnostic() diagnostics.Diagnostic {
	options := "the level's options"
	if u.v3 {
		options = "the :eyaml: section"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cannot decrypt this level's ENC[...] values, every lookup that reads one fails: %v.", u.dec.KeyErr())
	if len(u.levels) > 1 {
		fmt.Fprintf(&b, " (The same keys serve level %s.)", quoteList(u.levels[1:]))
	}
	describe := func(option, flag string, s keySource) string {
		switch {
		case s.flag:
			return fmt.Sprintf("%s (%s)", s.path, flag)
		case s.path == "":
			return fmt.Sprintf("none (no %s in %s)", option, options)
		default:
			return fmt.Sprintf("%s (%s in %s)", s.path, option, options)
		}
	}
	fmt.Fprintf(&b, " Private key: %s; public key: %s.",
		describe("pkcs7_private_key", "--pkcs7-private-key", u.private),
		describe("pkcs7_public_key", "--pkcs7-public-key", u.public))
	var missing []string
	if !u.private.flag {
		missing = append(missing, "--pkcs7-private-key FILE")
	}
	if !u.public.flag {
		missing = append(missing, "--pkcs7-public-key FILE")
	}
	if len(missing) == 0 {
		b.WriteString(" Check the files those flags name.")
		return diagnostics.Diagnostic{Pos: u.pos, Level: u.levels[0], Message: b.String()}
	}
	fmt.Fprintf(&b, " Pass the keys with %s", strings.Join(missing, " and "))
	// An absolute path of the options may name a file of the Puppet
	// server's disk, which --mount supplies.
	var dirs []string
	for _, s := range []keySource{u.private, u.public} {
		if !s.flag && path.IsAbs(s.path) {
			if _, ok := mapServerPath(u.mounts, path.Clean(s.path)); !ok {
				dirs = append(dirs, "--mount "+path.Dir(path.Clean(s.path))+"=DIR")
			}
		}
	}
	if dirs = slices.Compact(dirs); len(dirs) > 0 {
		fmt.Fprintf(&b, ", or supply their folder with %s", strings.Join(dirs, " "))
	}
	b.WriteString(".")
	return diagnostics.Diagnostic{Pos: u.pos, Level: u.levels[0], Message: b.String()}
}

// quoteList is `"a"`, `"a" and "b"`, `"a", "b" and "c"`.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// shortenEncrypted shortens each ENC[...] block of a message for people:
// the scheme and the first characters of its text, and how many more
// there were (ENC[PKCS7,MIIBeQYJ…(412 more characters)]). A bundle's
// errors keep Puppet's whole message; a person reading a compile's
// diagnostics has no use for 500 characters of base64.
func shortenEncrypted(msg string) string {
	if !strings.Contains(msg, "ENC[") {
		return msg
	}
	const keep = 8
	var b strings.Builder
	for _, t := range eyaml.Parse(msg) {
		if !t.Enc {
			b.WriteString(t.Text)
			continue
		}
		// t.Text is ENC[SCHEME,TEXT] or ENC[TEXT].
		body := t.Text[len("ENC[") : len(t.Text)-1]
		head := ""
		if i := strings.IndexByte(body, ','); i >= 0 {
			head, body = body[:i+1], body[i+1:]
		}
		if len(body) <= keep+24 {
			b.WriteString(t.Text)
			continue
		}
		fmt.Fprintf(&b, "ENC[%s%s…(%d more characters)]", head, body[:keep], len(body)-keep)
	}
	return b.String()
}

// v3DataHash prefixes the function of a Hiera 3 level that reads YAML or
// JSON (see dataFunction): Puppet's messages say "v3_data_hash function
// 'yaml_data'" of its files.
const v3DataHash = "v3_data_hash:"

// dataFunction is the function a level's files are loaded with: its
// function, marked as Hiera 3's when the level comes from a version 3
// hiera.yaml (whose levels alone do not start from their config's folder).
func dataFunction(lvl *levelConf) string {
	if lvl.noRoot && (lvl.function == "yaml_data" || lvl.function == "json_data") {
		return v3DataHash + lvl.function
	}
	return lvl.function
}

// relabelInvalid words the messages of a data file's values that are not
// data (dataload's "Value for key 'k', in hash returned from data_hash
// function 'yaml_data', ...") as Puppet does for the function that
// returned them: eyaml_lookup_key returns each value by itself, and
// Hiera 3's levels are v3_data_hash functions.
func relabelInvalid(invalid map[any]diagnostics.Diagnostic, function string, v3 bool) map[any]diagnostics.Diagnostic {
	var to string
	switch {
	case function == eyamlFunction:
		to = "returned from lookup_key function 'eyaml_lookup_key', "
	case v3:
		to = "in hash returned from v3_data_hash function '" + function + "', "
	default:
		return invalid
	}
	for k, pr := range invalid {
		for _, fn := range [...]string{"yaml_data", "json_data"} {
			from := "in hash returned from data_hash function '" + fn + "', "
			if i := strings.Index(pr.Message, from); i >= 0 && strings.HasPrefix(pr.Message, "Value for key ") {
				pr.Message = pr.Message[:i] + to + pr.Message[i+len(from):]
				invalid[k] = pr
				break
			}
		}
	}
	return invalid
}

// decryptFile decrypts the ENC[...] values of a loaded eyaml file in place.
// A value that fails gets Puppet's message in invalid; it returns the keys
// whose values held encrypted text, and the texts a lookup of an invalid
// key interpolates before it fails (see pendingTexts).
//
// hiera-eyaml walks a value in document order, decrypting then
// interpolating each string, and Puppet checks the finished value's type
// last: a value that does not decrypt, or is not data (invalidTexts holds
// its strings), fails with the first error of that walk. Decryption
// happens here, for every node; interpolation per node, when the key is
// read.
//
// A value that fails for want of the keys (not one the keys cannot
// decrypt) is noted in kr, for the compile's diagnostics (keysFailure).
func decryptFile(df *dataFile, kr *keyring, keys keyringKey, invalid map[any]diagnostics.Diagnostic, invalidTexts map[any][]dataload.Text) (map[any]diagnostics.Diagnostic, map[any]bool, map[any]*pendingTexts) {
	dec := kr.decrypters[keys]
	problem := func(i int, derr *decryptError) diagnostics.Diagnostic {
		msg := derr.message(df.hash.Key(i), df.path)
		if u := kr.uses[keys]; u != nil && dec != nil && derr.err == dec.KeyErr() {
			kr.failed.Store(msg, u)
		}
		return diagnostics.Diagnostic{Pos: df.pos[i].In(df.path), Message: msg}
	}
	var secret map[any]bool
	var pending map[any]*pendingTexts
	walk := func(k any, ts []dataload.Text) *decryptError {
		p, derr := walkTexts(ts, dec)
		if p != nil {
			if pending == nil {
				pending = map[any]*pendingTexts{}
			}
			pending[k] = p
		}
		return derr
	}
	for i := 0; i < df.hash.Len(); i++ {
		k := df.hash.Key(i)
		if _, bad := invalid[k]; bad {
			// Not data: its strings are walked first.
			if derr := walk(k, invalidTexts[k]); derr != nil {
				invalid[k] = problem(i, derr)
			}
			continue
		}
		v, changed, isSecret, err := decryptValue(df.hash.Value(i), dec)
		if err != nil {
			if invalid == nil {
				invalid = map[any]diagnostics.Diagnostic{}
			}
			walk(k, dataload.Texts(nil, df.hash.Value(i)))
			invalid[k] = problem(i, err)
			continue
		}
		if changed {
			df.hash.Set(k, v)
		}
		if isSecret {
			if secret == nil {
				secret = map[any]bool{}
			}
			secret[k] = true
		}
	}
	return invalid, secret, pending
}

// pendingTexts are the strings a lookup of an eyaml file's invalid entry
// interpolates, in order, before it meets the entry's error (Puppet's
// first error wins): those that hold an interpolation, decrypted.
type pendingTexts struct {
	texts  []string
	secret bool // some hold decrypted text
}

// walkTexts decrypts the encrypted strings of ts in order, up to the
// first that fails (its error), and returns the strings before it that
// interpolation could fail on (nil: none).
func walkTexts(ts []dataload.Text, dec *eyaml.Decrypter) (*pendingTexts, *decryptError) {
	var p pendingTexts
	var derr *decryptError
	for _, t := range ts {
		s := t.S
		if !t.Key && eyaml.Encrypted(s) {
			plain, decrypted, err := dec.Decrypt(s)
			if err != nil {
				derr = &decryptError{s, err}
				break
			}
			s = plain
			p.secret = p.secret || decrypted
		}
		if strings.Contains(s, "%{") {
			p.texts = append(p.texts, s)
		}
	}
	if len(p.texts) == 0 {
		return nil, derr
	}
	return &p, derr
}

// decryptError is a string that failed to decrypt, and why.
type decryptError struct {
	data string
	err  error
}

// message is eyaml's message for a lookup of key in file.
func (e *decryptError) message(key any, file string) string {
	return fmt.Sprintf("hiera-eyaml backend error decrypting %s when looking up %v in %s. Error was %s", e.data, key, file, e.err)
}

// decryptValue decrypts every encrypted string in v, copying the
// containers it changes (values may be shared through YAML aliases).
// changed says whether the value changed (a string that only looks
// encrypted loses a trailing line break too, as in Puppet), secret whether
// it now holds decrypted text.
func decryptValue(v any, dec *eyaml.Decrypter) (out any, changed, secret bool, derr *decryptError) {
	switch v := v.(type) {
	case string:
		if !eyaml.Encrypted(v) {
			return v, false, false, nil
		}
		p, decrypted, err := dec.Decrypt(v)
		if err != nil {
			return nil, false, false, &decryptError{v, err}
		}
		return p, p != v, decrypted, nil
	case []any:
		var arr []any
		for i, e := range v {
			x, ch, sec, err := decryptValue(e, dec)
			if err != nil {
				return nil, false, false, err
			}
			secret = secret || sec
			if ch && arr == nil {
				arr = slices.Clone(v)
			}
			if arr != nil {
				arr[i] = x
			}
		}
		return orSame(arr, v), arr != nil, secret, nil
	case *format.Hash:
		var h *format.Hash
		for i := 0; i < v.Len(); i++ {
			x, ch, sec, err := decryptValue(v.Value(i), dec)
			if err != nil {
				return nil, false, false, err
			}
			secret = secret || sec
			if ch && h == nil {
				h = format.NewHash(v.Len())
				for j := 0; j < i; j++ {
					h.Set(v.Key(j), v.Value(j))
				}
			}
			if h != nil {
				h.Set(v.Key(i), x)
			}
		}
		if h == nil {
			return v, false, secret, nil
		}
		return h, true, secret, nil
	}
	return v, false, false, nil
}

func orSame(out, v []any) []any {
	if out == nil {
		return v
	}
	return out
}
