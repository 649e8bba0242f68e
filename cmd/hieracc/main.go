// Command hieracc compiles Puppet Hiera 5 data ahead of time into one bundle
// per node, and looks keys up in those bundles as `puppet lookup` would.
//
// Run `hieracc help` for usage.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
