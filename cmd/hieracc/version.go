package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

var versionCmd = &command{
	name:     "version",
	synopsis: "print hieracc's version, from the build information",
	usage:    versionUsage,
	run:      runVersion,
}

const versionUsage = `Usage:
  hieracc version

Prints hieracc's version: the module version 'go install ...@VERSION' built
(or "(devel)" for a build from a checkout), then the Go version and, when
built from a git checkout, the revision, its time and whether the work tree
had changes. 'hieracc --version' prints the same.
`

func runVersion(c *cmdEnv, args []string) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
			fmt.Fprint(c.stdout, versionUsage)
			return exitOK
		}
		return c.usageError("version takes no arguments")
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(c.stdout, versionLine(info))
	return exitOK
}

// versionLine is "hieracc VERSION (GO[, revision R][, TIME][, modified])".
func versionLine(info *debug.BuildInfo) string {
	if info == nil {
		return "hieracc (unknown version: no build information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	details := []string{info.GoVersion}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if r := settings["vcs.revision"]; r != "" {
		if len(r) > 12 {
			r = r[:12]
		}
		details = append(details, "revision "+r)
	}
	if t := settings["vcs.time"]; t != "" {
		details = append(details, t)
	}
	if settings["vcs.modified"] == "true" {
		details = append(details, "modified")
	}
	return "hieracc " + v + " (" + strings.Join(details, ", ") + ")"
}
