#!/usr/bin/env bash
# The real-PuppetDB test: starts PostgreSQL and PuppetDB (Debian's puppetdb 7.12) in a scratch
# folder, both on loopback only, loads the facts of commands/ through PuppetDB's command API
# (replace facts), and checks that `hieracc compile --puppetdb` gives every node the same bundles
# as compiling the same facts from files: `hieracc diff` must find no difference.
#
#   apt-get install -y puppetdb postgresql
#   testdata/puppetdb/run.sh [RECORD_DIR]
#
# Phase 1: every node of commands/formats (conformance case facts-formats), all factsets fetched.
# Phase 2: the nodes of commands/trusted (facts-trusted: $trusted with certificate extensions)
# replace some, and --puppetdb-query chooses them by their environment.
# RECORD_DIR, when given, receives PuppetDB's answers to hieracc's queries, for the replay tests
# of compiler/facts/puppetdb. HIERACC names a hieracc binary (default: built from this checkout).
# Exit codes: 0 passed, 1 failed, 77 skipped (the packages are not installed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
record=${1:-}

pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
jar=/usr/share/puppetdb/puppetdb.jar
if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ] || [ ! -f "$jar" ] || ! command -v java >/dev/null || ! command -v curl >/dev/null; then
  echo "skip: PuppetDB or PostgreSQL is not installed (apt-get install -y puppetdb postgresql)" >&2
  exit 77
fi

s=$(mktemp -d /tmp/hieracc-puppetdb.XXXXXX)
chmod 755 "$s"
pdb_pid=
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  local rc=$?
  set +e
  [ -n "$pdb_pid" ] && kill "$pdb_pid" 2>/dev/null && wait "$pdb_pid" 2>/dev/null
  [ -f "$s/pg/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$s/pg" -m immediate stop >/dev/null 2>&1
  rm -rf "$s"
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "FAIL: interrupted" >&2; exit 1' TERM INT
fail() { echo "FAIL: $*" >&2; for f in "$s"/pg.log "$s"/pdb/out.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -30 "$f" >&2; }; done; exit 1; }

# Two free loopback ports.
free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  fail "no free port"
}
pgport=$(free_port); pdbport=$(free_port)

# PostgreSQL, for this run only: trust on loopback, no socket outside $s.
mkdir -p "$s/pg" "$s/pgsock"
[ "$(id -u)" = 0 ] && chown postgres "$s/pg" "$s/pgsock"
as_pg "$pgbin/initdb" -D "$s/pg" -U puppetdb -A trust --no-sync >/dev/null || fail "initdb"
touch "$s/pg.log"; [ "$(id -u)" = 0 ] && chown postgres "$s/pg.log"
as_pg "$pgbin/pg_ctl" -D "$s/pg" -l "$s/pg.log" -w -o "-c listen_addresses=127.0.0.1 -p $pgport -c unix_socket_directories=$s/pgsock -c fsync=off" start >/dev/null || fail "postgres did not start"
as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U puppetdb puppetdb || fail "createdb"
as_pg "$pgbin/psql" -q -h 127.0.0.1 -p "$pgport" -U puppetdb -d puppetdb -c 'CREATE EXTENSION pg_trgm' || fail "pg_trgm"

# PuppetDB, for this run only, on loopback.
mkdir -p "$s/pdb/conf.d" "$s/pdb/var"
cat >"$s/pdb/conf.d/config.ini" <<INI
[global]
vardir = $s/pdb/var
logging-config = $s/pdb/logback.xml
[command-processing]
INI
cat >"$s/pdb/conf.d/jetty.ini" <<INI
[jetty]
host = 127.0.0.1
port = $pdbport
INI
cat >"$s/pdb/conf.d/database.ini" <<INI
[database]
subname = //127.0.0.1:$pgport/puppetdb
username = puppetdb
password = puppetdb
INI
[ -f /etc/puppetdb/conf.d/auth.conf ] && cp /etc/puppetdb/conf.d/auth.conf "$s/pdb/conf.d/"
cat >"$s/pdb/logback.xml" <<XML
<configuration>
  <appender name="F" class="ch.qos.logback.core.FileAppender">
    <file>$s/pdb/puppetdb.log</file>
    <encoder><pattern>%d %-5p [%c{2}] %m%n</pattern></encoder>
  </appender>
  <root level="info"><appender-ref ref="F"/></root>
</configuration>
XML
java -Xmx256m -Djava.security.egd=/dev/urandom -cp "$jar" clojure.main -m puppetlabs.puppetdb.core services \
  --config "$s/pdb/conf.d" --bootstrap-config /etc/puppetdb/bootstrap.cfg --restart-file "$s/pdb/restart" \
  >"$s/pdb/out.log" 2>&1 &
pdb_pid=$!
url="http://127.0.0.1:$pdbport"
# PuppetDB starts in about a minute on an idle machine, several on a busy one.
wait_s=${PDB_START_TIMEOUT:-600}
for i in $(seq "$wait_s"); do
  curl -sf "$url/pdb/meta/v1/version" >/dev/null 2>&1 && break
  kill -0 "$pdb_pid" 2>/dev/null || fail "puppetdb exited"
  [ "$i" = "$wait_s" ] && fail "puppetdb did not answer in $wait_s s"
  sleep 1
done
echo "PuppetDB $(curl -s "$url/pdb/meta/v1/version" | tr -d " \n{}") on $url, PostgreSQL on 127.0.0.1:$pgport"

# replace facts, one command per node; then wait until PuppetDB has stored them.
load() { # DIR ENVIRONMENT
  local n=0 f c
  for f in "$1"/*.json; do
    c=$(basename "$f" .json)
    curl -sf -X POST -H 'Content-Type: application/json' --data-binary @"$f" \
      "$url/pdb/cmd/v1?command=replace_facts&version=5&certname=$c&producer-timestamp=2026-11-23T12:00:00.000Z" >/dev/null \
      || fail "replace facts $c"
    n=$((n + 1))
  done
  local q="inventory[count()] { environment = \"$2\" }" got
  for i in $(seq 120); do
    got=$(curl -sf -G "$url/pdb/query/v4" --data-urlencode "query=$q" | tr -dc '0-9')
    [ "$got" = "$n" ] && return
    [ "$i" = 120 ] && fail "PuppetDB stored $got of $n nodes of $1"
    sleep 1
  done
}

hieracc=${HIERACC:-}
if [ -z "$hieracc" ]; then
  (cd "$repo" && go build -o "$s/hieracc" ./cmd/hieracc) || fail "go build"
  hieracc=$s/hieracc
fi
cases=$repo/testdata/conformance

same() { # NAME CASE FILES-OUT PDB-OUT
  "$hieracc" diff "$3" "$4" >"$s/$1.diff" 2>&1 || { cat "$s/$1.diff" >&2; fail "$1: the bundles compiled from PuppetDB differ from those compiled from files"; }
  tail -1 "$s/$1.diff"
}

# Phase 1.
load "$here/commands/formats" production
"$hieracc" compile --env "$cases/facts-formats/env" --facts "$cases/facts-formats/nodes" --out "$s/files1" >/dev/null || fail "compile from files"
"$hieracc" compile --env "$cases/facts-formats/env" --puppetdb "$url" --out "$s/pdb1" || fail "compile from PuppetDB"
same formats "$cases/facts-formats" "$s/files1" "$s/pdb1"

# Phase 2.
load "$here/commands/trusted" trusted
query='inventory[certname] { environment = "trusted" }'
"$hieracc" compile --env "$cases/facts-trusted/env" --facts "$cases/facts-trusted/nodes" --out "$s/files2" >/dev/null || fail "compile from files"
"$hieracc" compile --env "$cases/facts-trusted/env" --puppetdb "$url" --puppetdb-query "$query" --out "$s/pdb2" || fail "compile from PuppetDB"
same trusted "$cases/facts-trusted" "$s/files2" "$s/pdb2"

if [ -n "$record" ]; then
  mkdir -p "$record"
  post() { curl -sf -X POST -H 'Content-Type: application/json' --data-binary "$2" "$url$1"; }
  post /pdb/query/v4 "{\"query\": $(printf '%s' "$query" | jq -Rs .)}" | jq . >"$record/query.json"
  post /pdb/query/v4/factsets "{\"order_by\":[{\"field\":\"certname\"}],\"query\":[\"in\",\"certname\",[\"array\",$(jq -c '[.[].certname]' "$record/query.json")]]}" | jq . >"$record/factsets-query.json"
  post /pdb/query/v4/factsets '{"limit":10,"offset":0,"order_by":[{"field":"certname"}]}' | jq . >"$record/factsets-page1.json"
  post /pdb/query/v4/factsets '{"limit":10,"offset":10,"order_by":[{"field":"certname"}]}' | jq . >"$record/factsets-page2.json"
  post /pdb/query/v4/factsets '{"limit":10,"offset":20,"order_by":[{"field":"certname"}]}' | jq . >"$record/factsets-page3.json"
  post /pdb/query/v4 '{"query": "inventory[certname] { no_such_field = 1 }"}' >"$record/bad-query.txt" 2>&1 || \
    curl -s -X POST -H 'Content-Type: application/json' --data-binary '{"query": "inventory[certname] { no_such_field = 1 }"}' \
      -w '\nHTTP %{http_code}\n' "$url/pdb/query/v4" >"$record/bad-query.txt"
  echo "recorded PuppetDB's answers in $record"
fi
echo "PASS: hieracc compile --puppetdb gives the same bundles as the same facts from files"
