// Package reload keeps an agent's bundle current while the compiler
// replaces it: File follows a bundle file on disk (Watch: inotify on Linux,
// polling elsewhere), HTTP fetches one from a URL (hieracc serve's
// /v1/nodes/<node>/bundle, or any server that sends ETags), keeping a copy
// on disk. Each new bundle is opened and checked as runtime.Open or
// runtime.OpenBytes does with the options given; one that fails leaves the
// last good bundle in place, as OPA keeps its last good bundle.
//
// An agent that opens its bundle once needs only package runtime.
package reload
