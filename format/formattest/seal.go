package formattest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash/crc32"

	"github.com/vmihailenco/msgpack/v5"
)

// Split returns the header fields and the body of an encoded bundle,
// parsing the header as SPEC.md describes it, independently of package
// format.
func Split(data []byte) (version int, node, env, rev string, body []byte, err error) {
	d := msgpack.NewDecoder(bytes.NewReader(data))
	var magic string
	var n int
	var digest []byte
	var bodyLen uint64
	if magic, err = d.DecodeString(); err != nil {
		return
	}
	if magic != "hieracc-bundle" {
		err = fmt.Errorf("bad magic %q", magic)
		return
	}
	if version, err = d.DecodeInt(); err != nil {
		return
	}
	if n, err = d.DecodeArrayLen(); err != nil || n != 6 {
		err = fmt.Errorf("header: %d fields, %v", n, err)
		return
	}
	if digest, err = d.DecodeBytes(); err != nil {
		return
	}
	_ = digest
	if bodyLen, err = d.DecodeUint64(); err != nil {
		return
	}
	for _, f := range []*string{&node, &env, &rev} {
		if *f, err = d.DecodeString(); err != nil {
			return
		}
	}
	if _, err = d.DecodeUint32(); err != nil {
		return
	}
	if bodyLen > uint64(len(data)) {
		err = fmt.Errorf("body length %d > %d", bodyLen, len(data))
		return
	}
	body = data[len(data)-int(bodyLen):]
	return
}

// Seal builds a bundle around body with a correct digest and checksum, so
// that tests can feed a decoder arbitrary bodies.
func Seal(version int, node, env, rev string, body []byte) []byte {
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	digest := sha256.Sum256(body)
	_ = e.EncodeString("hieracc-bundle")
	_ = e.EncodeInt(int64(version))
	_ = e.EncodeArrayLen(6)
	_ = e.EncodeBytes(digest[:])
	_ = e.EncodeUint(uint64(len(body)))
	_ = e.EncodeString(node)
	_ = e.EncodeString(env)
	_ = e.EncodeString(rev)
	_ = e.EncodeUint32(crc32.Checksum(buf.Bytes(), crc32.MakeTable(crc32.Castagnoli)))
	buf.Write(body)
	return buf.Bytes()
}

// Reseal replaces the body of an encoded bundle and fixes its digest and
// checksum. It returns data unchanged if its header cannot be parsed.
func Reseal(data, body []byte) []byte {
	v, node, env, rev, _, err := Split(data)
	if err != nil {
		return data
	}
	return Seal(v, node, env, rev, body)
}
