package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/format/ptype"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
)

// exampleBundle is a small bundle, as the compiler would write it.
func exampleBundle() *runtime.Bundle {
	data, err := encode.Encode(&format.Bundle{Node: "web01.example.com", Keys: []format.Key{
		{Name: "accounts::users", Value: H("bob", H("uid", int64(1001), "shell", "/bin/bash"), "alice", H("uid", int64(1000), "shell", "/bin/zsh"))},
		{Name: "nginx::worker_processes", Value: int64(4)},
	}})
	if err != nil {
		log.Fatal(err)
	}
	b, err := runtime.OpenBytes(data)
	if err != nil {
		log.Fatal(err)
	}
	return b
}

// Decode stores a value in Go types, as encoding/json does.
func ExampleBundle_Decode() {
	b := exampleBundle()
	type user struct {
		UID   int    `json:"uid"`
		Shell string `json:"shell"`
	}
	var users map[string]user
	if err := b.Decode("accounts::users", &users); err != nil {
		log.Fatal(err)
	}
	fmt.Println(users["alice"].UID, users["bob"].Shell)

	var wrong map[string]struct{ Shell int }
	fmt.Println(b.Decode("accounts::users", &wrong))
	// Output:
	// 1000 /bin/bash
	// runtime: key "accounts::users" at /bob/shell: cannot decode String into int
}

// Typed getters for the common cases.
func ExampleBundle_LookupInt() {
	b := exampleBundle()
	n, err := b.LookupInt("nginx::worker_processes")
	fmt.Println(n, err)
	_, err = b.LookupInt("nginx::user")
	fmt.Println(err, errors.Is(err, runtime.ErrNotFound))
	// Output:
	// 4 <nil>
	// Function lookup() did not find a value for the name 'nginx::user' true
}

// Hashes keep Puppet's order, also in JSON.
func ExampleBundle_LookupHash() {
	b := exampleBundle()
	h, _ := b.LookupHash("accounts::users")
	out, _ := json.Marshal(h)
	fmt.Println(string(out))
	// Output:
	// {"bob":{"uid":1001,"shell":"/bin/bash"},"alice":{"uid":1000,"shell":"/bin/zsh"}}
}

// LookupNames is the whole of Puppet's lookup(): several names, a value
// type, overrides and defaults.
func ExampleBundle_LookupNames() {
	b := exampleBundle()
	v, err := b.LookupNames([]string{"nginx::workers", "nginx::worker_processes"}, runtime.Options{
		ValueType: ptype.MustParse("Integer[1, 64]"),
	})
	fmt.Println(v, err)

	_, err = b.LookupNames([]string{"nginx::worker_processes"}, runtime.Options{ValueType: ptype.MustParse("String")})
	fmt.Println(err)

	v, _ = b.LookupNames([]string{"nginx::user"}, runtime.Options{
		DefaultFunc: func(names []string) (any, error) { return "www-data", nil }, // lookup()'s lambda
	})
	fmt.Println(v)
	// Output:
	// 4 <nil>
	// Found value has wrong type, expects a String value, got Integer
	// www-data
}

// A bundle fetched over the network, say, with its shared details file:
// lookups need only the bundle; explanations and lookup-time merges need
// the file its SharedDetailsFile names, given with AttachSharedDetails.
func ExampleBundle_AttachSharedDetails() {
	common := format.Contribution{Layer: format.LayerEnvironment, Line: 3, Column: 1, Value: A("ntp1.example.com")}
	bundle, shared, err := encode.EncodeShared(&format.Bundle{Node: "web01.example.com",
		Env:  format.Hierarchy{Present: true, Levels: []format.Level{{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}}}},
		Keys: []format.Key{{Name: "ntp::servers", Value: A("ntp1.example.com"), Contributions: []format.Contribution{common}}},
	}, encode.Protection{})
	if err != nil {
		log.Fatal(err)
	}
	b, err := runtime.OpenBytes(bundle)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Lookup("ntp::servers"))
	_, err = explain.Key(b, "ntp::servers")
	fmt.Println(errors.Is(err, runtime.ErrNoSharedDetails))

	fmt.Println(b.SharedDetailsFile() == format.SharedDetailsName(shared.Digest))
	if err := b.AttachSharedDetails(shared.Data); err != nil {
		log.Fatal(err)
	}
	e, err := explain.Key(b, "ntp::servers")
	fmt.Println(e.Sources[0].Pos, err)
	// Output:
	// [ntp1.example.com] <nil>
	// true
	// true
	// data/common.yaml:3:1 <nil>
}
