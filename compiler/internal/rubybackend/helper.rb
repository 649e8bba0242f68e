# hieracc's Ruby backend helper: runs a control repo's custom Hiera 5
# backend functions (data_hash, lookup_key, data_dig) with the installed
# Puppet, as Puppet's own lookup calls them. hieracc starts it once per
# compile (ruby -e '<this file>') and speaks line-delimited JSON with it:
#
#   -> {"init": {"environment", "env_dir", "modulepath": [...]}}
#   <- {"ready": "<puppet version>"} or {"error": "..."}
#   -> {"kind", "function", "level", "module", "options", "location", "original",
#       "node", "facts", "trusted", "server_facts", "keys"}
#   <- {"hash": V, "invalid": {key: message}}                  (data_hash)
#      {"values": [[key, V], ...], "invalid": {key: message}}  (lookup_key, data_dig)
#      {"error": "<Puppet's message>"}                         (the location fails)
#
# Values V are typed so that nothing is lost in JSON: a String or nil as
# itself, true/false, {"i": "12"} an Integer, {"f": "1.5"} a Float,
# [V, ...] an Array, {"h": [[K, V], ...]} a Hash (in order),
# {"sensitive": V} a Sensitive. Anything else is not data: the key fails
# with Puppet's validation message.
#
# Nothing but the protocol is written on stdout: the functions' output
# goes to stderr, which hieracc discards.
require 'json'

PROTO = $stdout.dup
PROTO.sync = true
$stdout.reopen($stderr)

def reply(obj)
  PROTO.write(JSON.generate(obj) + "\n")
end

def read_request
  line = $stdin.gets
  line && JSON.parse(line)
end

class NotData < StandardError; end

begin
  require 'puppet'
rescue LoadError => e
  reply('error' => "cannot load Puppet: #{e.message}")
  exit 1
end

def to_ruby(v)
  case v
  when nil, String, true, false then v
  when Array then v.map { |e| to_ruby(e) }
  when Hash
    if v.key?('i') then Integer(v['i'])
    elsif v.key?('f') then Float(v['f'])
    elsif v.key?('h') then v['h'].each_with_object({}) { |(k, e), h| h[to_ruby(k)] = to_ruby(e) }
    elsif v.key?('sensitive') then Puppet::Pops::Types::PSensitiveType::Sensitive.new(to_ruby(v['sensitive']))
    else raise ArgumentError, "bad value #{v.keys.inspect}"
    end
  else raise ArgumentError, "bad value #{v.class}"
  end
end

def float_text(f)
  return 'NaN' if f.nan?
  return (f > 0 ? 'Infinity' : '-Infinity') if f.infinite?
  f.to_s
end

def to_wire(v)
  case v
  when nil, String, true, false then v
  when Symbol then v == :undef ? nil : raise(NotData)
  when Integer then { 'i' => v.to_s }
  when Float then { 'f' => float_text(v) }
  when Array then v.map { |e| to_wire(e) }
  when Hash then { 'h' => v.map { |k, e| [to_wire(k), to_wire(e)] } }
  when Puppet::Pops::Types::PSensitiveType::Sensitive then { 'sensitive' => to_wire(v.unwrap) }
  else raise NotData
  end
end

# not_data is Puppet's validation message for a value hieracc cannot
# carry (a Timestamp, a Type, ...): Puppet would accept some as RichData,
# hieracc keeps only data.
def not_data(what, value)
  type = Puppet::Pops::Types::TypeCalculator.singleton.infer(value)
  "#{what} has wrong type, expects Puppet::LookupValue, got #{type}"
end

def init(conf)
  require 'tmpdir'
  scratch = Dir.mktmpdir('hieracc-ruby')
  at_exit { FileUtils.remove_entry(scratch) rescue nil }
  Puppet.initialize_settings(['--confdir', File.join(scratch, 'conf'), '--codedir', File.join(scratch, 'code'),
                              '--vardir', File.join(scratch, 'var'), '--logdir', File.join(scratch, 'log'),
                              '--rundir', File.join(scratch, 'run'), '--environmentpath', File.join(scratch, 'envs')])
  Puppet::Util::Log.close_all
  Puppet::Util::Log.newdestination(:console)
  Puppet::Util::Log.level = :warning
  Puppet[:code] = 'undef'
  name = conf.fetch('environment')
  env = Puppet::Node::Environment.create(name.to_sym, conf.fetch('modulepath'))
  $env = env
  $envs = Puppet::Environments::StaticDirectory.new(name, conf.fetch('env_dir'), env)
  Puppet.push_context({ environments: $envs, current_environment: env }, 'hieracc ruby backends')
  reply('ready' => Puppet.version)
end

# with_scope runs the block in the top scope of a compile for the node,
# as `puppet lookup --node` builds it.
def with_scope(req)
  facts = to_ruby(req['facts']) || {}
  node = Puppet::Node.new(req['node'], facts: Puppet::Node::Facts.new(req['node'], facts), environment: $env)
  node.trusted_data = to_ruby(req['trusted']) if req['trusted']
  node.add_server_facts(to_ruby(req['server_facts']) || {})
  compiler = Puppet::Parser::Compiler.new(node)
  compiler.compile { |catalog| yield(compiler.topscope); catalog }
end

def providers
  @providers ||= {
    'data_hash' => Puppet::Pops::Lookup::DataHashFunctionProvider,
    'lookup_key' => Puppet::Pops::Lookup::LookupKeyFunctionProvider,
    'data_dig' => Puppet::Pops::Lookup::DataDigFunctionProvider,
  }
end

# Interpolator interpolates a level's options as Puppet's HieraConfig does.
class Interpolator
  include Puppet::Pops::Lookup::SubLookup
  include Puppet::Pops::Lookup::Interpolation
end

def location_of(req)
  loc = req['location']
  return nil if loc.nil?
  if loc['path']
    Puppet::Pops::Lookup::ResolvedLocation.new(req['original'] || loc['path'], Pathname(loc['path']), true)
  else
    Puppet::Pops::Lookup::ResolvedLocation.new(req['original'] || loc['uri'], URI(loc['uri']), true)
  end
end

# handle answers one request in the node's scope, calling the function
# through Puppet's own provider of the level's kind, so that loading,
# options, contexts and validation are Puppet's.
def handle(req, scope)
  kind = req.fetch('kind')
  parent = if req['module'].to_s.empty?
             Puppet::Pops::Lookup::EnvironmentDataProvider.new
           else
             Puppet::Pops::Lookup::ModuleDataProvider.new(req['module'])
           end
  location = location_of(req)
  invocation = Puppet::Pops::Lookup::Invocation.new(scope, {}, {}, nil)
  options = to_ruby(req['options']) || {}
  options = Interpolator.new.interpolate(options, invocation, false) unless options.empty?
  prov = providers.fetch(kind).new(req['level'], parent, req['function'], options, location.nil? ? nil : [location])
  where = location.nil? ? '' : ", when using location '#{location}',"
  invalid = {}
  case kind
  when 'data_hash'
    hash = prov.send(:data_hash, invocation, location)
    out = hash.map do |k, v|
      begin
        prov.send(:validate_data_value, v) { "Value for key '#{k}', in hash returned from #{prov.full_name}#{where}" }
        [to_wire(k), to_wire(v)]
      rescue NotData
        invalid[k] = not_data("Value for key '#{k}', in hash returned from #{prov.full_name}#{where}", v)
        [to_wire(k), nil]
      rescue Puppet::Pops::Types::TypeAssertionError => e
        invalid[k] = e.message
        [to_wire(k), nil]
      end
    end
    { 'hash' => { 'h' => out }, 'invalid' => invalid }
  else
    prov.send(:function_context, invocation, location) # loads the function: its failure fails the location
    values = []
    req.fetch('keys').each do |key|
      begin
        found = false
        value = catch(:no_such_key) do
          v = if kind == 'lookup_key'
                prov.send(:lookup_key, key, invocation, location, nil)
              else
                prov.validated_data_dig(Puppet::Pops::Lookup::LookupKey.new(key), invocation, location, nil)
              end
          found = true
          v
        end
        values << [key, to_wire(value)] if found
      rescue NotData
        invalid[key] = not_data("Value for key '#{key}', returned from #{prov.full_name}#{where}", value)
      rescue Puppet::Error, StandardError => e
        invalid[key] = e.message
      end
    end
    { 'values' => values, 'invalid' => invalid }
  end
end

def main
  first = read_request or return
  begin
    init(first.fetch('init'))
  rescue Exception => e
    reply('error' => "cannot start Puppet: #{e.message}")
    return
  end
  pending = read_request
  while pending
    node = pending['node']
    facts = pending['facts']
    begin
      with_scope(pending) do |scope|
        loop do
          reply(begin
                  handle(pending, scope)
                rescue Puppet::Error, StandardError => e
                  { 'error' => e.message }
                end)
          pending = read_request
          break if pending.nil? || pending['node'] != node || pending['facts'] != facts
        end
      end
    rescue Puppet::Error, StandardError => e
      reply('error' => e.message)
      pending = read_request
    end
  end
end

main
