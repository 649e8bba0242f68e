#!/usr/bin/env bash
# The shell side of hieracc's GitHub Action (action.yml beside this file),
# runnable by itself: `run.sh install` builds hieracc, `run.sh base`
# compiles the checkout as a base for later pull requests, `run.sh diff`
# compiles the checkout and its base revision and reports what changed
# (given the base branch's output, it compares the two commits with
# `hieracc diff --git --base-out`, which compiles both incrementally).
#
# Inputs come from the environment (action.yml maps its inputs to them):
#   HIERACC_FACTS          facts files or folders, separated by spaces (required)
#   HIERACC_ENV            the environment folder (default .)
#   HIERACC_MODULES        --modules, when set
#   HIERACC_GLOBAL         --global, when set
#   HIERACC_COMPILE_ARGS   more compile flags, for both revisions (e.g. eyaml keys)
#   HIERACC_DIFF_ARGS      more diff flags (--ignore-key GLOB, --nodes full...)
#   HIERACC_BASE           diff: the base revision (a pull request's base SHA)
#   HIERACC_BASE_OUT       where the base's bundles are kept between runs (the
#                          action caches it, keyed by the base's SHA)
#   HIERACC_GIVEN_BASE_OUT the base branch's compiled output, kept by the
#                          workflow (actions/cache, an artifact): base
#                          compiles into it; diff compares the base and
#                          HEAD commits with `hieracc diff --git --base-out`
#                          from it (as HIERACC_BASE_OUT is used when it is
#                          missing, or the checkout has uncommitted changes)
#   HIERACC_PR             diff: the pull request number, for the comment
#   HIERACC_COMMENT        diff: true (default) posts the report as a sticky PR
#                          comment with gh (skipped, with a notice, when gh is
#                          not installed or the token may not comment)
#   HIERACC_COMMENT_TAG    tells this report's comment from others' (default hieracc)
#   HIERACC_FAIL_ON_ERRORS true (default): exit 1 when the checkout's compile
#                          has errors (the report is posted first)
#   HIERACC_VERSION        install: a version to go install instead of the
#                          action's own revision
# and GitHub's: GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT,
# GITHUB_PATH, GITHUB_REPOSITORY, RUNNER_TEMP, GH_TOKEN.
#
# Exit status: 0 done (differences or not), 1 the checkout's compile has
# errors, 2 trouble (no base, a base that cannot be compiled, diff trouble).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

note() { echo "hieracc-action: $*" >&2; }
die() {
	echo "::error title=hieracc::$*"
	note "$*"
	exit 2
}
istrue() {
	case "${1,,}" in
	true | yes | on | 1) return 0 ;;
	*) return 1 ;;
	esac
}
# output NAME VALUE sets a step output.
output() {
	if [ -n "${GITHUB_OUTPUT:-}" ]; then
		echo "$1=$2" >>"$GITHUB_OUTPUT"
	fi
}

# install builds hieracc at the action's own revision (the repository the
# runner downloaded the action from), or go installs HIERACC_VERSION, into
# RUNNER_TEMP, and puts it on the job's PATH.
install_hieracc() {
	local bin=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/hieracc-bin
	mkdir -p "$bin"
	if [ -n "${HIERACC_VERSION:-}" ]; then
		GOBIN=$bin go install "github.com/hieracc/hieracc/cmd/hieracc@$HIERACC_VERSION"
	else
		(cd "$here/../../.." && GOBIN=$bin go install ./cmd/hieracc)
	fi
	if [ -n "${GITHUB_PATH:-}" ]; then
		echo "$bin" >>"$GITHUB_PATH"
	fi
	"$bin/hieracc" version
}

# setup reads the inputs shared by base and diff.
setup() {
	command -v hieracc >/dev/null || die "hieracc is not installed (run.sh install)"
	command -v git >/dev/null || die "git is not installed"
	cd "${GITHUB_WORKSPACE:-.}"
	[ -n "${HIERACC_FACTS:-}" ] || die "no facts: set the facts input (files or folders of the nodes' facts)"
	top=$(git rev-parse --show-toplevel) || die "$PWD is not in a git repository (actions/checkout first)"
	top=$(cd "$top" && pwd -P)
	read -r -a facts <<<"$HIERACC_FACTS"
	local f
	for f in "${!facts[@]}"; do
		facts[f]=$(realpath -m "${facts[f]}")
	done
	read -r -a compile_args <<<"${HIERACC_COMPILE_ARGS:-}"
	read -r -a diff_args <<<"${HIERACC_DIFF_ARGS:-}"
	check_flags
	work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/hieracc.XXXXXX")
	trap cleanup EXIT
	base_out=${HIERACC_BASE_OUT:-$work/base-out}
	base_out=$(realpath -m "$base_out")
	given_base=
	if [ -n "${HIERACC_GIVEN_BASE_OUT:-}" ]; then
		given_base=$(realpath -m "$HIERACC_GIVEN_BASE_OUT")
	fi
}

cleanup() {
	if [ -d "$work/base" ]; then
		git -C "$top" worktree remove --force "$work/base" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}

# layer_flags prints the compile flags of the layers (--env, --modules,
# --global), a line each, with their paths from the repository's top
# (absolute when out of the repository), for a compile run there: at each
# revision, the bundles name the files alike (env/data/common.yaml:3).
layer_flags() {
	local flag p abs
	for flag in env modules global; do
		case $flag in
		env) p=${HIERACC_ENV:-.} ;;
		modules) p=${HIERACC_MODULES:-} ;;
		global) p=${HIERACC_GLOBAL:-} ;;
		esac
		[ -n "$p" ] || continue
		abs=$(realpath -m "$p")
		case $abs in
		"$top") p=. ;;
		"$top"/*) p=${abs#"$top"/} ;;
		esac
		printf -- '--%s\n%s\n' "$flag" "$p"
	done
}

# compile_to ROOT OUT FORMAT compiles the control repo at ROOT (the work
# tree, or a checkout of another revision) for the work tree's facts into
# OUT, errors printed in FORMAT; it returns compile's status.
compile_to() {
	local root=$1 out=$2 format=$3 layers
	mapfile -t layers < <(layer_flags)
	(cd "$root" && hieracc compile --keep-going --format "$format" --progress never "${layers[@]}" \
		--facts "${facts[@]}" --out "$out" ${compile_args[@]+"${compile_args[@]}"})
}

# stamp says what the base's output was compiled from: the revision, the
# facts, the flags and hieracc (its binary: a build from a source tree
# without git says "(devel)" whatever its version). An output restored from the cache with
# another stamp is compiled again (incrementally: its state is in it).
stamp() {
	{
		echo "revision $1"
		echo "flags ${HIERACC_ENV:-.} ${HIERACC_MODULES:-} ${HIERACC_GLOBAL:-} ${HIERACC_COMPILE_ARGS:-}"
		sha256sum <"$(command -v hieracc)"
		find "${facts[@]}" -type f -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum || true
	} | sha256sum | cut -d' ' -f1
}

# compile_base SHA makes base_out the output of revision SHA (a commit of
# the work tree's repository), reusing it when its stamp says it already is.
compile_base() {
	local sha=$1 want
	want=$(stamp "$sha")
	if [ -f "$base_out/.hieracc-action-stamp" ] && [ "$(cat "$base_out/.hieracc-action-stamp")" = "$want" ]; then
		note "base ${sha:0:12}: reusing its output in $base_out"
		return
	fi
	rm -f "$base_out/.hieracc-action-stamp"
	mkdir -p "$base_out"
	# The work tree itself when it is the base exactly (mode base, on a
	# push), else a checkout of the base beside it.
	local root=$top
	if [ "$sha" != "$(git -C "$top" rev-parse HEAD)" ] || [ -n "$(git -C "$top" status --porcelain)" ]; then
		root=$work/base
		git -C "$top" worktree add --quiet --detach "$root" "$sha" >&2 ||
			die "cannot check out the base revision $sha"
	fi
	note "base ${sha:0:12}: compiling into $base_out"
	local status=0
	compile_to "$root" "$base_out" text >"$work/base.log" 2>&1 || status=$?
	# compile --keep-going says "wrote" once its output is whole, errors
	# or not; the folder may hold an older output.
	if ! grep -q '^hieracc compile: .*; wrote ' "$work/base.log"; then
		cat "$work/base.log" >&2
		die "the base revision ${sha:0:12} does not compile"
	fi
	if [ "$status" != 0 ]; then
		note "the base revision ${sha:0:12} compiles with errors (its lookups that fail are compared as errors)"
	fi
	echo "$want" >"$base_out/.hieracc-action-stamp"
}

# resolve_base sets sha to the commit HIERACC_BASE names, fetching it when
# the checkout does not have it (a shallow clone).
resolve_base() {
	local base=${HIERACC_BASE:-}
	[ -n "$base" ] || die "no base revision: set the base input (a pull request's base SHA by default)"
	if ! sha=$(git -C "$top" rev-parse --verify --quiet "$base^{commit}"); then
		git -C "$top" fetch --quiet --no-tags --depth=1 origin "$base" >&2 ||
			die "cannot fetch the base revision $base"
		sha=$(git -C "$top" rev-parse --verify "$base^{commit}") || die "$base is not a commit"
	fi
}

run_base() {
	setup
	if [ -n "${HIERACC_BASE:-}" ]; then
		resolve_base
	else
		sha=$(git -C "$top" rev-parse HEAD)
	fi
	if [ -n "$given_base" ]; then
		base_out=$given_base
	fi
	compile_base "$sha"
	output base-out "$base_out"
}

run_diff() {
	setup
	resolve_base
	if [ -n "$given_base" ]; then
		if [ ! -e "$given_base" ]; then
			note "base-out $given_base does not exist (a cache miss?): the base is compiled as without it"
		elif [ -n "$(git -C "$top" status --porcelain --untracked-files=no)" ]; then
			note "the checkout has uncommitted changes, which diff --git does not compare: base-out is not used"
		else
			diff_git
			return
		fi
	fi
	compile_base "$sha"

	# The checkout: its errors as workflow commands, which GitHub shows on
	# the pull request's lines.
	local status=0 errors=false
	compile_to "$top" "$work/head" github >"$work/head.out" 2>"$work/head.err" || status=$?
	cat "$work/head.err"
	cat "$work/head.out" >&2
	if [ "$status" != 0 ]; then
		errors=true
		if ! grep -q '^hieracc compile: .*; wrote ' "$work/head.out"; then
			die "the checkout does not compile (see the log above)"
		fi
	fi

	# Compared under the revisions' names, which the report shows.
	local old new diffstatus=0
	old=${sha:0:12}
	new=$(git -C "$top" rev-parse --short=12 HEAD)
	if [ -n "$(git -C "$top" status --porcelain --untracked-files=no)" ]; then
		new="$new+changes"
	fi
	mkdir -p "$work/cmp/base" "$work/cmp/head"
	ln -s "$base_out" "$work/cmp/base/$old"
	ln -s "$work/head" "$work/cmp/head/$new"
	(cd "$work/cmp" && hieracc diff "base/$old" "head/$new" --format markdown ${diff_args[@]+"${diff_args[@]}"}) \
		>"$work/diff.md" 2>"$work/diff.err" || diffstatus=$?
	report "$diffstatus" "$errors" "The compile of $new has errors" "$work/head.out"
}

# diff_git compares the base and HEAD commits with diff --git, each
# compiled incrementally from the given base output (a copy of it: the
# folder is not changed). The checkout's errors are hieracc check's
# (every data file, no node compiled): annotations on the pull request's
# lines; errors that only some node's facts bring out are in the report,
# as errors that appear.
diff_git() {
	local old layers status=0 errors=false diffstatus=0
	old=$(git -C "$top" rev-parse --short=12 "$sha")
	mapfile -t layers < <(layer_flags)
	note "base $old: comparing with HEAD from the base output in $given_base (diff --git --base-out)"
	(cd "$top" && hieracc check --format github "${layers[@]}" ${check_args[@]+"${check_args[@]}"}) \
		>"$work/check.out" 2>"$work/check.err" || status=$?
	cat "$work/check.err"
	cat "$work/check.out" >&2
	case $status in
	0) ;;
	1) errors=true ;;
	*) die "hieracc check failed: $(head -n1 "$work/check.err")" ;;
	esac
	# Its temporary folder beside the base output, so that the copy of
	# it is hard links where the file system allows.
	(cd "$top" && TMPDIR=$work hieracc diff --git "$old..HEAD" --base-out "$given_base" "${layers[@]}" \
		--facts "${facts[@]}" --progress never --format markdown \
		${compile_args[@]+"${compile_args[@]}"} ${diff_args[@]+"${diff_args[@]}"}) \
		>"$work/diff.md" 2>"$work/diff.err" || diffstatus=$?
	report "$diffstatus" "$errors" "The data of $(git -C "$top" rev-parse --short=12 HEAD) has errors" "$work/check.out"
}

# check_flags sets check_args: the compile-args that hieracc check takes
# too (eyaml's keys, --mount), for diff_git.
check_flags() {
	check_args=()
	local i=0 a n=${#compile_args[@]}
	while [ "$i" -lt "$n" ]; do
		a=${compile_args[i]}
		case $a in
		-pkcs7-private-key=* | --pkcs7-private-key=* | -pkcs7-public-key=* | --pkcs7-public-key=* | -mount=* | --mount=*)
			check_args+=("$a")
			;;
		-pkcs7-private-key | --pkcs7-private-key | -pkcs7-public-key | --pkcs7-public-key | -mount | --mount)
			check_args+=("$a" "${compile_args[i + 1]:-}")
			i=$((i + 1))
			;;
		esac
		i=$((i + 1))
	done
}

# report DIFFSTATUS ERRORS HEADLINE LOG writes the report of diff's
# markdown ($work/diff.md), headed by HEADLINE when ERRORS is true (with
# the count of errors LOG says), to the job summary, the outputs and the
# pull request's comment, and exits 1 when the errors fail the step.
report() {
	local diffstatus=$1 errors=$2 headline=$3 log=$4 changed=false
	case $diffstatus in
	0) ;;
	1) changed=true ;;
	*)
		cat "$work/diff.err" >&2
		die "hieracc diff failed: $(head -n1 "$work/diff.err")"
		;;
	esac

	local tag=${HIERACC_COMMENT_TAG:-hieracc}
	local file=$work/report.md
	{
		echo "<!-- hieracc-action: $tag -->"
		if [ "$errors" = true ]; then
			echo "**$headline** (see the annotations and the job's log): $(grep -o '[0-9][0-9]* errors\?' "$log" | head -n1)."
			echo
		fi
		cat "$work/diff.md"
	} >"$file"

	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		cat "$file" >>"$GITHUB_STEP_SUMMARY"
	fi
	mkdir -p "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/hieracc-report"
	local kept=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/hieracc-report/$tag.md
	cp "$file" "$kept"
	output changed "$changed"
	output errors "$errors"
	output report "$kept"

	if istrue "${HIERACC_COMMENT:-true}"; then
		comment "$file" "$tag" || note "the pull request comment was not posted (see above); the report is in the job summary"
	fi
	if [ "$errors" = true ] && istrue "${HIERACC_FAIL_ON_ERRORS:-true}"; then
		exit 1
	fi
}

# comment FILE TAG posts FILE as the pull request's comment for TAG,
# editing the one posted before when there is one.
comment() {
	local file=$1 tag=$2 pr=${HIERACC_PR:-} repo=${GITHUB_REPOSITORY:-}
	if [ -z "$pr" ]; then
		note "not a pull request: no comment"
		return 0
	fi
	if ! command -v gh >/dev/null; then
		note "gh is not installed: no pull request comment"
		return 0
	fi
	[ -n "$repo" ] || {
		note "GITHUB_REPOSITORY is not set"
		return 1
	}
	local marker="<!-- hieracc-action: $tag -->" ids id
	ids=$(gh api --paginate "repos/$repo/issues/$pr/comments" \
		--jq ".[] | select(.body | startswith(\"$marker\")) | .id") || return 1
	id=${ids%%$'\n'*}
	if [ -n "$id" ]; then
		gh api --method PATCH "repos/$repo/issues/comments/$id" -F "body=@$file" >/dev/null || return 1
		note "updated the comment on pull request #$pr"
	else
		gh api --method POST "repos/$repo/issues/$pr/comments" -F "body=@$file" >/dev/null || return 1
		note "commented on pull request #$pr"
	fi
}

case "${1:-}" in
install) install_hieracc ;;
base) run_base ;;
diff) run_diff ;;
*)
	echo "usage: run.sh install|base|diff (inputs in HIERACC_* variables: see the top of this file)" >&2
	exit 2
	;;
esac
