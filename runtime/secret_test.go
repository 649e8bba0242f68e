package runtime_test

import (
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
)

// TestSecret: Secret agrees with Explain's Secret, without the details.
func TestSecret(t *testing.T) {
	data, err := encode.Encode(&format.Bundle{Node: "n", Keys: []format.Key{
		{Name: "db::password", Value: "hunter2", Secret: true},
		{Name: "hash", Value: hashAB()},
		{Name: "plain", Value: "x"},
		{Name: "token", Value: "t", ConvertTo: []format.Value{"Sensitive"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := runtime.OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{"db::password": true, "db::password.0": true, "token": true, "plain": false, "hash.a": false, "missing": false, "'bad": false} {
		if got := b.Secret(key); got != want {
			t.Errorf("Secret(%q) = %v, want %v", key, got, want)
		}
		if e, err := explain.Key(b, key); err == nil && e.Secret != want {
			t.Errorf("Explain(%q).Secret = %v, Secret %v", key, e.Secret, want)
		}
	}
}

func hashAB() *format.Hash {
	h := format.NewHash(1)
	h.Set("a", "b")
	return h
}
