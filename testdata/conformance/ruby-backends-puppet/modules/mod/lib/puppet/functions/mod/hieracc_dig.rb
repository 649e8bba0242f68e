# A data_dig backend (the shape of Puppet's docs, "data_dig backends"): digs
# the segments into the YAML file at options['path'].
require 'yaml'
Puppet::Functions.create_function(:'mod::hieracc_dig') do
  dispatch :hieracc_dig do
    param 'Array[Variant[String, Numeric]]', :segments
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end

  def hieracc_dig(segments, options, context)
    data = context.cached_value(:tree) || context.cache(:tree, YAML.safe_load(File.read(options['path'])))
    segments.each do |s|
      context.not_found unless data.is_a?(Hash) && data.include?(s)
      data = data[s]
    end
    data
  end
end
