#!/usr/bin/env ruby
# Writes commands/: the payloads of PuppetDB `replace facts` commands (wire format v5) that run.sh
# loads into a real PuppetDB, from the nodes of two conformance cases (whose answers real Puppet gave):
#   commands/formats/<certname>.json  facts-formats/nodes, environment production, with the trusted
#                                     hash Puppet derives from the certname (what a server stores)
#   commands/trusted/<certname>.json  facts-trusted/nodes, environment "trusted", with each record's
#                                     own trusted hash (certificate extensions); a plain hash gets the
#                                     derived one
# $trusted goes in as a fact named trusted, as PuppetDB's facts terminus sends it.
#
#   testdata/puppetdb/gen-commands.rb
require 'puppet'
require 'json'
require 'fileutils'

here = File.expand_path(__dir__)
cases = File.expand_path('../conformance', here)
stamp = '2026-11-23T12:00:00.000Z'

def derived(cert)
  Puppet::Context::TrustedInformation.new('remote', cert, {}, {}).to_h
end

{ 'formats' => ['facts-formats', 'production'], 'trusted' => ['facts-trusted', 'trusted'] }.each do |dir, (kase, env)|
  out = File.join(here, 'commands', dir)
  FileUtils.rm_rf(out)
  FileUtils.mkdir_p(out)
  Dir.glob(File.join(cases, kase, 'nodes', '*.yaml')).sort.each do |f|
    cert = File.basename(f, '.yaml')
    doc = Puppet::Util::Yaml.safe_load_file(f)
    record = doc.key?('certname') && doc.key?('facts')
    values = record ? doc['facts'] : doc
    trusted = (record && doc['trusted']) || derived(cert)
    payload = { 'certname' => cert, 'environment' => env, 'producer_timestamp' => stamp,
                'producer' => 'puppet.example.com', 'values' => values.merge('trusted' => trusted) }
    File.write(File.join(out, "#{cert}.json"), JSON.pretty_generate(payload) + "\n")
  end
end
puts "wrote #{Dir.glob(File.join(here, 'commands', '*', '*.json')).size} commands"
