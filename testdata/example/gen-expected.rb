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
require 'json'
require 'open3'
require 'psych'

HERE = File.expand_path(__dir__)
LOOKUP_CASE = ENV['LOOKUP_CASE'] || File.expand_path('../../../shared/puppet/lookup-case', HERE)
JOBS = Integer(ENV['JOBS'] || 2)

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

def merge_flags(merge)
  case merge
  when nil then []
  when String then ['--merge', merge]
  else
    flags = ['--merge', merge.fetch('strategy')]
    flags += ['--knock-out-prefix', merge['knockout_prefix']] if merge['knockout_prefix']
    flags << '--sort-merged-arrays' if merge['sort_merged_arrays']
    flags << '--merge-hash-arrays' if merge['merge_hash_arrays']
    flags
  end
end

# Puppet's stderr as one-line messages, colours stripped, scratch paths made relative to the case.
def messages(stderr)
  lines = stderr.gsub(/\e\[[0-9;]*m/, '').lines.map(&:rstrip).reject(&:empty?)
  msgs = []
  lines.each do |l|
    if l =~ /\A(Warning|Error|Notice): / || msgs.empty?
      msgs << l
    else
      msgs[-1] += ' ' + l.strip
    end
  end
  msgs.map do |m|
    m.gsub(%r{/\S*?/code/environments/production/modules/}, 'modules/')
     .gsub(%r{/\S*?/code/environments/production/}, 'env/')
     .gsub(%r{/\S*?/conf/}, 'global/')
  end
end

def run(check)
  node, key, merge, want_error = check
  cmd = [LOOKUP_CASE, HERE, node, *merge_flags(merge), key]
  out, err, status = Open3.capture3(*cmd)
  msgs = messages(err)
  error = msgs.find { |m| m.start_with?('Error: ') }&.delete_prefix('Error: ')
  entry = { 'node' => node, 'key' => key }
  entry['merge'] = merge if merge
  comments = msgs.select { |m| m.start_with?('Warning: ') }.map { |m| "puppet #{m}" }
  if status.success?
    raise "#{node} #{key}: expected an error containing #{want_error.inspect}, got #{out}" if want_error
    entry['value'] = JSON.parse(out)
  elsif error == "Function lookup() did not find a value for the name '#{key}'" && !want_error
    entry['not_found'] = true
  elsif error && want_error && error.include?(want_error)
    comments.unshift("puppet error: #{error}")
    entry['error'] = true
    entry['message'] = want_error
  else
    raise "#{node} #{key}: puppet lookup failed (exit #{status.exitstatus}):\n#{err}"
  end
  [comments, entry]
end

# Psych nodes for a JSON value: strings double-quoted (keys too), other scalars plain.
def ast(value)
  case value
  when Hash
    m = Psych::Nodes::Mapping.new
    value.each { |k, v| m.children << ast(k) << ast(v) }
    m
  when Array
    s = Psych::Nodes::Sequence.new
    value.each { |v| s.children << ast(v) }
    s
  when String
    Psych::Nodes::Scalar.new(value, nil, nil, false, true, Psych::Nodes::Scalar::DOUBLE_QUOTED)
  when nil
    Psych::Nodes::Scalar.new('null')
  else # Integer, Float, true, false
    Psych::Nodes::Scalar.new(value.to_s)
  end
end

def emit(entry)
  seq = Psych::Nodes::Sequence.new
  seq.children << ast(entry)
  doc = Psych::Nodes::Document.new([], [], true)
  doc.children << seq
  stream = Psych::Nodes::Stream.new
  stream.children << doc
  stream.yaml
end

queue = Queue.new
CHECKS.each_with_index { |c, i| queue << [c, i] }
queue.close
results = Array.new(CHECKS.size)
failures = []
Array.new(JOBS) do
  Thread.new do
    while (item = queue.pop)
      check, i = item
      begin
        results[i] = run(check)
      rescue StandardError => e
        failures << e.message
      end
    end
  end
end.each(&:join)
abort(failures.join("\n")) unless failures.empty?

version = `puppet --version`.strip
out = +"# Generated by testdata/example/gen-expected.rb running puppet lookup (Puppet #{version}) -- do not edit by hand.\n"
results.each do |comments, entry|
  comments.each { |c| out << "# #{c}\n" }
  out << emit(entry)
end
File.write(File.join(HERE, 'expected.yaml'), out)
puts "wrote #{CHECKS.size} checks to #{File.join(HERE, 'expected.yaml')}"
