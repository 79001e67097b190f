#!/bin/sh
# SPDX-License-Identifier: MIT
# The tool's children under a sandbox.  A child killed in its own setup
# (prctl killed by a seccomp filter) is reported as such, naming the
# syscall, never as a refused reference or a crash of the code it was to
# run; abi's sleeping child ends with the tool whatever the sandbox
# refuses (kill, prctl); the image probe's deadline holds without alarm().
. "$(dirname "$0")/lib.sh"

sandbox=$build/tests/tools/sandbox-run
if [ ! -x "$sandbox" ]; then
	echo "1..0 # SKIP $sandbox not built (make tests)"
	exit 0
fi
sb() { "$sandbox" "$@" >"$tmp/out" 2>"$tmp/err"; status=$?; }
# runtime_calls SYSCALL: true when a sanitizer's runtime makes SYSCALL itself
# (ASan's: clock_gettime, and prctl at exit), so a filter killing it kills
# the sanitized tool whatever the tool does.
runtime_calls() {
	case $1 in clock_gettime | prctl) sanitized any ;; *) false ;; esac
}

# --- prctl killed: the children die in their setup, and say so ------------
setup_killed="died in its setup, at prctl(PR_SET_PDEATHSIG): killed by SIGSYS"
sb --kill prctl -- "$vdsokit" abi
if grep -q "$setup_killed" "$tmp/err" && ! grep -q "reference, is refused" "$tmp/out"; then
	ok "kill:prctl: abi says its children died in their setup at prctl, blames no reference"
else
	not_ok "kill:prctl: abi says its children died in their setup at prctl, blames no reference"
	{ tail -3 "$tmp/out"; tail -2 "$tmp/err"; } | diag
fi
sb --kill prctl -- "$vdsokit" verify --time 0.1
for name in "getrandom across fork" "time namespace  "; do
	if grep "^  skip  $name" "$tmp/out" | grep -q "$setup_killed"; then
		ok "kill:prctl: verify's '$name' skip names the killed prctl"
	else
		not_ok "kill:prctl: verify's '$name' skip names the killed prctl"
		grep "$name" "$tmp/out" | diag
	fi
done

arch=$("$vdsokit" --version | sed -n 's/.*, \([a-z0-9_]*\))$/\1/p')
image=$build/images/$arch/callable.so
if [ ! -f "$image" ]; then
	skip "no synthetic image for $arch at $image (make images)"
else
	sb --kill prctl -- "$vdsokit" info --image "$image"
	if runtime_calls prctl; then
		skip "kill:prctl: info --image: a sanitizer's runtime makes prctl itself"
	elif [ "$status" = 2 ] && grep -q "cannot check that its code runs: .*$setup_killed" "$tmp/err"; then
		ok "kill:prctl: info --image says the probe died in its setup, not in the image's code"
	else
		not_ok "kill:prctl: info --image says the probe died in its setup (exit $status)"
		diag <"$tmp/err"
	fi
fi

# --- image code that traps or loops (x86_64: the bytes are x86's) ---------
# patch FILE BYTES: FILE with clock_gettime's first bytes replaced (octal escapes).
patch_image() {
	off=$(readelf -sW "$image" | awk '$8 == "__vdso_clock_gettime@@LINUX_2.6" { print $2; exit }')
	cp "$image" "$1"
	# shellcheck disable=SC2059
	printf "$2" | dd of="$1" bs=1 seek=$((0x$off)) conv=notrunc 2>/dev/null
}
if [ "$arch" != x86_64 ] || [ ! -f "$image" ] || ! have readelf; then
	skip "image code patching: x86_64 images and readelf only"
	skip "image code patching: x86_64 images and readelf only"
else
	patch_image "$tmp/ud2.so" '\017\013'
	run info --image "$tmp/ud2.so"
	if grep -q "ended in SIGILL: its code holds an instruction" "$tmp/err" &&
	   ! grep -q "reads memory" "$tmp/err"; then
		ok "info --image: a SIGILL in the image's code is explained as an instruction, not memory"
	else
		not_ok "info --image: a SIGILL in the image's code is explained as an instruction"
		diag <"$tmp/err"
	fi
	patch_image "$tmp/loop.so" '\353\376'
	timeout 30 "$sandbox" --errno EPERM alarm,setitimer -- "$vdsokit" info --image "$tmp/loop.so" \
		>"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" = 2 ] && grep -q "its clock_gettime did not return within" "$tmp/err"; then
		ok "EPERM:alarm: info --image of a looping image ends at the probe's deadline"
	else
		not_ok "EPERM:alarm: info --image of a looping image exit $status (124: it hung)"
		diag <"$tmp/err"
	fi
fi

# --- abi's sleeper ends with the tool, whatever is refused ----------------
# alive PID: the process runs (a zombie has ended).
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
sb --errno EPERM kill,prctl -- "$vdsokit" abi
pid=$(sed -n 's/.*sleeping child \([0-9]*\).*/\1/p' "$tmp/err")
sleep 0.3
if [ -z "$pid" ]; then
	not_ok "EPERM:kill,prctl: abi says it could not end its sleeping child"
	diag <"$tmp/err"
elif alive "$pid"; then
	not_ok "EPERM:kill,prctl: abi's sleeping child $pid runs on after the tool"
	kill -KILL "$pid"
else
	ok "EPERM:kill,prctl: abi's sleeping child ends with the tool"
fi

# The tool SIGKILLed while prctl is refused: stopped as soon as it has a
# child (its sleeper comes first), then killed.
"$sandbox" --errno EPERM prctl -- "$vdsokit" abi >/dev/null 2>&1 &
tool=$!
kids= i=0
children=/proc/$tool/task/$tool/children
while [ $i -lt 100000 ] && [ -z "$kids" ] && [ -e "$children" ]; do
	read -r kids <"$children" 2>/dev/null
	i=$((i + 1))
done
kill -STOP "$tool" 2>/dev/null
read -r kids <"$children" 2>/dev/null
kill -KILL "$tool" 2>/dev/null
wait "$tool" 2>/dev/null
sleep 0.3
left=
for k in $kids; do
	alive "$k" && left="$left $k"
done
if [ -z "$kids" ]; then
	skip "EPERM:prctl: no child of abi seen (no $children?)"
elif [ -n "$left" ]; then
	not_ok "EPERM:prctl: abi's children run on after SIGKILL of the tool:$left"
	for k in $left; do kill -KILL "$k"; done
else
	ok "EPERM:prctl: abi's children (its sleeper) end when the tool is SIGKILLed"
fi

# --- a filter that kills a reference syscall: a stated skip, no death ------
# (getrandom is left out: glibc's malloc asks it for its heap key, so its
# kill ends the tool before main can do anything, as it would any program.)
killed_skip="syscall, the reference, is refused here: the call was killed by SIGSYS"
for cmd in doctor report "verify --time 0.1" "bench --time 0.1" "metrics --time 0.1"; do
	# shellcheck disable=SC2086
	if runtime_calls clock_gettime; then
		skip "kill:clock_gettime: $cmd: a sanitizer's runtime makes clock_gettime itself"
		continue
	fi
	sb --kill clock_gettime -- "$vdsokit" $cmd
	case $status in
	0|1) ok "kill:clock_gettime: $cmd exits $status, not by SIGSYS" ;;
	*) not_ok "kill:clock_gettime: $cmd exit $status (159: killed by SIGSYS)"; tail -2 "$tmp/err" | diag ;;
	esac
done
for sys in clock_gettime clock_getres gettimeofday getcpu; do
	if runtime_calls "$sys"; then
		skip "kill:$sys: verify: a sanitizer's runtime makes $sys itself"
		continue
	fi
	sb --kill "$sys" -- "$vdsokit" verify --time 0.1
	if [ "$status" -gt 1 ]; then
		not_ok "kill:$sys: verify exit $status (159: killed by SIGSYS)"
	elif grep -q "skip .*the $sys $killed_skip" "$tmp/out"; then
		ok "kill:$sys: verify skips the $sys comparisons: killed by SIGSYS"
	else
		not_ok "kill:$sys: verify skips the $sys comparisons: killed by SIGSYS"
		grep skip "$tmp/out" | head -3 | diag
	fi
done
# time: no reference of verify's (it reads CLOCK_REALTIME_COARSE), bench's syscall path.
for sys in clock_gettime time; do
	if runtime_calls "$sys"; then
		skip "kill:$sys: bench: a sanitizer's runtime makes $sys itself"
		continue
	fi
	sb --kill "$sys" -- "$vdsokit" bench --time 0.1 --functions "$sys" --json
	json_check "kill:$sys: bench --json: the syscall path refused as SIGSYS, never timed" "$tmp/out" \
		'any(.results[]; any(.paths[]; .error == "SIGSYS" and .median_ns == null))'
done

done_testing
