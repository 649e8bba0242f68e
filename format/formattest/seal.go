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
	br := bytes.NewReader(data)
	d := msgpack.NewDecoder(br) // reads br byte by byte: br.Len() is what is left
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
	fields := headerFields(version)
	if n, err = d.DecodeArrayLen(); err != nil || n != fields {
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
	if version >= 7 {
		if _, err = d.DecodeString(); err != nil { // source revision
			return
		}
	}
	if version >= 4 {
		if _, err = d.DecodeInterface(); err != nil {
			return
		}
	}
	if _, err = d.DecodeUint32(); err != nil {
		return
	}
	off := len(data) - br.Len()
	if bodyLen > uint64(len(data)-off) {
		err = fmt.Errorf("body length %d > %d", bodyLen, len(data)-off)
		return
	}
	body = data[off : off+int(bodyLen)]
	return
}

// headerFields is the length of the header array of a version: 4 adds the
// seal, 7 the source revision.
func headerFields(version int) int {
	switch {
	case version >= 7:
		return 8
	case version >= 4:
		return 7
	}
	return 6
}

// Seal builds a bundle around body with a correct digest and checksum
// (from version 4, neither sealed nor signed), so that tests can feed a
// decoder arbitrary bodies.
func Seal(version int, node, env, rev string, body []byte) []byte {
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	digest := sha256.Sum256(body)
	_ = e.EncodeString("hieracc-bundle")
	_ = e.EncodeInt(int64(version))
	_ = e.EncodeArrayLen(headerFields(version))
	_ = e.EncodeBytes(digest[:])
	_ = e.EncodeUint(uint64(len(body)))
	_ = e.EncodeString(node)
	_ = e.EncodeString(env)
	_ = e.EncodeString(rev)
	if version >= 7 {
		_ = e.EncodeString("") // no source revision
	}
	if version >= 4 {
		_ = e.EncodeNil() // no seal
	}
	_ = e.EncodeUint32(crc32.Checksum(buf.Bytes(), crc32.MakeTable(crc32.Castagnoli)))
	buf.Write(body)
	if version >= 4 {
		buf.WriteByte(0xc0) // no signature
	}
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
