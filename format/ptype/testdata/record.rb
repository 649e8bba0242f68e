# Records the types Puppet 7.23's TypeCalculator infers for values, for
# package ptype's tests. Run from format/ptype (needs ruby 3.1 and the
# puppet package, apt-get install -y puppet):
#
#   ruby testdata/record.rb
#
# It writes testdata/infer.json: for each value, what Puppet printed for
#
#   infer      TypeCalculator#infer(v).to_s, or {"raise": message}
#   infer_set  TypeCalculator#infer_set(v).normalize.to_s
#   hash_type  for a hash whose infer_set is a Hash: that Hash without its
#              size, normalized (what TypeMismatchDescriber prints)
#   general    TypeCalculator#infer(v).generalize.to_s (what the `new`
#              functions print), or {"raise": message}
#
# Values are encoded as in format/ruby's testdata/record.rb, plus
# {"sym": "name"} for a Symbol and {"encoding": "name"} for an Encoding.
require 'puppet'
require 'json'

Puppet.initialize_settings([]) rescue nil
include Puppet::Pops::Types

def enc(v)
  case v
  when nil, true, false then v
  when Integer then { 'i' => v.to_s }
  when Float then { 'f' => [v].pack('G').unpack1('H*') }
  when String then { 's' => v }
  when Symbol then { 'sym' => v.to_s }
  when Encoding then { 'encoding' => v.name }
  when Array then { 'a' => v.map { |e| enc(e) } }
  when Hash then { 'h' => v.map { |k, e| [enc(k), enc(e)] } }
  else raise "cannot encode #{v.class}"
  end
end

VALUES = [
  nil, true, false, 42, -7, 1.5, -0.0, 1e15, Float::INFINITY, -Float::INFINITY, Float::NAN, 'x', "it's",
  [], {}, [1, 2], [3, 1, 2], %w[a b a], ['a', "it's", "x\ny"], [1, 2.5], [1.5, -1.0e-5], [1, 'a'], [true, false],
  [true, 1], [nil], [nil, 1], [[1], [2, 3]], [[], [1]], [{}, { 'a' => 1 }], [1, [1]], [{ 1 => 2 }, 'x'],
  [Float::INFINITY, 1.0], [-Float::INFINITY], [Float::NAN, 1.0], [1.0, Float::NAN],
  { 'a' => 1, 'b' => nil }, { '' => 1 }, { 1 => 'x', 2 => 'y' }, { 1 => 'x', 'a' => 1.5 },
  { true => nil, false => [] }, { nil => 1 }, { 1 => { 'a' => nil, 'b' => [nil, 1] } },
  { 1.0 => { 2 => [] } }, { 1 => Float::INFINITY }, { 1 => -Float::INFINITY, 2 => 0.5 },
  { 1 => 1, 2 => 2.0, 3 => 3, 5 => 5, 4 => 'a', 6 => 'b', 7 => nil }, { 1 => 1.5, 2 => 2.5, 3 => 1.5 },
  { 'a' => [1, 'b'], 'c' => { 'd' => true } }, [{ 'a' => 1 }, { 'a' => 'x' }], [{ 'a' => 1 }, { 2 => 'x' }],
  2**70, [2**70, 1], [-(2**70), 2**64], { 1 => 2**70, 2 => 3 },
  :sym, :default, :undef, [:a, :b], [:a, 1], [1, :default], [:undef, 1], { 'k' => :v }, { :k => 'v' },
  Encoding::UTF_8, [:a, Encoding::UTF_8], [Encoding::UTF_8, Encoding::BINARY],
  { [1] => 2 }, { [1] => 2, 'a' => 'b' }, { { 'a' => 1 } => [] },
  { 'ab' => 'x', 'abcd' => '', 'b' => 'yz' }, [{ 'a' => 'b' }], %w[é ab], ['', 'abc'], [[]], [{}], [[], {}],
  [{}, { 'a' => 1 }, {}], [[1], ['a']], [nil, nil], [1, nil], { 'a' => [] }, [true, 'x'], [[true], [false]],
]

calc = TypeCalculator.singleton
out = VALUES.map do |v|
  inferred = begin
    calc.infer(v).to_s
  rescue StandardError => e
    { 'raise' => e.message }
  end
  general = begin
    calc.infer(v).generalize.to_s
  rescue StandardError => e
    { 'raise' => e.message }
  end
  set = calc.infer_set(v)
  row = { 'value' => enc(v), 'infer' => inferred, 'general' => general, 'infer_set' => set.normalize.to_s }
  row['hash_type'] = PHashType.new(set.key_type, set.value_type).normalize.to_s if set.is_a?(PHashType) && !v.empty?
  row
end
File.write('testdata/infer.json', JSON.pretty_generate(out) + "\n")
