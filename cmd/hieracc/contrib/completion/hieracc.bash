# bash completion for hieracc. Made by 'hieracc completion bash'; do not edit.
# Load it with: source <(hieracc completion bash)
_hieracc() {
	local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W "compile check lookup diff verify inspect serve completion man version help" -- "$cur"))
		return
	fi
	local flags="" valued=""
	case "${COMP_WORDS[1]}" in
	compile)
		flags="--env --env-root --environment --environment-from-facts --fact-override --facts --format --full --global --jobs --keep-going --keys --modules --mount --no-share --out --pkcs7-private-key --pkcs7-public-key --progress --puppetdb --puppetdb-cacert --puppetdb-cert --puppetdb-key --puppetdb-query --ruby-backends --seal-missing --seal-to --shard --sign-cert --sign-key --source-revision --strict --verbose"
		valued=" --env --env-root --environment --fact-override --facts --format --global --jobs --keys --modules --mount --out --pkcs7-private-key --pkcs7-public-key --progress --puppetdb --puppetdb-cacert --puppetdb-cert --puppetdb-key --puppetdb-query --ruby-backends --seal-missing --seal-to --shard --sign-cert --sign-key --source-revision " ;;
	check)
		flags="--env --facts --format --global --modules --mount --pkcs7-private-key --pkcs7-public-key --strict --verbose"
		valued=" --env --facts --format --global --modules --mount --pkcs7-private-key --pkcs7-public-key " ;;
	lookup)
		flags="--bundle --default --env --explain --explain-options --global --knock-out-prefix --merge --merge-hash-arrays --modules --node --private-key --render-as --show-secrets --sort-merged-arrays --type"
		valued=" --bundle --default --env --global --knock-out-prefix --merge --modules --node --private-key --render-as --type " ;;
	diff)
		flags="--base-out --env --environment --fact-override --facts --format --git --global --ignore-key --ignore-order-changes --key --keys --modules --node --nodes --pkcs7-private-key --pkcs7-public-key --progress --ruby-backends --show-secrets"
		valued=" --base-out --env --environment --fact-override --facts --format --git --global --ignore-key --key --keys --modules --node --nodes --pkcs7-private-key --pkcs7-public-key --progress --ruby-backends " ;;
	verify)
		flags="--ca --key --signer"
		valued=" --ca --key --signer " ;;
	inspect)
		flags="--format --keys"
		valued=" --format " ;;
	serve)
		flags="--allow --cache --client-ca --crl --listen --poll --ready-file --tls-cert --tls-key"
		valued=" --allow --cache --client-ca --crl --listen --poll --ready-file --tls-cert --tls-key " ;;
	completion)
		COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
		return ;;
	man)
		flags=""
		valued="  " ;;
	version)
		flags=""
		valued="  " ;;
	help)
		COMPREPLY=($(compgen -W "compile check lookup diff verify inspect serve completion man version help" -- "$cur"))
		return ;;
	esac
	if [[ "$valued" == *" $prev "* ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	elif [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _hieracc hieracc
