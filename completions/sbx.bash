# bash completion for sbx. The binary is the source of truth: commands come from
# `sbx --list-cmds` and `sbx --list-plugins`, options from `sbx CMD --list-opts`,
# their values from `sbx CMD --list-values OPTION`; what is known here is only
# which options take files and what each command takes as operands.

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
	local prev=${COMP_WORDS[COMP_CWORD - 1]} values
	# the values an option takes, from the binary (a comma list: after the last comma)
	if [[ $prev == -* ]]; then
		values=$("$sbx" "$cmd" --list-values "$prev" 2>/dev/null)
		if [[ -n $values ]]; then
			local head=
			[[ $cur == *,* ]] && head=${cur%,*},
			COMPREPLY=($(compgen -P "$head" -W "$values" -- "${cur##*,}"))
			return
		fi
	fi
	# the value of an option that takes a file
	case $prev in
	-i | --input)	# perf.data files first: *.data, folders, and '-' for stdin
		COMPREPLY=($(compgen -f -X '!*.data' -- "$cur") $(compgen -d -- "$cur"))
		[[ ${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	-o | --output | --benchmarks-file | --dump-object-to-disk | \
	--binary | --perfdata | --perfscript | --unsymbolized-profile | --debug-binary | \
	--debug-file | --exegesis)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--jit-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	esac
	# what each command takes as operands
	case $cmd in
	run)	# assembly snippets, llvm-exegesis's YAML
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.s' -- "$cur")
			$(compgen -f -X '!*.S' -- "$cur") $(compgen -f -X '!*.asm' -- "$cur")
			$(compgen -f -X '!*.yaml' -- "$cur"))
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
