#!/bin/sh
# bytecheck.sh: prove a change leaves every bundle byte for byte as it was.
#
#   benchmarks/bytecheck.sh BASE      # BASE: a commit, e.g. origin/main or HEAD~3
#
# Builds the CLI at BASE (from `git archive`, so no work tree is touched) and
# from the work tree as it is, compiles with both the example
# (testdata/example), every conformance case (testdata/conformance/* and, when
# present, ../shared/conformance/public/*) and the reference fleet
# (benchmarks/internal/gen's gen.Reference(), 10,000 nodes; NODES=N for fewer),
# and compares the outputs: every bundle and details/ file by SHA-256, the
# compile's exit code and its output (timings aside). The state file is not
# compared (it names the output folder). Prints each set's digest and exits
# non-zero on the first difference, naming it. Needs git, go, sha256sum;
# takes ~3 minutes on 2 cores, most of it the fleet.
set -eu

base=${1:?usage: benchmarks/bytecheck.sh BASE}
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

mkdir "$tmp/src-base"
git -C "$repo" archive "$base" | tar -x -C "$tmp/src-base"
(cd "$tmp/src-base" && go build -o "$tmp/hieracc-base" ./cmd/hieracc)
(cd "$repo" && go build -o "$tmp/hieracc-head" ./cmd/hieracc)

(cd "$repo" && go run ./benchmarks/cmd/genrepo ${NODES:+-nodes "$NODES"} -out "$tmp/fleet") >/dev/null

# compile SIDE NAME DIR: compile the case in DIR (env/, nodes/, optional
# modules/, global/, hieracc-flags) with SIDE's CLI into $tmp/SIDE/NAME.
compile() {
	side=$1 name=$2 dir=$3
	out="$tmp/$side/$name"
	mkdir -p "$out"
	# --keep-going: the bundles of cases whose keys fail (their errors
	# recorded) are written, and compared, too.
	set -- --env env --facts nodes --out "$out/bundles" --source-revision bytecheck --keep-going
	[ -d "$dir/modules" ] && set -- "$@" --modules modules
	[ -d "$dir/global" ] && set -- "$@" --global global
	# shellcheck disable=SC2046 # hieracc-flags holds words to split
	[ -f "$dir/hieracc-flags" ] && set -- "$@" $(cat "$dir/hieracc-flags")
	rc=0
	(cd "$dir" && "$tmp/hieracc-$side" compile "$@") >"$out/stdout" 2>"$out/stderr" || rc=$?
	echo "$rc" >"$out/rc"
	# Timings differ from run to run: drop them from the summary line.
	sed -i 's/ in [0-9.]*[µnm]*s;/ in T;/; s/ in [0-9.]*[µnm]*s$/ in T/' "$out/stderr" "$out/stdout"
	sed -i "s#$tmp/$side/#OUT/#g" "$out/stderr" "$out/stdout"
	if [ -d "$out/bundles" ]; then
		(cd "$out/bundles" && find . -type f ! -name .hieracc-state.json | LC_ALL=C sort | xargs -r sha256sum) >"$out/digests"
		rm -rf "$out/bundles"
	else
		: >"$out/digests"
	fi
}

check() {
	name=$1 dir=$2
	compile base "$name" "$dir"
	compile head "$name" "$dir"
	if ! diff -r "$tmp/base/$name" "$tmp/head/$name" >"$tmp/diff"; then
		cat "$tmp/diff"
		echo "bytecheck: $name differs from $base" >&2
		exit 1
	fi
	printf '%s  %s (%s files, exit %s)\n' "$(sha256sum <"$tmp/head/$name/digests" | cut -c1-16)" \
		"$name" "$(wc -l <"$tmp/head/$name/digests")" "$(cat "$tmp/head/$name/rc")"
}

check example "$repo/testdata/example"
for d in "$repo"/testdata/conformance/*/ "$repo"/../shared/conformance/public/*/; do
	[ -d "$d/env" ] || continue
	check "conformance-$(basename "$d")" "$d"
done
check fleet "$tmp/fleet"
echo "bytecheck: every output is byte for byte what $base writes"
