package runtime_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/render"
)

func Example() {
	// The compiler writes one bundle per node; here, a small one by hand.
	servers := []any{"0.pool.ntp.org", "1.pool.ntp.org"}
	data, err := encode.Encode(&format.Bundle{
		Node:        "web01.example.com",
		Environment: "production",
		Keys:        []format.Key{{Name: "ntp::servers", Value: servers}},
	})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "bundle")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "web01.example.com.bundle")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}

	// What an agent does.
	b, err := runtime.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	v, err := b.Lookup("ntp::servers")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v)
	v, _ = b.Lookup("ntp::servers.1")
	fmt.Println(v)
	_, err = b.Lookup("ntp::pool")
	fmt.Println(errors.Is(err, runtime.ErrNotFound))
	out, _ := render.As(servers, render.JSON)
	fmt.Print(string(out))
	// Output:
	// [0.pool.ntp.org 1.pool.ntp.org]
	// 1.pool.ntp.org
	// true
	// ["0.pool.ntp.org","1.pool.ntp.org"]
}
