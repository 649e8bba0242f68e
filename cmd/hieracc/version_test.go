package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionLine(t *testing.T) {
	tests := []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "hieracc (unknown version: no build information)"},
		{&debug.BuildInfo{GoVersion: "go1.24.1", Main: debug.Module{Version: "v1.2.0"}}, "hieracc v1.2.0 (go1.24.1)"},
		{&debug.BuildInfo{GoVersion: "go1.24.1", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-23T20:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"hieracc (devel) (go1.24.1, revision 0123456789ab, 2026-11-23T20:00:00Z, modified)"},
		{&debug.BuildInfo{GoVersion: "go1.24.1", Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "false"}}}, "hieracc (devel) (go1.24.1)"},
	}
	for _, tt := range tests {
		if got := versionLine(tt.info); got != tt.want {
			t.Errorf("versionLine = %q, want %q", got, tt.want)
		}
	}
}
