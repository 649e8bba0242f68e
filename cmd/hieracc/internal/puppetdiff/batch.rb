# Runs every check of one case through real `puppet lookup` in ONE Ruby process (a process per
# lookup costs a second of start-up). The case folder is laid out as the conformance corpus (env/,
# modules/, global/, nodes/<certname>.yaml); it is copied into a scratch Puppet tree exactly as
# ../shared/puppet/lookup-case does, and the node gets what a Puppet server gives it (as plookup.rb:
# $trusted and $server_facts).
#
#   ruby batch.rb CASE_DIR CHECKS_JSON RESULTS_JSONL
#
# CHECKS_JSON is an array of {"node", "key", "merge"} (merge as in checks.yaml). RESULTS_JSONL gets
# one JSON object per check, in order: {"status": "value", "json": "<--render-as json output>"},
# {"status": "not_found"} or {"status": "error", "message": "..."}, with file paths in messages
# rewritten relative to the case (env/, modules/, global/).
#
# Checks run through Puppet::Application::Lookup's own generate_scope (node, compiler and scope)
# and Puppet::Pops::Lookup.lookup, as `puppet lookup` does; see main for what they share. State
# Puppet keeps per process (its environment cache, the global layer's config, a compiler's lookup
# caches) lives across checks, so a finding must be confirmed with a fresh `lookup-case`.
require 'json'
require 'tmpdir'
require 'fileutils'
require 'puppet'
require 'puppet/util/command_line'
require 'puppet/indirector/node/plain'
require 'puppet/application/lookup'

case_dir, checks_file, results_file = ARGV
abort('usage: batch.rb CASE_DIR CHECKS_JSON RESULTS_JSONL') unless results_file
CASE_DIR = File.expand_path(case_dir)
CHECKS = JSON.parse(File.read(checks_file))
RESULTS = File.open(results_file, 'w')
abort('no checks') if CHECKS.empty?

class Puppet::Node::Plain
  alias_method :__orig_find, :find
  def find(request)
    node = __orig_find(request)
    node.trusted_data = Puppet::Context::TrustedInformation.new('remote', node.name, {}, {}).to_h
    node.add_server_facts({})
    node
  end
end

def relative_paths(msg)
  msg.gsub(%r{/\S*?/code/environments/production/modules/}, 'modules/')
     .gsub(%r{/\S*?/code/environments/production/}, 'env/')
     .gsub(%r{/\S*?/conf/}, 'global/')
end

def merge_options(merge)
  case merge
  when nil then nil
  when String then merge == 'deep' ? { 'strategy' => 'deep', 'sort_merged_arrays' => false, 'merge_hash_arrays' => false } : { 'strategy' => merge }
  else
    # As Puppet::Application::Lookup#main builds them from --merge deep and its flags.
    opts = { 'strategy' => merge.fetch('strategy'),
             'sort_merged_arrays' => !!merge['sort_merged_arrays'],
             'merge_hash_arrays' => !!merge['merge_hash_arrays'] }
    opts['knockout_prefix'] = merge['knockout_prefix'] if merge['knockout_prefix']
    opts
  end
end

def answer(check, scope, renderer)
  invocation = Puppet::Pops::Lookup::Invocation.new(scope, {}, {}, nil)
  value = Puppet::Pops::Lookup.lookup([check.fetch('key')], nil, nil, false, merge_options(check['merge']), invocation)
  { 'status' => 'value', 'json' => renderer.render(value) }
rescue Puppet::DataBinding::LookupError => e
  if e.message == "Function lookup() did not find a value for the name '#{check['key']}'"
    { 'status' => 'not_found' }
  else
    { 'status' => 'error', 'message' => relative_paths(e.message) }
  end
rescue StandardError, Puppet::Error => e
  { 'status' => 'error', 'message' => relative_paths(e.message) }
end

class Puppet::Application::Lookup
  # Replaces main: every check instead of the command line's one key, each with its own node,
  # compiler and scope, as `puppet lookup` (sharing them between the checks of a node, as the
  # lookups of one catalog compile do, saved only a quarter of the time under load).
  def main
    renderer = Puppet::Network::FormatHandler.format(:json)
    CHECKS.each do |check|
      result = nil
      begin
        options[:node] = check.fetch('node')
        options[:fact_file] = File.join(CASE_DIR, 'nodes', "#{options[:node]}.yaml")
        generate_scope { |scope| result = answer(check, scope, renderer) }
      rescue StandardError, Puppet::Error => e # the node itself failed (its facts)
        result = { 'status' => 'error', 'message' => relative_paths(e.message) }
      end
      RESULTS.puts(JSON.generate(result))
      RESULTS.flush
    end
    exit(0)
  end
end

scratch = Dir.mktmpdir('puppetdiff')
begin
  env = File.join(scratch, 'code', 'environments', 'production')
  FileUtils.mkdir_p([env, File.join(scratch, 'conf'), File.join(scratch, 'basemodules'), File.join(scratch, 'var')])
  FileUtils.cp_r(File.join(CASE_DIR, 'env', '.'), env) if File.directory?(File.join(CASE_DIR, 'env'))
  FileUtils.cp_r(File.join(CASE_DIR, 'modules'), File.join(env, 'modules')) if File.directory?(File.join(CASE_DIR, 'modules'))
  FileUtils.cp_r(File.join(CASE_DIR, 'global', '.'), File.join(scratch, 'conf')) if File.directory?(File.join(CASE_DIR, 'global'))
  first = CHECKS.first.fetch('node')
  args = ['lookup', '--confdir', "#{scratch}/conf", '--codedir', "#{scratch}/code",
          '--environmentpath', "#{scratch}/code/environments", '--basemodulepath', "#{scratch}/basemodules",
          '--vardir', "#{scratch}/var", '--node', first, '--facts', File.join(CASE_DIR, 'nodes', "#{first}.yaml"),
          'unused']
  Puppet::Util::CommandLine.new('puppet', args).execute
ensure
  RESULTS.close
  FileUtils.rm_rf(scratch)
end
