# bash completion for sbx. The binary is the source of truth: commands come from
# `sbx --list-cmds` and `sbx --list-plugins`, options from `sbx CMD --list-opts`;
# what is known here is only what each command takes as operands.

_sbx() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	local sbx=${COMP_WORDS[0]}
	local i cmd= cmd_index=0

	# the command is the first word after the global options
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]} cmd_index=$i; break ;;
		esac
	done

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '-v --verbose --json --no-color --version --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$sbx" --list-cmds 2>/dev/null) \
				$("$sbx" --list-plugins 2>/dev/null) help" -- "$cur"))
		fi
		return
	fi

	if [[ $cmd == help && $COMP_CWORD -eq $((cmd_index + 1)) ]]; then
		COMPREPLY=($(compgen -W "$("$sbx" --list-cmds 2>/dev/null) plugins" -- "$cur"))
		return
	fi

	# after `--` comes a command line of its own
	for ((i = cmd_index + 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			COMPREPLY=($(compgen -c -- "$cur"))
			return
		fi
	done

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("$sbx" "$cmd" --list-opts 2>/dev/null)" -- "$cur"))
		return
	fi
	# the value of an option that takes a file
	case ${COMP_WORDS[COMP_CWORD - 1]} in
	-i | --input | -o | --output | --benchmarks-file | --dump-object-to-disk | \
	--binary | --perfdata | --perfscript | --unsymbolized-profile | --debug-binary | \
	--debug-file)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--jit-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	--format)
		if [[ $cmd == profgen ]]; then
			COMPREPLY=($(compgen -W 'text extbinary' -- "$cur"))
			return
		fi
		;;
	esac
	# what each command takes as operands
	case $cmd in
	run)	# assembly snippets
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.s' -- "$cur")
			$(compgen -f -X '!*.S' -- "$cur") $(compgen -f -X '!*.asm' -- "$cur"))
		;;
	record)	# a command line
		COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
		;;
	report | script | jit-inject)	# no operands: the input is -i FILE
		COMPREPLY=()
		;;
	profgen)	# perf.data files
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.data' -- "$cur"))
		;;
	*)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
}

complete -o filenames -F _sbx sbx
