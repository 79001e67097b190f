# SPDX-License-Identifier: MIT
# bash completion for vdsokit(1): its commands, each command's options, and
# the values of the options that take a known set (files, function and
# clock names, compare's paths).  Installed by `make install` as
# $(PREFIX)/share/bash-completion/completions/vdsokit.  tests/completion.t
# keeps the lists equal to each command's --help and option parser.

_vdsokit_commands="report info inspect dump bench compare verify abi doctor metrics"

# The options of COMMAND, as its --help lists them.
_vdsokit_options()
{
	case $1 in
	report) echo "--json --no-bench -h --help" ;;
	inspect) echo "--json -h --help" ;;
	info | doctor) echo "--json --image -h --help" ;;
	dump) echo "-o --output -h --help" ;;
	bench) echo "--json --csv --svg --time --functions --clocks --cpu --detail --latency -h --help" ;;
	compare) echo "--markdown --json --path --svg -h --help" ;;
	verify) echo "--time --threads --json --image -h --help" ;;
	abi) echo "--json --image -h --help" ;;
	metrics) echo "-o --output --time -h --help" ;;
	esac
}

# Files (and directories to reach them) for CUR: bash-completion's
# _filedir where it is loaded, else compgen.
_vdsokit_files()
{
	if declare -F _filedir >/dev/null; then
		_filedir
	else
		local IFS=$'\n'
		COMPREPLY=($(compgen -f -- "$1"))
	fi
}

# One more item of a comma-separated LIST value: what is before the last
# comma stays, the item after it is completed from WORDS.
_vdsokit_list()
{
	local cur=$1 words=$2 prefix="" item
	case $cur in
	*,*) prefix=${cur%,*}, ;;
	esac
	item=${cur##*,}
	COMPREPLY=($(compgen -P "$prefix" -W "$words" -- "$item"))
	# The user may add a comma and another item: no space after it.
	compopt -o nospace 2>/dev/null
}

_vdsokit()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	local prev=""
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# The command: the first word after the program that is not an option.
	local i command=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			command=${COMP_WORDS[i]}
			break
			;;
		esac
	done

	if [ -z "$command" ]; then
		case $cur in
		-*) COMPREPLY=($(compgen -W "-h --help -V --version" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "$_vdsokit_commands" -- "$cur")) ;;
		esac
		return 0
	fi

	# The value of the option before the cursor.
	case $prev in
	-o | --output | --svg | --image)
		_vdsokit_files "$cur"
		return 0
		;;
	--functions)
		_vdsokit_list "$cur" "clock_gettime clock_getres gettimeofday time getcpu thread_pointer tp getrandom"
		return 0
		;;
	--clocks)
		_vdsokit_list "$cur" "REALTIME MONOTONIC PROCESS_CPUTIME_ID THREAD_CPUTIME_ID MONOTONIC_RAW REALTIME_COARSE MONOTONIC_COARSE BOOTTIME REALTIME_ALARM BOOTTIME_ALARM SGI_CYCLE TAI"
		return 0
		;;
	--path)
		COMPREPLY=($(compgen -W "vdsokit vdso libc syscall" -- "$cur"))
		return 0
		;;
	--time | --threads | --cpu)
		# A number: nothing to offer.
		return 0
		;;
	esac

	case $cur in
	-*)
		COMPREPLY=($(compgen -W "$(_vdsokit_options "$command")" -- "$cur"))
		;;
	*)
		# inspect's FILE, compare's BEFORE.json and AFTER.json.
		case $command in
		inspect | compare) _vdsokit_files "$cur" ;;
		esac
		;;
	esac
	return 0
}
complete -F _vdsokit vdsokit
