#!/bin/sh
# SPDX-License-Identifier: MIT
# The bash completion (cli/vdsokit.bash), sourced in bash and asked to
# complete words as bash would (COMP_WORDS, COMP_CWORD, then _vdsokit):
#  - commands, options, and the values of options with a known set;
#  - in sync: its commands are `vdsokit --help`'s, each command's options
#    are the ones its --help lists and its parser takes (cli/commands/CMD.c), and
#    the function, clock and path names it offers are accepted;
#  - `make install` installs it where bash-completion looks.
. "$(dirname "$0")/lib.sh"
completion=$top/cli/vdsokit.bash

if ! have bash; then
	echo "1..0 # SKIP bash not installed"
	exit 0
fi

# complete WORD...: the completions of the last WORD, one a line, sorted.
complete_words() {
	bash -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_vdsokit || exit 1
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' bash "$completion" "$@" |
		sort
}

# expect_completion DESCRIPTION "WANT LINES" WORD...
expect_completion() {
	what=$1
	want=$2
	shift 2
	got=$(complete_words "$@" 2>"$tmp/complete.err")
	if [ "$got" = "$want" ]; then
		ok "$what"
	else
		not_ok "$what"
		{ echo "want:"; echo "$want"; echo "got:"; echo "$got"; cat "$tmp/complete.err"; } | diag
	fi
}

if [ -f "$completion" ] && bash -n "$completion" 2>"$tmp/syntax"; then
	ok "cli/vdsokit.bash parses in bash"
else
	not_ok "cli/vdsokit.bash missing or not bash"
	[ ! -f "$tmp/syntax" ] || diag <"$tmp/syntax"
fi

expect_completion "vdsokit b<TAB> -> bench" "bench" vdsokit b
expect_completion "vdsokit bench --fu<TAB> -> --functions" "--functions" vdsokit bench --fu
expect_completion "vdsokit -<TAB> -> the program's own options" \
	"$(printf '%s\n' --help --version -V -h | sort)" vdsokit -
expect_completion "vdsokit compare --path s<TAB> -> syscall" "syscall" vdsokit compare --path s
expect_completion "vdsokit bench --functions clock_gettime,ge<TAB> -> the next item" \
	"$(printf 'clock_gettime,%s\n' getcpu getrandom gettimeofday | sort)" \
	vdsokit bench --functions clock_gettime,ge
expect_completion "vdsokit bench --time <TAB> -> nothing (a number)" "" vdsokit bench --time ""

# Files, from the directory the shell is in.
mkdir -p "$tmp/files/sub"
: >"$tmp/files/amd64.so"
: >"$tmp/files/before.json"
got=$(cd "$tmp/files" && complete_words vdsokit verify --image "")
if [ "$got" = "$(printf '%s\n' amd64.so before.json sub | sort)" ]; then
	ok "vdsokit verify --image <TAB> -> the files here"
else
	not_ok "vdsokit verify --image <TAB> -> the files here"
	echo "$got" | diag
fi
got=$(cd "$tmp/files" && complete_words vdsokit inspect am)
check_files() { [ "$got" = "amd64.so" ]; }
if check_files; then ok "vdsokit inspect am<TAB> -> amd64.so"; else not_ok "vdsokit inspect am<TAB> -> amd64.so (got: $got)"; fi

# In sync with the program: its commands ...
commands=$("$vdsokit" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]+ / { print $1 } on && /^$/ { on = 0 }' | sort)
expect_completion "vdsokit <TAB> -> the commands of vdsokit --help ($(echo $commands))" "$commands" vdsokit ""
[ -n "$commands" ] || commands="report info inspect dump bench compare verify abi doctor"

# ... each command's options: its --help's, and its parser's long options
# (as tests/cli-man.t reads them).
for cmd in $commands; do
	[ -f "$top/cli/commands/$cmd.c" ] || not_ok "$cmd: no cli/commands/$cmd.c to read its options from"
	{
		sed -n 's/.*{ "\([a-z-]*\)", [a-z_]*argument,.*/--\1/p' "$top/cli/commands/$cmd.c"
		"$vdsokit" "$cmd" --help | grep -Eo '^  +(-[A-Za-z], )?--?[A-Za-z][A-Za-z-]*' |
			grep -Eo -- '--?[A-Za-z][A-Za-z-]*'
	} | sort -u >"$tmp/opts"
	expect_completion "vdsokit $cmd -<TAB> -> its options ($(tr '\n' ' ' <"$tmp/opts"))" \
		"$(cat "$tmp/opts")" vdsokit "$cmd" -
done

# ... and the values it offers are ones the parsers take: every function
# and clock in one bench command line that stops at a usage error of its
# own (an extra argument) after parsing them, and every compare path.
functions=$(complete_words vdsokit bench --functions "" | paste -sd, -)
clocks=$(complete_words vdsokit bench --clocks "" | paste -sd, -)
"$vdsokit" bench --functions "$functions" --clocks "$clocks" extra-argument >"$tmp/out" 2>"$tmp/err"
if [ -n "$functions" ] && [ -n "$clocks" ] && grep -q "unexpected argument 'extra-argument'" "$tmp/err"; then
	ok "bench takes every function and clock the completion offers"
else
	not_ok "bench refuses a function or clock the completion offers ($functions; $clocks)"
	diag <"$tmp/err"
fi
bad_paths=""
for path in $(complete_words vdsokit compare --path ""); do
	"$vdsokit" compare --path "$path" "$tmp/none.json" >/dev/null 2>"$tmp/err"
	grep -q -- "--path: '$path' is not one of" "$tmp/err" && bad_paths="$bad_paths $path"
done
if [ -z "$bad_paths" ]; then
	ok "compare takes every --path the completion offers"
else
	not_ok "compare refuses --path:$bad_paths"
fi

dest=$tmp/dest
if make -s -C "$top" install DESTDIR="$dest" >"$tmp/install.log" 2>&1 &&
	cmp -s "$completion" "$dest/usr/local/share/bash-completion/completions/vdsokit"; then
	ok "make install puts it in \$(PREFIX)/share/bash-completion/completions/vdsokit"
else
	not_ok "make install does not install it in \$(PREFIX)/share/bash-completion/completions/vdsokit"
	tail -5 "$tmp/install.log" | diag
fi
done_testing
