# A data_hash backend (the shape of Puppet's docs, "data_hash backends"): reads
# key=value lines from the file at options['path']; a value that looks like an
# integer is one. It also returns the level's interpolated option, an
# interpolation for Hiera to resolve, a Sensitive, and, for a file holding
# "!broken", something that is not a hash.
Puppet::Functions.create_function(:hieracc_kv) do
  dispatch :hieracc_kv do
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end

  def hieracc_kv(options, context)
    text = File.read(options['path'])
    return 'not a hash' if text.include?('!broken')
    data = {}
    text.each_line do |line|
      k, v = line.strip.split('=', 2)
      next if k.nil? || v.nil?
      data[k] = v =~ /\A-?\d+\z/ ? Integer(v) : v
    end
    data['kv::site'] = options['site']
    data['kv::greeting'] = 'hello %{trusted.certname}'
    data['kv::password'] = Puppet::Pops::Types::PSensitiveType::Sensitive.new('s3cret')
    data['kv::list'] = ['kv', 2, 1.5, nil, true]
    data
  end
end
