package format

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/hieracc/hieracc/format/internal/wire"
)

// Rename gives the bundle data of node from another node's name of the
// same length, its checksum made right: only the signature can tell.
func Rename(t *testing.T, data []byte, from, to string) []byte {
	t.Helper()
	h, off, err := parseHeader(string(data))
	if err != nil || h.Node != from || len(from) != len(to) {
		t.Fatalf("rename: %v", err)
	}
	d := bytes.Clone(data)
	i := bytes.Index(d[:off], []byte(from))
	copy(d[i:], to)
	binary.BigEndian.PutUint32(d[off-4:], crc32.Checksum(d[:off-5], wire.Castagnoli))
	return d
}
