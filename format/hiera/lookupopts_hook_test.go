package hiera

import "github.com/hieracc/hieracc/format"

// This package's tests read lookup_options settings as the compiler does,
// with lookupopts.ParseMerge and lookupopts.ParseConvertTo, and Puppet's
// part of ParseMerge's messages with lookupopts.PuppetMessage. Package
// lookupopts imports this one, so these tests cannot import it: the
// external test lookupopts_external_test.go hands them over when the test
// binary starts.
var (
	parseMerge     func(any) (format.Merge, error)
	puppetMessage  func(error) string
	parseConvertTo func(key string, setting any) ([]format.Value, error)
)

// UseLookupopts sets parseMerge, puppetMessage and parseConvertTo.
func UseLookupopts(merge func(any) (format.Merge, error), message func(error) string, convertTo func(string, any) ([]format.Value, error)) {
	parseMerge, puppetMessage, parseConvertTo = merge, message, convertTo
}
