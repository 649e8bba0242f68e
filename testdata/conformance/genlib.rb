# Shared by the generators of expected.yaml files (testdata/conformance/gen-expected.rb and
# testdata/example/gen-expected.rb): run checks through real Puppet (../shared/puppet/lookup-case,
# puppet lookup --render-as json) and write them in the conformance corpus's format. Nothing in an
# expected.yaml is typed by hand.
#
# A check is {'node', 'key'} with optional 'merge' and 'error':
#   merge: absent (lookup_options decide), "first"/"unique"/"hash"/"deep", or a hash
#          {"strategy" => "deep", "knockout_prefix" => "--", ...}.
#   error: the check must fail and Puppet's message must contain it. A check without one must not
#          fail (a "did not find a value" answer is recorded as not_found).
require 'fileutils'
require 'json'
require 'open3'
require 'psych'

module GenExpected
  LOOKUP_CASE = ENV['LOOKUP_CASE'] || File.expand_path('../../../shared/puppet/lookup-case', __dir__)
  JOBS = Integer(ENV['JOBS'] || 2)

  module_function

  def merge_flags(merge)
    case merge
    when nil then []
    when String then ['--merge', merge]
    else
      flags = ['--merge', merge.fetch('strategy')]
      flags += ['--knock-out-prefix', merge['knockout_prefix']] if merge['knockout_prefix']
      flags << '--sort-merged-arrays' if merge['sort_merged_arrays']
      flags << '--merge-hash-arrays' if merge['merge_hash_arrays']
      flags
    end
  end

  # Puppet's stderr as one-line messages, colours stripped, scratch paths made relative to the case.
  def messages(stderr)
    lines = stderr.gsub(/\e\[[0-9;]*m/, '').lines.map(&:rstrip).reject(&:empty?)
    msgs = []
    lines.each do |l|
      if l =~ /\A(Warning|Error|Notice): / || msgs.empty?
        msgs << l
      else
        msgs[-1] += ' ' + l.strip
      end
    end
    msgs.map do |m|
      m.gsub(%r{/\S*?/code/environments/production/modules/}, 'modules/')
       .gsub(%r{/\S*?/code/environments/production/}, 'env/')
       .gsub(%r{/\S*?/conf/}, 'global/')
    end
  end

  def run(case_dir, check)
    node, key, merge, want_error = check.values_at('node', 'key', 'merge', 'error')
    cmd = [LOOKUP_CASE, case_dir, node, *merge_flags(merge), key]
    out, err, status = Open3.capture3(*cmd)
    msgs = messages(err)
    error = msgs.find { |m| m.start_with?('Error: ') }&.delete_prefix('Error: ')
    entry = { 'node' => node, 'key' => key }
    entry['merge'] = merge if merge
    comments = msgs.select { |m| m.start_with?('Warning: ') }.map { |m| "puppet #{m}" }
    if status.success?
      raise "#{node} #{key}: expected an error containing #{want_error.inspect}, got #{out}" if want_error
      entry['value'] = JSON.parse(out)
    elsif error == "Function lookup() did not find a value for the name '#{key}'" && !want_error
      entry['not_found'] = true
    elsif error && want_error && error.include?(want_error)
      comments.unshift("puppet error: #{error}")
      entry['error'] = true
      entry['message'] = want_error
    else
      raise "#{node} #{key}: puppet lookup failed (exit #{status.exitstatus}):\n#{err}"
    end
    [comments, entry]
  end

  # Psych nodes for a JSON value: strings double-quoted (keys too), other scalars plain.
  def ast(value)
    case value
    when Hash
      m = Psych::Nodes::Mapping.new
      value.each { |k, v| m.children << ast(k) << ast(v) }
      m
    when Array
      s = Psych::Nodes::Sequence.new
      value.each { |v| s.children << ast(v) }
      s
    when String
      Psych::Nodes::Scalar.new(value, nil, nil, false, true, Psych::Nodes::Scalar::DOUBLE_QUOTED)
    when nil
      Psych::Nodes::Scalar.new('null')
    else # Integer, Float, true, false
      Psych::Nodes::Scalar.new(value.to_s)
    end
  end

  def emit(entry)
    seq = Psych::Nodes::Sequence.new
    seq.children << ast(entry)
    doc = Psych::Nodes::Document.new([], [], true)
    doc.children << seq
    stream = Psych::Nodes::Stream.new
    stream.children << doc
    stream.yaml
  end

  # A case's eyaml keys (CASE/keys/*, made by `eyaml createkeys`) are installed where its hiera.yaml
  # names them for Puppet, which reads only absolute key paths: EYAML_KEYS_DIR.
  EYAML_KEYS_DIR = '/etc/puppetlabs/puppet/eyaml'

  def install_keys(case_dir)
    keys = Dir.glob(File.join(case_dir, 'keys', '*.pem'))
    return if keys.empty?

    FileUtils.mkdir_p(EYAML_KEYS_DIR)
    keys.each { |k| FileUtils.cp(k, EYAML_KEYS_DIR) }
  end

  # write runs every check against case_dir (JOBS at a time) and writes case_dir/expected.yaml.
  def write(case_dir, checks, generator)
    install_keys(case_dir)
    queue = Queue.new
    checks.each_with_index { |c, i| queue << [c, i] }
    queue.close
    results = Array.new(checks.size)
    failures = []
    Array.new(JOBS) do
      Thread.new do
        while (item = queue.pop)
          check, i = item
          begin
            results[i] = run(case_dir, check)
          rescue StandardError => e
            failures << e.message
          end
        end
      end
    end.each(&:join)
    abort(failures.join("\n")) unless failures.empty?

    version = `puppet --version`.strip
    out = +"# Generated by #{generator} running puppet lookup (Puppet #{version}) -- do not edit by hand.\n"
    results.each do |comments, entry|
      comments.each { |c| out << "# #{c}\n" }
      out << emit(entry)
    end
    File.write(File.join(case_dir, 'expected.yaml'), out)
    puts "wrote #{checks.size} checks to #{File.join(case_dir, 'expected.yaml')}"
  end
end
