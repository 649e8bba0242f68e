package hiera_test

import (
	"github.com/hieracc/hieracc/format/hiera"
	"github.com/hieracc/hieracc/format/hiera/lookupopts"
)

// See lookupopts_hook_test.go.
func init() {
	hiera.UseLookupopts(lookupopts.ParseMerge, lookupopts.PuppetMessage, lookupopts.ParseConvertTo)
}
