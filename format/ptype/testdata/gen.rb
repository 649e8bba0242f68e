# Generates cases.json, what Puppet 7.23 says when a value is checked
# against a type, from cases.txt (one case a line: TYPE, a tab, the value as
# JSON, or as YAML after "yaml:" for hash keys that are not strings; '#'
# lines are comments):
#   ruby gen.rb cases.txt > cases.json
# Each entry: the type and value as given; "error" when Puppet's type parser
# refuses the type; else "instance" (TypeCalculator#instance?), "string"
# (the parsed type as Puppet prints it) and "message", the error of
# TypeAsserter.assert_instance_of('Found value', type, value), which is what
# lookup() and `puppet lookup --type` raise (null when the value matches).
require 'json'
require 'yaml'
require 'puppet'
Puppet.initialize_settings(['--confdir', Dir.mktmpdir, '--vardir', Dir.mktmpdir])
T = Puppet::Pops::Types
out = []
File.readlines(ARGV[0], chomp: true).each do |line|
  next if line.strip.empty? || line.start_with?('#')
  type_s, value_s = line.split("\t", 2)
  entry = {'type' => type_s, 'value' => value_s}
  begin
    type = T::TypeParser.singleton.parse(type_s)
    value = value_s.start_with?('yaml:') ? YAML.safe_load(value_s.delete_prefix('yaml:')) : JSON.parse(value_s)
    entry['string'] = type.to_s
    entry['instance'] = type.instance?(value)
    begin
      T::TypeAsserter.assert_instance_of('Found value', type, value)
      entry['message'] = nil
    rescue Puppet::Pops::Types::TypeAssertionError => e
      entry['message'] = e.message
    end
  rescue Puppet::ParseError, ArgumentError, Puppet::Error => e
    entry['error'] = e.message
  end
  out << entry
end
puts JSON.pretty_generate(out)
