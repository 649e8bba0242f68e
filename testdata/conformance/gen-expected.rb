#!/usr/bin/env ruby
# Regenerates the expected.yaml of hieracc's own conformance cases from real Puppet: each case
# folder's checks.yaml lists its checks (see genlib.rb), and every one is run through
# ../../../shared/puppet/lookup-case. Needs `puppet` (apt-get install -y puppet hiera-eyaml).
#
#   testdata/conformance/gen-expected.rb                 # every case
#   testdata/conformance/gen-expected.rb CASE_DIR...     # some
require_relative 'genlib'

here = File.expand_path(__dir__)
dirs = ARGV.empty? ? Dir.glob(File.join(here, '*', 'checks.yaml')).map { |f| File.dirname(f) }.sort : ARGV
dirs.each do |dir|
  checks = Psych.safe_load(File.read(File.join(dir, 'checks.yaml')))
  GenExpected.write(File.expand_path(dir), checks, 'testdata/conformance/gen-expected.rb')
end
