package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainConformanceGolden pins lookup --explain on cases of the shared
// corpus that show what explain is for: a path that a missing fact turned
// into role/.yaml, mapped_paths, a module's default_hierarchy, a merge
// across the three layers, lookup_options entries (--explain-options). go test -update rewrites
// testdata/explain/conformance/*.golden.
func TestExplainConformanceGolden(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("conformance corpus not found at %s (../shared beside the checkout): %v", conformanceDir, err)
	}
	tests := []struct {
		name, caseName string
		args           []string
	}{
		{"missing-fact-role", "hierarchy-missing-fact-interpolation", []string{"--node", "bare01.example.com", "role_msg"}},
		{"missing-fact-cluster", "hierarchy-missing-fact-interpolation", []string{"--node", "bare01.example.com", "cluster_msg"}},
		{"mapped-paths", "mapped-paths", []string{"--node", "multi01.example.com", "group_msg"}},
		{"default-hierarchy", "module-default-hierarchy", []string{"--node", "web01.example.com", "nginx::conf_dir"}},
		{"default-hierarchy-unused", "module-default-hierarchy", []string{"--node", "web01.example.com", "nginx::worker_processes"}},
		{"three-layers", "global-env-module-merges", []string{"--node", "web01.example.com", "profile::packages"}},
		{"not-found", "global-env-module-merges", []string{"--node", "web01.example.com", "profile::nosuch"}},
		{"options-regexp", "lookup-options-literal-and-regexp", []string{"--explain-options", "--node", "web01.example.com", "profile::web::users"}},
		{"options-literal", "lookup-options-literal-and-regexp", []string{"--explain-options", "--node", "web01.example.com", "profile::base::users"}},
		{"options-module", "lookup-options-in-modules", []string{"--explain-options", "--node", "web01.example.com", "ntp::servers"}},
		{"options-module-explain", "lookup-options-in-modules", []string{"--node", "web01.example.com", "ntp::pool"}},
	}
	bundles := map[string]string{} // compiled once for the whole test
	for _, tc := range tests {
		if _, ok := bundles[tc.caseName]; !ok {
			bundles[tc.caseName] = compileCase(t, filepath.Join(conformanceDir, tc.caseName))
		}
		t.Run(tc.name, func(t *testing.T) {
			out := bundles[tc.caseName]
			flag := "--explain"
			if tc.args[0] == "--explain-options" {
				flag, tc.args = tc.args[0], tc.args[1:]
			}
			args := append([]string{"lookup", flag, "--bundle", out}, tc.args...)
			code, stdout, stderr := runCLI(args...)
			args[3] = tc.caseName // the temporary folder, for the record
			golden(t, filepath.Join("testdata", "explain", "conformance", tc.name+".golden"),
				fmt.Sprintf("$ hieracc %s\n%s[exit %d]\n%s", strings.Join(args, " "), stdout, code, stderr))
		})
	}
}
