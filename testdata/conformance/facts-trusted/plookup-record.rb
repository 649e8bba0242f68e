# ../../../../shared/puppet/plookup.rb, except that $trusted is the hash in the JSON file
# PLOOKUP_TRUSTED_FILE names, when set (a PuppetDB record's trusted hash), instead of the one
# derived from the certname. Usage: ruby plookup-record.rb <puppet lookup arguments...>
require 'json'
require 'puppet'
require 'puppet/util/command_line'
require 'puppet/indirector/node/plain'

class Puppet::Node::Plain
  alias_method :__orig_find, :find
  def find(request)
    node = __orig_find(request)
    file = ENV['PLOOKUP_TRUSTED_FILE']
    node.trusted_data = if file
                          JSON.parse(File.read(file)).freeze
                        else
                          Puppet::Context::TrustedInformation.new('remote', node.name, {}, {}).to_h
                        end
    node.add_server_facts({})
    node
  end
end

# As plookup.rb: print the message of a failed lookup so that the generator can tell not-found
# from other failures.
module PLookupReportErrors
  def lookup(*args, &blk)
    @__depth = (@__depth || 0) + 1
    super
  rescue Puppet::DataBinding::LookupError => e
    $stderr.puts("Error: #{e.message}") if @__depth == 1
    raise
  ensure
    @__depth -= 1
  end
end
Puppet::Pops::Lookup.singleton_class.prepend(PLookupReportErrors)

Puppet::Util::CommandLine.new('puppet', ['lookup'] + ARGV).execute
