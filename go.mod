module github.com/hieracc/hieracc

go 1.25.0

toolchain go1.26.8

// The CLI keeps the run-time behaviour of the release CI builds it with;
// modules importing runtime get their own go line's defaults.
godebug default=go1.26

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/google/go-cmp v0.7.0
	github.com/rogpeppe/go-internal v1.14.1
	github.com/vmihailenco/msgpack/v5 v5.4.1
	golang.org/x/sync v0.19.0
	golang.org/x/sys v0.26.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
