package reload_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/runtime/reload"
)

// Watch keeps a bundle file's reloader current while the compiler
// replaces the file.
func ExampleFile_Watch() {
	dir, err := os.MkdirTemp("", "bundles")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "web01.example.com.bundle")
	write := func(workers int64) { // as hieracc compile does: a temporary file renamed over the old one
		data, err := encode.Encode(&format.Bundle{Node: "web01.example.com", Revision: fmt.Sprint(workers),
			Keys: []format.Key{{Name: "nginx::worker_processes", Value: workers}}})
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(path+".tmp", data, 0o640); err != nil {
			log.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			log.Fatal(err)
		}
	}
	write(4)
	r, err := reload.NewFile(path)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reloaded := make(chan error, 1)
	go r.Watch(ctx, 0, func(changed bool, err error) { reloaded <- err })

	v, _ := r.Bundle().Lookup("nginx::worker_processes")
	fmt.Println(v)
	time.Sleep(50 * time.Millisecond) // (for the example: let the watch begin)
	write(8)
	if err := <-reloaded; err != nil {
		log.Fatal(err)
	}
	v, _ = r.Bundle().Lookup("nginx::worker_processes")
	fmt.Println(v)
	// Output:
	// 4
	// 8
}
