# A lookup_key backend in the Puppet language (Puppet's docs' signature).
function mod::pp_backend(
  Variant[String, Numeric] $key,
  Hash                     $options,
  Puppet::LookupContext    $context,
) {
  case $key {
    'mod::pp': { "pp for ${trusted['certname']} (${facts['dc']})" }
    'mod::dug': { 'from pp' }
    default: { $context.not_found() }
  }
}
