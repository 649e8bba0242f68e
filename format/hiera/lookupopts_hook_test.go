package hiera

import "github.com/hieracc/hieracc/format"

// This package's tests build merges from lookup_options values as the
// compiler does, with lookupopts.ParseMerge, and read Puppet's part of its
// messages with lookupopts.PuppetMessage. Package lookupopts imports this
// one, so these tests cannot import it: the external test
// lookupopts_external_test.go hands them over when the test binary starts.
var (
	parseMerge    func(any) (format.Merge, error)
	puppetMessage func(error) string
)

// UseLookupopts sets parseMerge and puppetMessage.
func UseLookupopts(parse func(any) (format.Merge, error), message func(error) string) {
	parseMerge, puppetMessage = parse, message
}
