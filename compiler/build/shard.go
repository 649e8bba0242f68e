package build

// Sharding: `hieracc compile --shard K/N` compiles the nodes of one part
// of the fleet, so that N machines (a CI matrix, a Kubernetes Indexed Job)
// share a compile with no coordinator. A node's shard depends on its
// certname and N only, so it does not move when other nodes come and go,
// and the union of the N shards' bundles is a full compile's, byte for
// byte: each bundle is a pure function of its node's inputs.
//
// A shard's build is a build of its nodes alone: it compiles its nodes
// only (it finds them in every facts source, since a file may hold many
// nodes; see keep), removes from Out only the bundles of its own nodes
// whose facts are gone, and keeps its state in a file of its own
// (StateFileOf), so that shards may share an Out, and each compiles
// incrementally on its own. A build of the whole fleet removes the shards'
// states from its Out.

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/compiler/build/internal/stage"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/facts"
)

// Shard is a part of the fleet: the K-th of N, 1 ≤ K ≤ N. The zero Shard
// is the whole fleet.
type Shard struct{ K, N int }

// maxShards bounds N: more shards than that is a typo, not a fleet.
const maxShards = 100000

// ParseShard reads "K/N" (1 ≤ K ≤ N, K 1-based as in CI_NODE_INDEX).
func ParseShard(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	switch {
	case !ok || kerr != nil || nerr != nil || strings.HasPrefix(ks, "+") || strings.HasPrefix(ns, "+"):
		return Shard{}, fmt.Errorf("%q is not K/N: two whole numbers, as in 2/4 (the second of four shards)", s)
	case n < 1 || n > maxShards:
		return Shard{}, fmt.Errorf("%q: N must be 1 to %d, not %d", s, maxShards, n)
	case k < 1 || k > n:
		return Shard{}, fmt.Errorf("%q: K must be 1 to %d (K counts from 1; from a 0-based index such as JOB_COMPLETION_INDEX, give index+1)", s, n)
	}
	return Shard{K: k, N: n}, nil
}

// String is "K/N", or "" for the whole fleet.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// ShardOf is the shard, 1 to n, of the node certname among n: the first 8
// bytes of the SHA-256 of the certname, as a big-endian unsigned integer,
// modulo n, plus 1. It depends on nothing else, so a node keeps its shard
// when other nodes come and go (changing n moves most nodes).
func ShardOf(certname string, n int) int {
	sum := sha256.Sum256([]byte(certname))
	return int(binary.BigEndian.Uint64(sum[:8])%uint64(n)) + 1
}

// Holds reports whether the node certname is in s (every node is in the
// whole fleet).
func (s Shard) Holds(certname string) bool {
	return s.N == 0 || ShardOf(certname, s.N) == s.K
}

// inShard keeps of nodes those in s: the one place a build applies its
// shard to the fleet.
func (s Shard) inShard(nodes []facts.Node) []facts.Node {
	if s.N == 0 {
		return nodes
	}
	var mine []facts.Node
	for _, n := range nodes {
		if s.Holds(n.Certname) {
			mine = append(mine, n)
		}
	}
	return mine
}

// keep returns the nodes of set in s, and the problems s reports: those
// of its own nodes, and those of no node known (a file that could not be
// read or parsed may hold any shard's nodes: it may be an export of
// many, so its file name does not say whose they are). The state's
// record of facts files (set.files) stays whole.
func (s Shard) keep(set *factsSet, probs []diagnostics.Diagnostic) (*factsSet, []diagnostics.Diagnostic) {
	if s.N == 0 {
		return set, probs
	}
	known := map[string]bool{}
	for _, n := range set.nodes {
		known[n.Certname] = true
	}
	var mine []diagnostics.Diagnostic
	for _, p := range probs {
		if p.Node == "" || !known[p.Node] || s.Holds(p.Node) {
			mine = append(mine, p)
		}
	}
	out := *set
	out.nodes = s.inShard(set.nodes)
	return &out, mine
}

// cleanup says what a build of s that read set removes from Out once its
// bundles are committed: the bundles of its nodes whose facts were not
// given, and the shared details files no bundle in Out refers to (kept:
// what the bundles it kept refer to); nothing when some facts could not be
// read (probs, those s reports), since they may be those nodes'. A shard
// removes only bundles of its own nodes: the others are other shards' to
// keep or remove; and no shared details file, which another shard's
// bundles in Out may refer to.
func (s Shard) cleanup(set *factsSet, probs []diagnostics.Diagnostic, kept map[string]stage.Ref) stage.Cleanup {
	if diagnostics.HasErrors(probs) {
		return stage.Cleanup{}
	}
	given := map[string]bool{}
	for _, n := range set.nodes {
		given[n.Certname] = true
	}
	return stage.Cleanup{
		Remove: func(node string) bool { return !given[node] && s.Holds(node) },
		Prune:  s.N == 0,
		Kept:   kept,
	}
}

// StateFileOf is the name of the state file of a build of s in Out:
// StateFile for the whole fleet, ".hieracc-state-K-of-N.json" for a
// shard, so that the states of the shards of one fleet never collide.
func StateFileOf(s Shard) string {
	if s.N == 0 {
		return StateFile
	}
	return fmt.Sprintf(".hieracc-state-%d-of-%d.json", s.K, s.N)
}

var shardStateName = regexp.MustCompile(`^\.hieracc-state-([1-9][0-9]*)-of-([1-9][0-9]*)\.json$`)

// ShardOfStateFile reports which shard's state a file of Out named name
// is, if it is one: readers of a union of shards' outputs use it to tell
// whether a shard is missing.
func ShardOfStateFile(name string) (Shard, bool) {
	m := shardStateName.FindStringSubmatch(name)
	if m == nil {
		return Shard{}, false
	}
	s, err := ParseShard(m[1] + "/" + m[2])
	return s, err == nil
}

// removeShardStates removes from out the states of shards, once a build
// of the whole fleet has written every bundle there: they no longer say
// what out holds, and a reader would take one for a shard missing.
func removeShardStates(out string) {
	entries, err := os.ReadDir(out)
	if err != nil {
		return // they are only stale: the next build tries again
	}
	for _, e := range entries {
		if _, ok := ShardOfStateFile(e.Name()); ok && e.Type().IsRegular() {
			os.Remove(filepath.Join(out, e.Name()))
		}
	}
}
