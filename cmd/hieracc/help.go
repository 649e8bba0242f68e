package main

import (
	"fmt"
	"strings"
)

var helpCmd = &command{
	name:     "help",
	synopsis: "show help for hieracc or one of its commands",
	usage:    helpUsage,
	run:      runHelp,
}

func runHelp(c *cmdEnv, args []string) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(c.stdout, mainUsage())
		return exitOK
	case len(args) > 1:
		return c.usageError("give one command name, not %d", len(args))
	case args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
		fmt.Fprint(c.stdout, helpUsage)
		return exitOK
	}
	cmd := findCommand(args[0])
	if cmd == nil {
		fmt.Fprintf(c.stderr, "hieracc help: unknown command %q\n\n%s", args[0], mainUsage())
		return exitUsage
	}
	fmt.Fprint(c.stdout, cmd.usage)
	return exitOK
}

// mainUsage is `hieracc help`.
func mainUsage() string {
	var b strings.Builder
	b.WriteString(`hieracc compiles Puppet Hiera 5 data ahead of time: for each node, every key of
the control repo is resolved and merged exactly as 'puppet lookup' (Puppet 7)
would, and written to one bundle file per node. Agents and scripts then read
a bundle instead of running Hiera.

Usage:
  hieracc <command> [flags]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.synopsis)
	}
	b.WriteString(`
Example:
  hieracc compile --env control-repo --facts facts/ --out bundles/
  hieracc lookup --bundle bundles/ --node web01.example.net ntp::servers

Exit codes:
  0  success (lookup: a value was found; diff: no differences)
  1  compile errors; lookup: key not found, or the lookup failed;
     diff: differences
  2  bad command line; diff: trouble (nothing to compare, unreadable bundles)

Run 'hieracc help <command>' (or 'hieracc <command> -h') for a command's flags.
`)
	return b.String()
}

// synopsisLines is the "Usage:" block at the top of a command's help.
func synopsisLines(usage string) string {
	var out []string
	for _, l := range strings.Split(usage, "\n") {
		if strings.HasPrefix(l, "  hieracc ") || (len(out) > 0 && strings.HasPrefix(l, "          ")) {
			out = append(out, l)
		} else if len(out) > 0 {
			break
		}
	}
	return strings.Join(out, "\n")
}

const helpUsage = `Usage:
  hieracc help [command]

Shows what hieracc does, or the flags, an example and the exit codes of one
command. 'hieracc <command> -h' shows the same.
`

const compileUsage = `Usage:
  hieracc compile --env DIR --facts PATH... --out DIR [flags]

Compiles the Hiera data of an environment for every node whose facts are
given, and writes one bundle per node: OUT/<certname>.bundle. Every key the
node's hierarchies reach is resolved, interpolated and merged as
'puppet lookup' (Puppet 7) would, with its lookup_options; a bundle also
keeps each level's contribution, so 'hieracc lookup' can merge differently
and explain where a value came from.

Flags:
  --env DIR            the environment folder: hiera.yaml, data/, modules/
                       (required). Without hiera.yaml it has no data layer,
                       as in Puppet.
  --modules DIR        the environment's modules folder (default: DIR/modules
                       of --env, when it exists). Each module's hiera.yaml and
                       data/ form the module layer.
  --global PATH        the global layer: Puppet's confdir, or the hiera.yaml in
                       it (PATH may also be a config file of another name,
                       like Puppet's hiera_config; its folder is then the
                       confdir). A confdir without hiera.yaml uses Puppet's
                       default global config (data/common.yaml). Without the
                       flag there is no global layer.
  --mount ABS=DIR      supply the Puppet server's folder ABS (an absolute
                       path a hierarchy names, e.g. /etc/puppetlabs/puppet)
                       from the local folder DIR. Repeatable. Other absolute
                       paths are read as absent, with a warning.
  --environment NAME   the environment's name, as $environment and
                       $server_facts.environment (default "production").
                       Not with --environment-from-facts.
  --facts PATH...      facts files, or folders of them (every *.json, *.yaml,
                       *.yml and *.facts inside, not recursive; anything else
                       in the folder is reported). Each file's shape is
                       detected: a facts hash (facter -j/-y, puppet facts
                       show, facterdb), whose file name gives the certname;
                       puppet facts find's JSON or YAML and the server's
                       facts cache, whose name must match the file's; PuppetDB
                       exports (factsets, facts, inventory) of many nodes.
                       A certname given twice is an error. Repeatable;
                       arguments that are not flags are facts paths too.
  --puppetdb URL       also compile the nodes whose factsets PuppetDB holds
                       (http://localhost:8080, https://puppetdb:8081), with
                       their $trusted as PuppetDB recorded it (certificate
                       extensions included); --facts is then optional.
  --puppetdb-query PQL only the nodes a PQL query returns, e.g.
                       'inventory[certname] { facts.os.family = "RedHat" }'
  --puppetdb-cert FILE, --puppetdb-key FILE, --puppetdb-cacert FILE
                       PEM files for HTTPS: the client certificate and key
                       PuppetDB accepts, the CA its certificate chains to.
  --environment-from-facts
                       compile each node against the environment its facts'
                       source recorded (PuppetDB, a replace facts payload):
                       --env-root DIR/<environment>, instead of --env. A node
                       without one, or of one not in DIR, is an error. Always
                       a full compile.
  --env-root DIR       with --environment-from-facts: the folder of
                       environments (r10k's), each with its hiera.yaml,
                       data/ and modules/.
  --fact-override NAME=JSON
                       set a fact on every node, for "what if" compiles:
                       os.family='"RedHat"' (dots reach nested facts; the
                       value is JSON, so a string keeps its quotes).
                       Repeatable, applied in order. Not trusted.* or
                       server_facts.*: they are not facts ($trusted comes
                       from the node's certificate).
  --out DIR            where bundles are written (created when missing).
                       Bundles are written to temporary files in OUT, then
                       synced and renamed once all are compiled: no partial
                       bundle is ever visible. Bundles are mode 0640, as they
                       hold whatever secrets the data holds. OUT is
                       hieracc's: the bundles of nodes whose facts are not
                       given are removed. One compile at a time writes to
                       OUT: a second one fails at once.
  --keep-going         write every node's bundle even when there are errors;
                       the keys that failed hold their error, and looking them
                       up reports it. The exit code is still 1.
  --strict             treat warnings as errors.
  --jobs N             nodes compiled in parallel (default 0: one per CPU).
  --no-share           compile every node on its own, reusing nothing another
                       node's compile found out: the same bundles, slower. A
                       debugging switch, to tell whether a wrong value comes
                       from Hiera's rules or from sharing work across nodes.
  --full               compile every node, even when --out holds an earlier
                       compile that could be updated incrementally.
  --format FORMAT      how errors and warnings are printed: text (the
                       default), json (one JSON object per line, with every
                       node) or github (GitHub Actions workflow commands,
                       ::error file=F,line=L,col=C::message, which show on
                       the line of the pull request that caused them).
  --verbose            say more: every node of an error that several share,
                       and after the compile the time each stage took
                       (summed over the workers) and its share, on stderr.
  --progress WHEN      auto (the default): show nodes done, rate and time
                       left on stderr while compiling, when it is a terminal;
                       always; never.
  --pkcs7-private-key PATH, --pkcs7-public-key PATH
                       the keys of every eyaml level (lookup_key:
                       eyaml_lookup_key), instead of the files its options
                       name (pkcs7_private_key, pkcs7_public_key).
  --ruby-backends MODE fail (the default): lookups that reach a level whose
                       function is Ruby code (a custom data_hash, lookup_key
                       or data_dig) fail with Puppet's "Unable to find";
                       puppet: run them with the installed Puppet's Ruby,
                       one process per compile, as Puppet's lookup would.
                       lookup_key and data_dig functions are asked only the
                       keys the data files name, and those of --keys.
  --keys FILE          with --ruby-backends=puppet: more keys to ask
                       lookup_key and data_dig functions, one a line.
  --sign-key FILE      sign every bundle with the private key in FILE (PEM:
                       Ed25519, ECDSA P-256 or RSA; PKCS#8, or PKCS#1 and
                       SEC1 as Puppet writes them). Certificates that follow
                       the key in FILE go with the signature, leaf first, so
                       that agents can check it against a CA ('verify --ca
                       --signer'). Its certificates must be valid now, an
                       RSA key 2048 bits or more.
                       The signature covers the node, environment, revision,
                       the seal and the body's digest. Signed bundles are
                       reproducible: the same inputs give the same bytes
                       (sealed to RSA certificates, the same body: RSA-OAEP
                       pads at random).
  --sign-cert FILE     the signing key's certificate chain, leaf first,
                       instead of the certificates in --sign-key's file.
  --seal-to CERTDIR    seal each node's secrets (keys holding text decrypted
                       from eyaml's ENC[...], and Sensitive ones) to its
                       Puppet agent certificate, CERTDIR/<certname>.pem (the
                       Puppet CA's /etc/puppetlabs/puppetserver/ca/signed;
                       RSA or EC P-256): their values, errors and sources are
                       encrypted, and only the node's private key opens
                       them. The other keys stay plain. A node without a
                       certificate is an error, as is a certificate that
                       does not name the node (its subject's common name),
                       is not valid now or has an RSA key under 2048 bits.
  --seal-missing plain write the bundles of nodes without a certificate in
                       CERTDIR with their secrets in plain text, as without
                       --seal-to (default: error).
  --source-revision REV
                       record REV in every bundle as the source it was
                       compiled from (inspect, lookup --explain and runtime's
                       Header show it). Default: the git commit of the
                       control repo when its work tree is clean; none
                       otherwise. Not an input of incremental compiles.
  --shard K/N          compile only the nodes of shard K of N (K from 1 to N;
                       from a 0-based index, give index+1), so that N machines
                       share a compile with no coordinator. A node's shard is
                       the first 8 bytes of the SHA-256 of its certname, as an
                       unsigned big-endian integer, modulo N, plus 1: it does
                       not change when other nodes come and go. The shard
                       removes from OUT only bundles of its own nodes, and
                       keeps its state in OUT/.hieracc-state-K-of-N.json, so
                       each shard compiles incrementally on its own. The N
                       shards' bundles together are a full compile's, byte for
                       byte; diff and lookup read a folder of the shards'
                       folders as one.

When --out holds an earlier compile (its .hieracc-state.json), only the nodes
whose facts or data files changed are compiled again, and only their bundles
are rewritten; the result is the same as a full compile. Adding or removing a
file, changing a hiera.yaml, other flags, other folders (another checkout) or
another hieracc build all make the compile a full one.

Errors and warnings go to stderr, one per line, as
  file:line:col: message (key "k", level "l", node n)
with the file named as you named its folder. One that several nodes share
is printed once, with their count and the first three (all with --verbose):
  file:line:col: message (key "k", 3000 nodes: a, b, c and 2997 more)
A summary (nodes, keys, distinct errors and warnings, time) goes to stdout.
When there is any error, nothing is written, unless --keep-going is given.

Only files inside --env, --modules, --global and --mount are read. Bundles
and the messages recorded in them name files by the folder they come from:
env/..., modules/..., global/... and mount/ABS/..., whatever the folders are
called on disk, so the same inputs give the same bundles on every machine;
'diff' and 'lookup --explain' name them as the folders were given when told
them (--env, --modules, --global).
Each bundle records a digest of what it was compiled from: every file read,
the facts, and --environment.

Example:
  hieracc compile --env control-repo --facts facts/ --out bundles/

Exit codes:
  0  bundles written; there may be warnings
  1  errors (nothing written without --keep-going), or writing failed
  2  bad command line
`

const verifyUsage = `Usage:
  hieracc verify (--key FILE | --ca FILE --signer WHO...) PATH...

Checks every bundle of the folders 'hieracc compile' wrote (their --out; a
folder of the shards' folders too), or of the bundle files given: each must
be whole (its digest holds), signed ('compile --sign-key'), by a trusted
signer, and named after the node it holds. Each bad bundle is named on
stderr with what is wrong: not signed, changed since it was signed, signed by
another signer, damaged, or renamed. The shared details file each bundle
names (details/<digest>.details beside it, which explanations and
lookup-time merges read) must be there and whole: each missing or damaged
one is named once, with the bundles that need it, which fail.

Flags:
  --key FILE   the public keys that may have signed (PEM: PUBLIC KEY blocks,
               or certificates whose keys are taken).
  --ca FILE    the CA certificates that must have issued the signer's
               certificate (PEM), which the bundle carries: Puppet's
               ssl/certs/ca.pem, when CI signs with a certificate from the
               Puppet CA. It needs --signer: the CA issued every agent's
               certificate, and a CA alone would let any agent sign any
               node's bundle.
  --signer WHO who may sign under --ca (repeatable; one must match): the
               certificate's certname (ci.example.com), a pattern of
               certnames ('*.ci.example.com'), or EXT=VALUE, an extension
               the certificate carries with that value, EXT an OID or one
               of Puppet's names (pp_auth_role=hieracc-signer; pp_auth_*
               extensions are not signed from an agent's request unless
               the CA allows them, pp_role and the like are).

Each bundle must be the node's its file is named after, <certname>.bundle.

Examples:
  hieracc verify --key ci-signing.pub bundles/
  hieracc verify --ca /etc/puppetlabs/puppet/ssl/certs/ca.pem \
      --signer ci.example.com bundles/

Exit codes:
  0  every bundle verified
  1  a bundle failed (each is named), or none was found
  2  bad command line
`

const checkUsage = `Usage:
  hieracc check --env DIR [--modules DIR] [--global PATH] [--facts PATH...] [flags]

Lints a control repo without compiling a node: a CI step that fails the pull
request that breaks the data, whichever node it reaches. Every data file a
hierarchy level can name is read, with the reader and the messages of
'compile', whether or not a node reaches it: a level's path, with each
interpolation taken as a wildcard (roles/%{facts.role}.yaml names every file
matching roles/*.yaml), of the environment, of every module and of the
global layer. Errors: what makes lookups fail (a broken hiera.yaml, a data
file that does not parse, a value Puppet refuses, an eyaml value the keys
cannot decrypt: never its text). Warnings: what Puppet reads without a word
(a key written twice in a mapping, a byte order mark, a tab in
indentation), a data file under a datadir that no level can name, a
lookup_options entry that matches no key of any data file, and, given
facts, a fact a level interpolates that none of the nodes has.

Flags:
  --env DIR            the environment folder: hiera.yaml, data/, modules/
                       (required).
  --modules DIR        the environment's modules folder (default: DIR/modules
                       of --env, when it exists).
  --global PATH        the global layer: Puppet's confdir, or the hiera.yaml in
                       it (as compile's --global). Without the flag there is
                       no global layer.
  --mount ABS=DIR      supply the Puppet server's folder ABS from the local
                       folder DIR (as compile's --mount). Repeatable.
  --facts PATH...      facts files, or folders of them (as compile's): only
                       to tell which facts the hierarchies may interpolate.
                       Optional; arguments that are not flags are facts
                       paths too.
  --pkcs7-private-key PATH, --pkcs7-public-key PATH
                       the keys of every eyaml level, instead of the files its
                       options name. A value the keys do not decrypt is an
                       error; when no key is given and those the options
                       name cannot be used here, a warning per file says its
                       values were not checked.
  --format FORMAT      how errors and warnings are printed: text (the
                       default), json (one JSON object per line) or github
                       (GitHub Actions workflow commands,
                       ::error file=F,line=L,col=C::message).
  --strict             treat warnings as errors.
  --verbose            name every node of an error that several share.

Examples:
  hieracc check --env control-repo
  hieracc check --env control-repo --facts facts/ --strict --format github

Exit codes:
  0  no error (warnings are printed)
  1  errors, or warnings with --strict
  2  bad command line
`

const lookupUsage = `Usage:
  hieracc lookup --bundle DIR --node NAME [flags] KEY...

Looks keys up in a node's compiled bundle, like 'puppet lookup' does on a
Puppet server: with several keys, the value of the first one found is
printed. Flags may come before or after the keys.

Flags:
  --bundle PATH         the folder 'hieracc compile' wrote (--out); the bundle
                        read is PATH/<node>.bundle. PATH may also be a folder
                        of the folders of a compile's shards (--shard), read
                        as one, or a bundle file, and --node is then optional.
  --node NAME           the node's certname (required with a folder).
                        Repeatable, and NAME may be a pattern ('web*', as
                        Go's path.Match): then each node's value is printed
                        on one line, "node: value", in node order (as
                        json, or with --render-as s as to_s).
  --merge STRATEGY      merge the values of every level with this strategy
                        instead of the key's lookup_options: first, unique,
                        hash or deep.
  --knock-out-prefix P  with --merge deep: values starting with P remove the
                        matching lower-priority entry.
  --sort-merged-arrays  with --merge deep: sort merged arrays.
  --merge-hash-arrays   with --merge deep: deep-merge hashes inside arrays.
  --default VALUE       print VALUE (a string, as with puppet lookup) when no
                        key is found, and exit 0.
  --type TYPE           the value must be of this Puppet type (String,
                        Integer[0, 10], Array[String], Hash[String, Data],
                        Optional[...], Enum[...], ...); otherwise the lookup
                        fails with Puppet's message, as puppet lookup --type.
  --render-as FORMAT    how the value is printed: yaml (the default, as
                        'puppet lookup': "--- value"), json, or s (Ruby's
                        to_s, e.g. {"a"=>1}). As in Puppet, json fails for
                        a value nested more than 100 deep.
  --explain             show how the value was found instead: every layer,
                        hierarchy level and data file searched (path not
                        found, no such key, or the value found, with its
                        line), how the values were merged, and the result.
                        It is text (--render-as does not apply). As with
                        puppet lookup, it exits 0 even when nothing is
                        found or the lookup fails. The values of a key
                        holding text decrypted from eyaml's ENC[...] are
                        hidden.
  --explain-options     show only which lookup_options entry applies to the
                        key (the key itself or a regexp), the file, line and
                        level where it is written, and the merge it sets.
  --show-secrets        with --explain: show those values too.
  --env DIR, --modules DIR, --global PATH
                        with --explain: the folders the bundle was compiled
                        from, as given to compile; files are then named as
                        you named those folders (data/common.yaml for --env
                        .), not as the bundle records them (env/...).
                        Without them, the folders that compile's state file
                        beside the bundle records, from the top of their git
                        work tree (or the current folder); as recorded when
                        there is none or they are gone.
  --private-key FILE    the node's private key (Puppet's
                        ssl/private_keys/<certname>.pem), which opens the
                        keys 'compile --seal-to' sealed to the node. Without
                        it, looking up such a key fails, saying it is sealed.

A lookup needs only the node's bundle. --explain, --merge and some dotted
keys also read the bundle's shared details file, details/<digest>.details
in the bundle's folder, as 'hieracc compile' writes it: copy details/ with
the bundles for them.

Errors go to stderr with Puppet's message, for example
  Function lookup() did not find a value for the name 'KEY'

Example:
  hieracc lookup --bundle bundles/ --node web01.example.net ntp::servers
  hieracc lookup --bundle bundles/ --node web01.example.net --explain \
          --merge deep --knock-out-prefix -- accounts::users

Exit codes:
  0  a value was found (or --default was used); with --explain, the
     explanation was printed
  1  no key was found, the lookup failed, or the bundle could not be read
  2  bad command line
`
