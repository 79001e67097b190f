#!/bin/sh
# SPDX-License-Identifier: MIT
# Incremental builds rebuild what changed: the compiler lists each object's
# headers (-MMD -MP), so touching a header rebuilds every object whose source
# includes it, directly or through another header, and no other object.
# Works in a copy of the sources with a scratch BUILD, so neither the tree's
# timestamps nor its build are disturbed.  The expected sets come from the
# sources' #include lines, not from the compiler's lists under test.
# Not on tests/lib.sh: it needs no build of the tree.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
diag() { sed 's/^/#   /'; }
done_testing() { echo "1..$n"; [ "$failed" -eq 0 ]; }

src=$tmp/tree
mkdir -p "$src"
cp -R "$top/Makefile" "$top/src" "$top/include" "$top/cli" "$src/" || exit 1
cd "$src" || exit 1

# -O0: the test is about what gets rebuilt, not about the code.
build() {
	make -j2 BUILD=b OPT=-O0 lib cli >"$tmp/make.out" 2>&1
}

# The objects a make run compiled ("... -c -o b/cli/json.o cli/json.c"),
# as the sources' names, sorted.
compiled() {
	sed -n 's/.* -c -o b\/\(pic\/\)\{0,1\}\([^ ]*\)\.o .*/\2.c/p' "$tmp/make.out" | sort -u
}

# includers HEADER: the .c files under src/ and cli/ that include HEADER,
# directly or through files that do (headers, and src/image.c, which
# src/image_own.c builds again); matched by file name, which is unique
# among the tree's included files.
includers() {
	names=$(basename "$1")
	while :; do
		pattern=$(printf '%s\n' $names | sed 's/\./\\./g' | paste -sd'|')
		found=$(grep -rlE "#[[:space:]]*include[[:space:]]*[\"<]([^\">]*/)?($pattern)[\">]" \
			src cli include | sort -u)
		more=$(printf '%s\n' $names $(printf '%s\n' $found | xargs -r -n1 basename) |
			sort -u)
		[ "$more" = "$(printf '%s\n' $names | sort -u)" ] && break
		names=$more
	done
	printf '%s\n' $found | grep '\.c$' | sort -u
}

if build; then
	ok "scratch build of the library and the CLI"
else
	not_ok "scratch build of the library and the CLI"
	tail -20 "$tmp/make.out" | diag
	done_testing
	exit
fi

build
if [ -z "$(compiled)" ]; then
	ok "a second make compiles nothing"
else
	not_ok "a second make compiles: $(compiled | paste -sd' ')"
fi

# touched HEADER UNRELATED: HEADER touched, every includer rebuilt, nothing
# else, and UNRELATED (a source that does not include it) in particular not.
touched() {
	header=$1 unrelated=$2
	want=$(includers "$header")
	if [ -z "$want" ]; then
		not_ok "$header: no source includes it (has it moved?)"
		return
	fi
	if printf '%s\n' $want | grep -qxF "$unrelated"; then
		not_ok "$header: $unrelated includes it: pick another unrelated source"
		return
	fi
	sleep 1
	touch "$header"
	build
	got=$(compiled)
	missing=$(printf '%s\n' $want | grep -vxF -e "$got" -e '' | paste -sd' ')
	extra=$(printf '%s\n' $got | grep -vxF -e "$want" -e '' | paste -sd' ')
	if [ -z "$missing" ]; then
		ok "touching $header rebuilds all $(printf '%s\n' $want | wc -l) objects that include it"
	else
		not_ok "touching $header leaves stale objects: $missing"
	fi
	if [ -z "$extra" ]; then
		ok "touching $header rebuilds no object that does not include it"
	else
		not_ok "touching $header also rebuilds: $extra"
	fi
	if printf '%s\n' $got | grep -qxF "$unrelated"; then
		not_ok "touching $header rebuilds $unrelated, which does not include it"
	else
		ok "touching $header leaves $unrelated (which does not include it) untouched"
	fi
}

touched cli/checks/checks.h cli/output/json.c
touched include/vdsokit.h cli/measure/stack_probe.c
touched cli/host/host.h cli/output/json.c

done_testing
