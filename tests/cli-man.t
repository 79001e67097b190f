#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual pages cannot drift from the code:
#  - libvdsokit(3)'s synopsis has exactly the public prototypes of
#    include/vdsokit.h (names, types and parameters);
#  - vdsokit(1) describes (a .TP entry in the command's section, or in
#    OPTIONS for those every command takes) each option that the
#    command's parser accepts (its longopts in cli/commands/CMD.c) and its --help
#    lists, and describes no option the parser does not have.
. "$(dirname "$0")/lib.sh"
header=$top/include/vdsokit.h
man3=$top/man/libvdsokit.3
man1=$top/man/vdsokit.1

# One prototype a line, spaces normalised: "int f(int a, char *b);".
normalise() {
	sed -E 's/[[:space:]]+/ /g; s/ *([,;)]) */\1/g; s/,/, /g; s/\( /(/g; s/\* /*/g; s/^ //; s/ $//'
}

# Public declarations of the header: not static inline, not vdsokit__*.
awk '
	/^#/ { next }
	collecting { buf = buf " " $0; if ($0 ~ /;/) { print buf; collecting = 0 }; next }
	/^[a-z][a-z0-9_ *]*[ *]vdsokit_[a-z0-9_]+\(/ && !/^static/ && !/vdsokit__/ {
		buf = $0; if ($0 ~ /;/) print buf; else collecting = 1
	}' "$header" | normalise | sort >"$tmp/header.protos"

# The synopsis: .B/.BI lines between SYNOPSIS and DESCRIPTION, quotes out.
awk '
	/^\.SH SYNOPSIS/ { on = 1; next }
	/^\.SH/ { on = 0 }
	on && /^\.BI? / && !/#include/ {
		line = $0; sub(/^\.BI? /, "", line); gsub(/"/, "", line)
		buf = buf " " line
		if (line ~ /;[[:space:]]*$/) { print buf; buf = "" }
	}' "$man3" | normalise | sort >"$tmp/man.protos"

count=$(wc -l <"$tmp/header.protos")
if [ "$count" -ge 30 ] && diff -u "$tmp/header.protos" "$tmp/man.protos" >"$tmp/diff"; then
	ok "libvdsokit(3) synopsis: the $count public prototypes of vdsokit.h"
else
	not_ok "libvdsokit(3) synopsis: the public prototypes of vdsokit.h ($count; - header only, + man only)"
	head -40 "$tmp/diff" | diag
fi
# vdsokit(1): "command option" for each option described in a .TP entry.
awk '
	/^\.SH / { section = $2; cmd = (section == "OPTIONS") ? "*" : ""; prev = ""; next }
	prev == ".TP" && section == "COMMANDS" && /^\.B [a-z]+( |$)/ { cmd = $2; prev = $0; next }
	prev == ".TP" && cmd != "" && /^\.B[IR]? +\\-/ {
		line = $0
		while (match(line, /\\-(\\-)?[A-Za-z]([A-Za-z]|\\-)*/)) {
			opt = substr(line, RSTART, RLENGTH); gsub(/\\/, "", opt)
			print cmd, opt
			line = substr(line, RSTART + RLENGTH)
		}
	}
	{ prev = $0 }' "$man1" | sort -u >"$tmp/man.options"

commands=$("$vdsokit" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]+ / { print $1 } on && /^$/ { on = 0 }')
[ -n "$commands" ] || commands="report info inspect dump bench compare verify abi doctor"
for cmd in $commands; do
	# A command's source read from a path that moved would read as no option.
	[ -f "$top/cli/commands/$cmd.c" ] || not_ok "$cmd: no cli/commands/$cmd.c to read its options from"
	# The parser's long options, and the short ones its --help lists.
	sed -n 's/.*{ "\([a-z-]*\)", [a-z_]*argument,.*/--\1/p' "$top/cli/commands/$cmd.c" >"$tmp/opts"
	"$vdsokit" "$cmd" --help | grep -Eo '^  +(-[A-Za-z], )?--?[A-Za-z][A-Za-z-]*' |
		grep -Eo -- '--?[A-Za-z][A-Za-z-]*' >>"$tmp/opts"
	sort -u "$tmp/opts" -o "$tmp/opts"
	if [ ! -s "$tmp/opts" ]; then
		not_ok "vdsokit(1) $cmd: no options found in cli/$cmd.c or --help"
		continue
	fi
	missing=""
	while read -r opt; do
		grep -qxF -e "$cmd $opt" -e "* $opt" "$tmp/man.options" || missing="$missing $opt"
	done <"$tmp/opts"
	stale=$(awk -v c="$cmd" '$1 == c { print $2 }' "$tmp/man.options" | while read -r opt; do
		grep -qxF -- "$opt" "$tmp/opts" || printf ' %s' "$opt"; done)
	if [ -z "$missing" ] && [ -z "$stale" ]; then
		ok "vdsokit(1) $cmd: every option described ($(tr '\n' ' ' <"$tmp/opts"))"
	else
		not_ok "vdsokit(1) $cmd: not described:${missing:- none}; described but not parsed:${stale:- none}"
	fi
done
check "vdsokit(1): --version and -V described" sh -c \
	"grep -qx '\\* --version' '$tmp/man.options' && grep -qx '\\* -V' '$tmp/man.options'"
done_testing
