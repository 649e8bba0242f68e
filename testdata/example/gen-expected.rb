#!/usr/bin/env ruby
# Regenerates expected.yaml from real Puppet: every check below is run through
# ../../../shared/puppet/lookup-case (puppet lookup --render-as json) and the parsed result is
# written in the conformance corpus's format. Nothing in expected.yaml is typed by hand.
#
#   testdata/example/gen-expected.rb            # needs `puppet` (apt-get install -y puppet)
#
# LOOKUP_CASE overrides the path of lookup-case; JOBS the number of parallel Puppet runs (default 2).
#
# A check is [node, key] or [node, key, merge] or [node, key, merge, error-substring]:
#   merge: nil (lookup_options decide), "first"/"unique"/"hash"/"deep", or a hash
#          {"strategy" => "deep", "knockout_prefix" => "--", ...}.
#   error-substring: the check must fail and Puppet's message must contain it. A check without
#          one must not fail (a "did not find a value" answer is recorded as not_found).
require_relative '../conformance/genlib'

HERE = File.expand_path(__dir__)

WEB1 = 'web01.fra1.example.net'
WEB2 = 'web02.fra1.example.net'
WEB3 = 'web03.ams2.example.net'
DB1 = 'db01.fra1.example.net'
DB2 = 'db02.ams2.example.net'
BASTION = 'bastion01.ams2.example.net'
LB = 'lb01.fra1.example.net'
CI = 'ci01.example.org'

CHECKS = [
  # web01: Debian 12 web server in fra1, with a JSON network-zone level.
  [WEB1, 'profile::base::packages'],
  [WEB1, 'profile::base::all_packages'],
  [WEB1, 'nginx::vhosts'],
  [WEB1, 'nginx::vhosts."www.fra1.example.net".listen'],
  [WEB1, 'nginx::worker_processes'],
  [WEB1, 'nginx::user'],
  [WEB1, 'firewall::rules'],
  [WEB1, 'firewall::rules', 'first'],
  [WEB1, 'profile::monitoring::labels'],
  [WEB1, 'profile::monitoring::labels', 'hash'],
  [WEB1, 'profile::monitoring::endpoint'],
  [WEB1, 'ntp::servers'],
  [WEB1, 'ntp::restrict'],
  [WEB1, 'network::mtu'],
  [WEB1, 'profile::base::search_domain'],
  # web02: the same role and datacenter on Debian 11 (os/Debian/11.yaml).
  [WEB2, 'profile::base::packages'],
  [WEB2, 'nginx::package_ensure'],
  [WEB2, 'ssh::server::options'],
  [WEB2, 'postgresql::max_connections'],
  # web03: RedHat-family web server in ams2.
  [WEB3, 'ntp::servers'],
  [WEB3, 'ntp::service_name'],
  [WEB3, 'ntp::config_options'],
  [WEB3, 'profile::base::dns_servers'],
  [WEB3, 'nginx::vhosts."status.ams2.example.net".root'],
  [WEB3, 'ssh::server::options.Subsystem'],
  # db01: RedHat 8 database with its own per-node data.
  [DB1, 'profile::base::packages'],
  [DB1, 'accounts::users'],
  [DB1, 'accounts::users', { 'strategy' => 'deep' }],
  [DB1, 'postgresql::settings'],
  [DB1, 'postgresql::version'],
  [DB1, 'postgresql::max_connections'],
  [DB1, 'profile::base::proxy'],
  [DB1, 'firewall::rules'],
  [DB1, 'ntp::driftfile'],
  [DB1, 'profile::base::timezone'],
  # db02: RedHat 9 database in ams2, no per-node data.
  [DB2, 'firewall::rules."200 accept postgresql from app subnets".source'],
  [DB2, 'accounts::users'],
  [DB2, 'postgresql::settings.shared_buffers'],
  [DB2, 'profile::base::motd'],
  [DB2, 'network::dns_servers.1'],
  # bastion01: knockouts, a false that stops the search, a per-node hash override.
  [BASTION, 'ssh::server::options'],
  [BASTION, 'ssh::server::options.Port'],
  [BASTION, 'accounts::users'],
  [BASTION, 'accounts::users', { 'strategy' => 'deep', 'knockout_prefix' => '--', 'sort_merged_arrays' => true }],
  [BASTION, 'profile::base::manage_firewall'],
  [BASTION, 'firewall::rules'],
  [BASTION, 'profile::base::packages'],
  # lb01: a role without a data file.
  [LB, 'profile::base::packages'],
  [LB, 'profile::monitoring::labels', 'deep'],
  [LB, 'nginx::vhosts'],
  [LB, 'profile::base::proxy'],
  [LB, 'ntp::restrict', 'first'],
  # ci01: no datacenter fact, Ubuntu (Debian family, major release "22.04"), no network zone.
  [CI, 'profile::base::motd'],
  [CI, 'ntp::servers'],
  [CI, 'ntp::restrict'],
  [CI, 'profile::base::timezone'],
  [CI, 'network::mtu'],
  [CI, 'profile::base::packages'],
  [CI, 'profile::base::dns_servers'],
  [CI, 'profile::monitoring::endpoint'],
  [CI, 'lookup_options'],
  [CI, 'ntp::nonexistent'],
  [CI, 'profile::base::motd.banner', nil, 'Data Provider type mismatch'],
].freeze

checks = CHECKS.map do |node, key, merge, error|
  { 'node' => node, 'key' => key, 'merge' => merge, 'error' => error }.compact
end
GenExpected.write(HERE, checks, 'testdata/example/gen-expected.rb')
