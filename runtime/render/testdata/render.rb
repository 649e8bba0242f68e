# Generates render.json, the expected renderings of render-cases.json, with
# the Ruby that Puppet 7 runs on (Ruby 3.1, Psych 4, json 2.6):
#   ruby render.rb render-cases.json > render.json
# Each entry: the value (as JSON), then what `puppet lookup --render-as json`,
# `--render-as yaml` and `--render-as s` print for it (before puts' newline);
# "json" is null where Ruby's JSON generator fails.
require 'json'; require 'yaml'
out = []
JSON.parse(File.read(ARGV[0])).each do |v|
  j = begin; v.to_json; rescue StandardError; nil; end
  out << {"value" => JSON.generate(v), "json" => j, "yaml" => v.to_yaml, "s" => (v.is_a?(String) ? v : v.to_s)}
end
puts JSON.pretty_generate(out)
