#!/usr/bin/env ruby
# Writes formats/: the facts of nodes/ (plain hashes, which expected.yaml was made from) in every
# shape hieracc reads, each written by Puppet's own code where Puppet writes that shape:
#
#   formats/one-of-each/   one file per format, each node in exactly one of them
#   formats/<format>/      every node in that format (the PuppetDB exports in one file)
#
# PuppetDB's shapes follow its documented API (/pdb/query/v4/factsets, /facts, /inventory and the
# replace facts command, wire format v5), with $trusted as Puppet's TrustedInformation#to_h makes
# it and PuppetDB stores it (a fact named trusted). Needs `puppet` (apt-get install -y puppet).
#
#   testdata/conformance/facts-formats/gen-formats.rb
require 'puppet'
require 'json'
require 'yaml'
require 'fileutils'
require 'digest'

here = File.expand_path(__dir__)
out = File.join(here, 'formats')
FileUtils.rm_rf(out)
at = Time.utc(2026, 11, 23, 12, 0, 0)
stamp = at.iso8601(3)

nodes = Dir.glob(File.join(here, 'nodes', '*.yaml')).sort.map do |f|
  [File.basename(f, '.yaml'), Puppet::Util::Yaml.safe_load_file(f)]
end

def trusted(cert)
  Puppet::Context::TrustedInformation.new('remote', cert, {}, {}).to_h
end

def facts_object(cert, values, at)
  f = Puppet::Node::Facts.new(cert, values.dup)
  f.timestamp = at
  f.expiration = at + 1800
  f
end

write = lambda do |dir, name, text|
  FileUtils.mkdir_p(dir)
  File.write(File.join(dir, name), text)
end

# Per-node formats: file name and content.
per_node = {
  'plain-json' => ->(c, v) { ["#{c}.json", JSON.pretty_generate(v) + "\n"] },                  # facter -j
  'plain-yaml' => ->(c, v) { ["#{c}.yaml", YAML.dump(v)] },                                     # facter -y
  'facterdb' => ->(c, v) { ["#{c}.facts", JSON.pretty_generate(v) + "\n"] },                    # facterdb
  'find-json' => ->(c, v) { ["#{c}.json", facts_object(c, v, at).render(:json) + "\n"] },       # puppet facts find
  'find-yaml' => ->(c, v) { ["#{c}.yaml", facts_object(c, v, at).render(:yaml)] },             # ... --render-as yaml
  'cache' => ->(c, v) { ["#{c}.yaml", YAML.dump(facts_object(c, v, at))] },                     # Puppet::Util::Yaml.dump, the yaml terminus
  'cache-old' => lambda { |c, v|                                                                # an old Puppet's cache: _timestamp in values
    f = facts_object(c, v.merge('_timestamp' => at), at)
    ["#{c}.yaml", YAML.dump(f)]
  },
  'command' => lambda { |c, v|                                                                  # replace facts, wire format v5
    ["#{c}.json", JSON.pretty_generate({ 'certname' => c, 'environment' => 'production', 'producer_timestamp' => stamp,
                                         'producer' => 'puppet.example.com', 'values' => v }) + "\n"]
  },
}

# Shapes with fields beyond the ones hieracc knows, which Puppet and PuppetDB ignore, and a Puppet 3
# cache (its _timestamp a symbol key holding a Time): not in one-of-each.
variants = {
  'find-json-extra' => lambda { |c, v|                                                          # a field Facts.from_data_hash ignores
    ["#{c}.json", JSON.pretty_generate(JSON.parse(facts_object(c, v, at).render(:json)).merge('extra' => { 'a' => 1 })) + "\n"]
  },
  'command-extra' => lambda { |c, v|                                                            # a field the wire format does not name
    ["#{c}.json", JSON.pretty_generate({ 'certname' => c, 'environment' => 'production', 'producer_timestamp' => stamp,
                                         'producer' => 'puppet.example.com', 'values' => v, 'job_id' => 'j1' }) + "\n"]
  },
  'inventory-record-extra' => lambda { |c, v|                                                   # one inventory record, a field more
    ["#{c}.json", JSON.pretty_generate({ 'certname' => c, 'timestamp' => stamp, 'environment' => 'production',
                                         'facts' => v.merge('trusted' => trusted(c)), 'trusted' => trusted(c),
                                         'extra' => [1] }) + "\n"]
  },
  'cache-puppet3' => lambda { |c, v|                                                            # values[:_timestamp] = Time
    f = facts_object(c, v.merge(:_timestamp => at), at)
    ["#{c}.yaml", YAML.dump(f)]
  },
}

factset = lambda do |c, v|
  all = v.merge('trusted' => trusted(c))
  { 'certname' => c, 'environment' => 'production', 'timestamp' => stamp, 'producer_timestamp' => stamp,
    'producer' => 'puppet.example.com', 'hash' => Digest::SHA1.hexdigest(JSON.generate([c, all])),
    'facts' => { 'data' => all.map { |k, x| { 'name' => k, 'value' => x } }, 'href' => "/pdb/query/v4/factsets/#{c}/facts" } }
end
rows = ->(c, v) { v.merge('trusted' => trusted(c)).map { |k, x| { 'certname' => c, 'name' => k, 'value' => x, 'environment' => 'production' } } }
inventory = lambda do |c, v|
  { 'certname' => c, 'timestamp' => stamp, 'environment' => 'production', 'facts' => v.merge('trusted' => trusted(c)), 'trusted' => trusted(c) }
end
exports = {
  'factsets' => ->(ns) { ['factsets.json', JSON.pretty_generate(ns.map { |c, v| factset.(c, v) }) + "\n"] },
  'facts-rows' => ->(ns) { ['facts.json', JSON.pretty_generate(ns.flat_map { |c, v| rows.(c, v) }) + "\n"] },
  'inventory' => ->(ns) { ['inventory.json', JSON.pretty_generate(ns.map { |c, v| inventory.(c, v) }) + "\n"] },
}

formats = per_node.keys + exports.keys
abort "#{nodes.size} nodes for #{formats.size} formats: one-of-each needs one node per format" if nodes.size < formats.size

per_node.merge(variants).each do |fmt, gen|
  nodes.each { |c, v| write.(File.join(out, fmt), *gen.(c, v)) }
end
exports.each { |fmt, gen| write.(File.join(out, fmt), *gen.(nodes)) }

# one-of-each: node i in format i; the nodes left over go to the last export.
one = File.join(out, 'one-of-each')
formats.each_with_index do |fmt, i|
  if per_node[fmt]
    c, v = nodes[i]
    name, text = per_node[fmt].(c, v)
    write.(one, name, text)
  else
    ns = fmt == formats.last ? nodes[i..] : [nodes[i]]
    write.(one, *exports[fmt].(ns))
  end
end
puts "wrote #{formats.size} formats of #{nodes.size} nodes to #{out}"
