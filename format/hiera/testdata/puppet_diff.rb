# Differential oracle for diff_test.go: answers each JSON request on stdin
# with what Puppet's own code returns. Run by the test only when
# HIERACC_PUPPET_DIFF=1 and Puppet is installed.
require 'json'
require 'puppet'
Puppet.initialize_settings

# Values travel tagged so that Integer/Float and key types survive JSON.
def dec(t)
  return nil if t.key?('n')
  return t['b'] if t.key?('b')
  return Integer(t['i']) if t.key?('i')
  return Float(t['f']) if t.key?('f')
  return t['s'] if t.key?('s')
  return t['a'].map { |e| dec(e) } if t.key?('a')
  h = {}
  t['h'].each { |k, v| h[dec(k)] = dec(v) }
  h
end

def enc(v)
  case v
  when nil then { 'n' => 1 }
  when true, false then { 'b' => v }
  when Integer then { 'i' => v.to_s }
  when Float then { 'f' => v.to_s }
  when String then { 's' => v }
  when Array then { 'a' => v.map { |e| enc(e) } }
  when Hash then { 'h' => v.map { |k, e| [enc(k), enc(e)] } }
  else { 's' => "#<#{v.class}>" }
  end
end

class Inv
  def with(*_) ; yield ; end
  def report_result(r) ; r ; end
  def report_found(_k, v) ; v ; end
  def report_not_found(*_) ; end
  def invocation ; self ; end
end

include Puppet::Pops::Lookup::SubLookup

# A lookup tree: a variant is {"nf":1} (not found), {"err":msg} (raises),
# {"v": value} (found) or {"list": [variants...]} (a nested lookup).
def walk(strategy, node)
  if node.key?('list')
    strategy.lookup(node['list'], Inv.new) { |n| walk(strategy, n) }
  elsif node.key?('nf')
    throw :no_such_key
  elsif node.key?('err')
    raise node['err']
  else
    dec(node['v'])
  end
end

STDIN.each_line do |line|
  req = JSON.parse(line)
  out = begin
    case req['op']
    when 'merge'
      s = Puppet::Pops::MergeStrategy.strategy(dec(req['merge']))
      { 'ok' => enc(s.merge(dec(req['a']), dec(req['b']))) }
    when 'parse'
      s = Puppet::Pops::MergeStrategy.strategy(dec(req['merge']))
      { 'ok' => { 's' => [s.class.name.split('::').last, enc(s.options)].to_json } }
    when 'sort'
      { 'ok' => enc(dec(req['a']).sort) }
    when 'key'
      k = Puppet::Pops::Lookup::LookupKey.new(req['key'])
      r = { 'root' => k.root_key, 'module' => k.module_name, 'segments' => (k.segments || []).map { |s| s.is_a?(Integer) ? { 'i' => s.to_s } : { 's' => s } } }
      if req.key?('v')
        found = false
        v = catch(:no_such_key) { x = k.dig(Inv.new, dec(req['v'])); found = true; x }
        r['dig'] = found ? enc(v) : nil
      end
      { 'ok' => r }
    when 'lookup'
      s = Puppet::Pops::MergeStrategy.strategy(dec(req['merge']))
      found = false
      v = catch(:no_such_key) { walk(s, req['tree']).tap { found = true } }
      { 'ok' => found ? enc(v) : { 'nf' => 1 } }
    end
  rescue Exception => e
    # Drop the source excerpt Ruby's error_highlight appends.
    { 'err' => e.message.split("\n\n").first }
  end
  STDOUT.puts(out.to_json)
  STDOUT.flush
end
