# Records what Puppet 7.23 makes of lookup_options convert_to settings, for
# convert_test.go: for each setting and value, what LookupAdapter#convert_result
# does, new(Type, value, args...) called in a compiler's scope, or its error.
# Run from format/hiera (needs ruby and the puppet package, apt-get install -y
# puppet):
#
#   ruby testdata/convert_record.rb
#
# It writes testdata/convert.json, a row a line: {"to": [type, args...],
# "value": v, "result": v} or {"error": message} or {"unsupported": class}
# for a result that is not data (a Timestamp, a Sensitive). Values are encoded
# as in format/ptype's testdata/record.rb.
require 'puppet'
require 'json'
require 'tmpdir'

def enc(v)
  case v
  when nil, true, false then v
  when Integer then { 'i' => v.to_s }
  when Float then { 'f' => [v].pack('G').unpack1('H*') }
  when String then { 's' => v }
  when Array then { 'a' => v.map { |e| enc(e) } }
  when Hash then { 'h' => v.map { |k, e| [enc(k), enc(e)] } }
  else raise TypeError, v.class.name
  end
end

SETTINGS = [
  'Integer', ['Integer', 16], ['Integer', 8], ['Integer', 2], ['Integer', 10], ['Integer', 10, true],
  ['Integer', 16, false], ['Integer', 'default'], ['Integer', 3], ['Integer', true], 'Integer[0, 10]',
  'Float', ['Float', true], ['Float', false], 'Float[0.0, 1.0]', 'Numeric', ['Numeric', true],
  'Boolean', ['Boolean', true], 'String', 'String[1, 3]', 'Array', ['Array', true], ['Array', false], ['Array', 2],
  'Array[Integer]', 'Array[String, 2]', 'Tuple[Integer, Integer]', 'Hash', ['Hash', 'tree'], 'Hash[String, Integer]',
  'Struct[{a => Integer}]', 'Optional[Integer]', 'Optional[String]', 'NotUndef[Integer]', 'Variant[Integer, String]',
  'Enum[a, b]', 'Pattern[/a/]', 'Data', 'Scalar', 'ScalarData', 'Any', 'Undef', 'Intger', 'Timestamp', 'Timespan',
  'Sensitive', 'Integer[', 'integer', ''
].freeze

# Settings whose outcome hardly depends on the value: a few values each.
FEW = ['Timestamp', 'Timespan', 'Sensitive', 'Integer[', 'integer', ''].freeze

VALUES = [
  nil, true, false, 0, 1, -3, 42, 2.5, -2.7, 1.0, 1e20, -0.0, Float::INFINITY, -Float::INFINITY, Float::NAN,
  '', 'x', 'a', '42', ' 42', '42 ', '+5', '- 5', "-\t5", '0x1F', '0X1f', '-0x10', '017', '08', '0b101', '0B11',
  '0o17', '1_000', '1e3', '1E3', '1.5', '.5', '5.', '1.5e-3', '-1.5', '0x1.8p1', '0b1', '10', 'true', 'yes', 'Y',
  'no', 'off', 'TRUE', 'N', 'Inf', 'Infinity', 'NaN', '12abc', "\n12", 'é', 'abcd', 'abc',
  [], [1], [1, 2], [3], %w[a b], [[1, 2], [3, 4]], [['a', 1]], [[['a'], 1]], [1, 'a', [true, nil]], [1.5, 1e20],
  [{ 'a' => 1 }], [nil], [[]], [-Float::INFINITY], ["it's"],
  {}, { 'a' => 1 }, { 'a' => 'x', 'bb' => 'yy' }, { 'from' => '12' }, { 'from' => '12', 'radix' => 16 },
  { 'from' => 'x' }, { 'from' => -12, 'abs' => true }, { 'from' => '12', 'radix' => 'x' }, { 'from' => '1', 'abs' => 'yes' },
  { 'from' => '1', 'radix' => 8.5 }, { 'from' => '1', 'radix' => 7 }, { 1 => 2, 3 => 4, 5 => 6, 7 => 8 },
  { 'a' => 1, 'b' => 2, 'c' => 3, 'd' => 4 }, { '' => 1 }, { 'from' => '1', '' => 2 }, { 'x' => 1 }, { 1 => 2 }, { 'a' => [1, 2.5] },
].freeze

dir = Dir.mktmpdir
Puppet.initialize_settings(['--confdir', dir, '--vardir', dir, '--codedir', dir])
env = Puppet::Node::Environment.create(:production, [])
compiler = Puppet::Parser::Compiler.new(Puppet::Node.new('x', environment: env))
rows = []
Puppet.override(current_environment: env, loaders: compiler.loaders) do
  scope = compiler.topscope
  SETTINGS.each do |setting|
    (FEW.include?(setting) ? VALUES.first(4) + ['x', '42', [1], { 'a' => 1 }] : VALUES).each do |value|
      # LookupAdapter#convert_result, with its messages.
      to = setting.is_a?(Array) ? setting.dup : [setting]
      row = { 'to' => to.dup, 'value' => enc(value) }
      begin
        begin
          to[0] = Puppet::Pops::Types::TypeParser.singleton.parse(to[0])
        rescue StandardError => e
          raise Puppet::DataBinding::LookupError,
                "Invalid data type in lookup_options for key 'k' could not parse '#{setting.is_a?(Array) ? setting[0] : setting}', error: '#{e.message}"
        end
        begin
          result = scope.call_function('new', [to[0], value, *to[1..-1]])
        rescue StandardError => e
          raise Puppet::DataBinding::LookupError, "The convert_to lookup_option for key 'k' raised error: #{e.message}"
        end
        begin
          row['result'] = enc(result)
        rescue TypeError => e
          row['unsupported'] = e.message
        end
      rescue Puppet::DataBinding::LookupError => e
        row['error'] = e.message
      end
      rows << row
    end
  end
end
File.write('testdata/convert.json', "[\n" + rows.map { |r| JSON.generate(r) }.join(",\n") + "\n]\n")
