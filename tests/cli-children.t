#!/bin/sh
# SPDX-License-Identifier: MIT
# Every child vdsokit starts dies with it: verify's time-namespace helper and
# the child inside the namespace, killed with the tool by SIGTERM, must not
# run on (they would for up to a fifth of --time).
. "$(dirname "$0")/lib.sh"

# descendants PID: children and grandchildren.
descendants() {
	for c in $(ps -o pid= --ppid "$1"); do
		echo "$c"
		ps -o pid= --ppid "$c"
	done
}

if ! have ps; then
	echo "1..0 # SKIP ps(1) is not installed"
	exit 0
fi
if [ "$(id -u)" != 0 ] && ! unshare -U -T true 2>/dev/null; then
	echo "1..0 # SKIP no time namespace can be created here"
	exit 0
fi

"$vdsokit" verify --time 10 >"$tmp/out" 2>&1 &
pid=$!
kids=
i=0
# The namespace helper and its child: two generations below the tool.
while [ $i -lt 300 ] && kill -0 "$pid" 2>/dev/null; do
	kids=$(descendants "$pid")
	[ "$(echo "$kids" | wc -w)" -ge 2 ] && break
	sleep 0.05
	i=$((i + 1))
done
if [ "$(echo "$kids" | wc -w)" -lt 2 ]; then
	kill "$pid" 2>/dev/null
	wait "$pid"
	skip "verify started no time-namespace child while it ran"
else
	kill -TERM "$pid"
	wait "$pid"
	sleep 0.3
	left=
	for k in $kids; do
		[ -d "/proc/$k" ] && ! grep -q '^State:.*Z' "/proc/$k/status" 2>/dev/null && left="$left $k"
	done
	if [ -z "$left" ]; then
		ok "verify killed by SIGTERM takes its time-namespace children with it"
	else
		not_ok "verify killed by SIGTERM left its children running:$left"
		for k in $left; do kill -KILL "$k" 2>/dev/null; done
	fi
fi

done_testing
