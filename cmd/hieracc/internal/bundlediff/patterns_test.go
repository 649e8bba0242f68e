package bundlediff

import (
	"fmt"
	"path"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummarise(t *testing.T) {
	var fra, ams, all []string
	for i := range 1200 {
		fra = append(fra, fmt.Sprintf("web%04d.fra1.example.net", i))
	}
	for i := range 1300 {
		ams = append(ams, fmt.Sprintf("web%04d.ams2.example.net", i))
	}
	db := []string{"db01.fra1.example.net", "db02.fra1.example.net", "db01.ams2.example.net", "db7.fra9.example.net"}
	odd := []string{"ip-10-0-1-23.ec2.internal", "ip-10-0-7-4.ec2.internal", "weird*name[1]", "solo"}
	var ex []string // as examples/fleet-like control repos name their nodes
	for i := range 8 {
		ex = append(ex, fmt.Sprintf("web%02d.example.com", i), fmt.Sprintf("db-%c.example.com", 'a'+i))
	}
	ex = append(ex, "win2022.ad.example.com", "example-node")
	slices.Sort(ex)
	all = slices.Concat(fra, ams, db, odd)
	slices.Sort(all)

	for _, tc := range []struct {
		name  string
		nodes []string
		max   int
		want  []Pattern
	}{
		{"few: their names", db[:3], 5, []Pattern{
			{"db01.ams2.example.net", 1, 1}, {"db01.fra1.example.net", 1, 1}, {"db02.fra1.example.net", 1, 1}}},
		{"a whole family", fra, 5, []Pattern{{"web*.fra1.example.net", 1200, 1200}}},
		{"part of a family", slices.Concat(fra, ams[:1100]), 5, []Pattern{
			{"web*.fra1.example.net", 1200, 1200}, {"web*.ams2.example.net", 1100, 1300}}},
		{"a family and a stray, named", slices.Concat(fra, db[:1]), 5, []Pattern{
			{"web*.fra1.example.net", 1200, 1200}, {"db01.fra1.example.net", 1, 1}}},
		{"digits in every label", slices.Concat(fra, db[:2], []string{"db7.fra9.example.net"}), 2, []Pattern{
			{"web*.fra*.example.net", 1200, 1200}, {"db*.fra*.example.net", 3, 3}}},
		{"a coarse pattern says it covers more", slices.Concat(fra, ams), 1, []Pattern{{"*.example.net", 2500, 2504}}},
		{"by domain", slices.Concat(fra, db[:2]), 1, []Pattern{{"*.fra1.example.net", 1202, 1202}}},
		{"by parent domain", slices.Concat(fra, ams, db), 1, []Pattern{{"*.example.net", 2504, 2504}}},
		{"everything", all, 1, []Pattern{{"*", len(all), len(all)}}},
		{"numbered names", odd[:2], 1, []Pattern{{"ip-*-*-*-*.ec2.internal", 2, 2}}},
		{"glob characters are escaped", odd[2:], 5, []Pattern{{`solo`, 1, 1}, {`weird\*name\[1]`, 1, 1}}},
		{"nothing", nil, 5, nil},
		// The example's fleet: "*.example.com" matches the node in a
		// subdomain too, which is counted under it, not named apart.
		{"a glob counts every node it matches", ex, 5, []Pattern{{"*.example.com", 17, 17}, {"example-node", 1, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := all
			if tc.name == "a glob counts every node it matches" {
				all = ex
			}
			got := Summarise(tc.nodes, all, tc.max, map[string]int{})
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Summarise (-want +got):\n%s", d)
			}
			// Every node is matched by the glob it is counted under, and
			// Of is what path.Match says.
			n := 0
			for _, p := range got {
				n += p.Nodes
				of := 0
				for _, name := range all {
					if ok, _ := path.Match(p.Glob, name); ok {
						of++
					}
				}
				if of != p.Of {
					t.Errorf("%s: Of = %d, path.Match counts %d", p.Glob, p.Of, of)
				}
			}
			if n != len(tc.nodes) {
				t.Errorf("patterns count %d nodes, want %d", n, len(tc.nodes))
			}
		})
	}
}
