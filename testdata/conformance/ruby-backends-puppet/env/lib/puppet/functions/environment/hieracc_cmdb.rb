# A lookup_key backend (the shape of Puppet's docs, "lookup_key backends"): a
# CMDB keyed by the uri's host part; keys it does not hold are context.not_found.
# It returns lookup_options too, and raises for one key.
Puppet::Functions.create_function(:'environment::hieracc_cmdb') do
  dispatch :hieracc_cmdb do
    param 'Variant[String, Numeric]', :key
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end

  def hieracc_cmdb(key, options, context)
    site = URI(options['uri']).host
    case key
    when 'lookup_options'
      { 'cmdb::tags' => { 'merge' => 'unique' } }
    when 'cmdb::owner'
      "team-#{site}"
    when 'cmdb::tags'
      [site, 'cmdb']
    when 'cmdb::node'
      context.interpolate('%{trusted.certname} in %{facts.dc}')
    when 'cmdb::only_asked'
      'asked because --keys names it'
    when 'cmdb::boom'
      raise Puppet::Error, "CMDB refused key #{key}"
    else
      context.not_found
    end
  end
end
