# Loads data files the way Puppet 7's yaml_data and json_data do, using
# Puppet's own code, and prints what a lookup would see, so that the Go
# loaders can be checked against it (see golden_test.go).
#
# Input on stdin: a JSON array of {"kind": "yaml"|"json", "file": file name for messages, "src64": base64}.
# Output on stdout: a JSON array, one result per input:
#   {"error": message}                          the file cannot be loaded
#   {"warning": message}                        not a hash: an empty hash and a warning
#   {"hash": [[key, value], ...]}               value is an encoded value, or
#                                               {"invalid": message} when looking the key up fails
# Encoded values: ["nil"], ["bool", b], ["int", "digits"], ["float", "hex of the IEEE bits"],
# ["str", s] (["bin", base64] when not valid UTF-8), ["arr", [...]], ["hash", [[k, v], ...]],
# ["sym", name], ["other", class name].
#
#   ruby testdata/puppet_load.rb < inputs.json > results.json
require 'puppet'
require 'json'
require 'base64'

Puppet.initialize_settings([]) rescue nil

include Puppet::Pops::Types
RICH = TypeFactory.rich_data
TC = TypeCalculator.singleton

def enc(v)
  case v
  when nil then ['nil']
  when true, false then ['bool', v]
  when Integer then ['int', v.to_s]
  when Float then ['float', [v].pack('G').unpack1('H*')]
  when String
    s = v.dup.force_encoding('UTF-8')
    s.valid_encoding? ? ['str', s] : ['bin', Base64.strict_encode64(v)]
  when Symbol
    # hieracc reads the two symbols that are LookupValues as strings
    (v == :default || v == :undef) ? ['str', v.to_s] : ['sym', v.to_s]
  when Array then ['arr', v.map { |e| enc(e) }]
  when Hash then ['hash', v.map { |k, e| [enc(k), enc(e)] }]
  else ['other', v.class.name]
  end
end

# Messages can quote invalid UTF-8 input; JSON cannot carry that.
def txt(s)
  u = s.dup.force_encoding('UTF-8')
  u.valid_encoding? ? u : 'b64:' + Base64.strict_encode64(s)
end

def load_yaml(name, src)
  data = Puppet::Util::Yaml.safe_load(src, [Symbol], name)
  return { 'warning' => "#{name}: file does not contain a valid yaml hash" } unless data.is_a?(Hash)
  entries(name, 'yaml_data', Puppet::Pops::Lookup::HieraConfig.symkeys_to_string(data))
rescue Puppet::Util::Yaml::YamlLoadError => ex
  { 'error' => "Unable to parse #{ex.message}" }
end

def load_json(name, src)
  data = begin
    Puppet::Util::Json.load(src)
  rescue Puppet::Util::Json::ParseError => ex
    return { 'error' => "Unable to parse (#{name}): #{ex.message}" }
  end
  TypeAsserter.assert_instance_of(nil, PHashType::DEFAULT, data) do
    "Value returned from data_hash function 'json_data', when using location '#{name}',"
  end
  entries(name, 'json_data', data)
rescue StandardError => ex
  { 'error' => ex.message }
end

def entries(name, fn, data)
  { 'hash' => data.map do |k, v|
    key = begin
      enc(k)
    rescue SystemStackError
      ['other', 'recursive']
    end
    val = begin
          if RICH.instance?(v)
            enc(v)
          else
            begin
              { 'invalid' => "Value for key '#{k}', in hash returned from data_hash function '#{fn}', when using location '#{name}', has wrong type, expects Puppet::LookupValue, got #{TC.infer(v)}" }
            rescue StandardError => ex
              # Puppet's type calculator itself fails on a few values.
              { 'invalid' => ex.message }
            end
          end
          rescue SystemStackError
            { 'invalid' => 'stack level too deep' }
          end
    [key, val]
  end }
end

out = JSON.parse($stdin.read).map do |c|
  src = Base64.decode64(c['src64']).force_encoding('UTF-8')
  r = begin
    c['kind'] == 'json' ? load_json(c['file'], src) : load_yaml(c['file'], src)
  rescue SystemStackError
    { 'error' => 'stack level too deep' }
  end
  r['error'] = txt(r['error']) if r['error']
  r
end
puts JSON.generate(out, max_nesting: false)
