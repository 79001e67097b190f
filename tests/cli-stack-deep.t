#!/bin/sh
# SPDX-License-Identifier: MIT
# doctor's vdso-stack-deep warning (cli/checks/doctor_stack.c), which no
# kernel here triggers: run on the synthetic "stackdeep" image
# (tests/images/fake.c, a test aid, x86_64 only) through --image, whose
# clock_gettime probes 4 KiB + 56 below the stack pointer with an `or $0`
# that changes nothing, as the -fstack-check kernels of golang/go#20427
# did, and whose gettimeofday writes 2 KiB + 8 down.  What is tested is
# doctor's threshold and wording, and that info --image measures the same.
. "$(dirname "$0")/lib.sh"

if ! have jq; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi
arch=$("$vdsokit" --version | sed -n 's/.*, \([a-z0-9_]*\))$/\1/p')
image=$build/images/$arch/stackdeep.so
if [ ! -f "$image" ]; then
	echo "1..0 # SKIP no stackdeep image for $arch at $image (x86_64 only; make images)"
	exit 0
fi

# --- doctor --json --image ---------------------------------------------
run doctor --json --image "$image"
cp "$tmp/out" "$tmp/doctor.json"
if [ "$status" -le 1 ] && jq -e . "$tmp/doctor.json" >/dev/null 2>&1; then
	ok "doctor --json --image runs (exit $status)"
else
	not_ok "doctor --json --image runs (exit $status)"
	head -5 "$tmp/err" | diag
fi
# json_check takes no jq arguments: the file's name comes through the environment.
export STACKDEEP_IMAGE="$image"
json_check "doctor says it examined the file, not the kernel's vDSO" "$tmp/doctor.json" \
	'env.STACKDEEP_IMAGE as $f | .vdso.image_file == $f and
	any(.findings[]; .id == "vdso-image" and (.title | contains("test aid")) and (.title | contains($f)))'
json_check "vdso-stack-deep: a warning, naming stack probes and golang/go#20427" "$tmp/doctor.json" \
	'any(.findings[]; .id == "vdso-stack-deep" and .severity == "warning" and
		(.title | contains("more than 1024 bytes")) and
		(.action | contains("golang/go#20427")) and (.action | contains("-fstack-check")))'
# The evidence's figure per function: "clock_gettime: at most N bytes ...".
evidence_bytes() {
	jq -r --arg fn "$1" '.findings[] | select(.id == "vdso-stack-deep") | .evidence[] |
		select(startswith($fn + ": ")) | capture("^[a-z_]+: (at most )?(?<n>[0-9]+) bytes").n' \
		"$tmp/doctor.json" 2>/dev/null | head -n 1
}
doctor_cgt=$(evidence_bytes clock_gettime)
doctor_gtod=$(evidence_bytes gettimeofday)
if [ -n "$doctor_cgt" ] && [ "$doctor_cgt" -gt 1024 ]; then
	ok "evidence: clock_gettime's probe, $doctor_cgt bytes > 1024"
else
	not_ok "evidence: clock_gettime's probe > 1024 bytes (got '${doctor_cgt}')"
	jq -c '.findings[] | select(.id | startswith("vdso-stack"))' "$tmp/doctor.json" | diag
fi
json_check "the probe wrote nothing there: seen by residency, named as a stack probe's mark" \
	"$tmp/doctor.json" '.findings[] | select(.id == "vdso-stack-deep") |
	any(.evidence[]; startswith("clock_gettime: at most ") and contains("a stack probe"))'
if [ -n "$doctor_gtod" ] && [ "$doctor_gtod" -gt 1024 ]; then
	ok "evidence: gettimeofday's frame, $doctor_gtod bytes > 1024"
else
	not_ok "evidence: gettimeofday's frame > 1024 bytes (got '${doctor_gtod}')"
fi
json_check "entries within 1 KiB are not evidence of the warning" "$tmp/doctor.json" \
	'.findings[] | select(.id == "vdso-stack-deep") | all(.evidence[];
		startswith("clock_gettime: ") or startswith("gettimeofday: "))'

# --- info --json --image: the same figures ------------------------------
run info --json --image "$image"
expect_status "info --json --image" 0
cp "$tmp/out" "$tmp/info.json"
json_check "info says it shows the file" "$tmp/info.json" '.image_file == env.STACKDEEP_IMAGE'
info_cgt=$(jq '.functions[] | select(.function == "clock_gettime") | .stack.deepest_bytes' "$tmp/info.json")
info_gtod=$(jq '.functions[] | select(.function == "gettimeofday") | .stack.deepest_bytes' "$tmp/info.json")
if [ "$info_cgt" = "$doctor_cgt" ] &&
	jq -e '.functions[] | select(.function == "clock_gettime") | .stack.page_granular and .stack.through == "bare entry"' \
		"$tmp/info.json" >/dev/null; then
	ok "info: clock_gettime $info_cgt bytes, page-granular, as doctor said"
else
	not_ok "info's clock_gettime figure is doctor's (info '$info_cgt', doctor '$doctor_cgt')"
	jq -c '.functions[0]' "$tmp/info.json" | diag
fi
# Page-granular: the bottom of the page the touch at 0x1038 + 8 fell in.
if [ -n "$info_cgt" ] && [ "$info_cgt" -ge 4160 ] && [ "$info_cgt" -lt $((4160 + 4096)) ]; then
	ok "the probe at 4160 bytes is within the page the figure bounds"
else
	not_ok "the probe at 4160 bytes within [4160, 8256) (got '$info_cgt')"
fi
# Exact: the return address and the 0x808-byte frame.
if [ "$info_gtod" = 2064 ] && [ "$info_gtod" = "$doctor_gtod" ]; then
	ok "info: gettimeofday 2064 bytes, exact, as doctor said"
else
	not_ok "gettimeofday: 2064 bytes in info and doctor (info '$info_gtod', doctor '$doctor_gtod')"
fi
run info --image "$image"
if [ "$status" -eq 0 ] && grep -q "^image file: .*test aid" "$tmp/out" &&
	grep -Eq '^  clock_gettime .*<= [0-9]+ B' "$tmp/out"; then
	ok "info's text names the file and shows the page-granular figure"
else
	not_ok "info --image text (exit $status)"
	head -8 "$tmp/out" | diag
fi

# --- bad input -----------------------------------------------------------
run doctor --image /nonexistent/vdso.so
expect_error "doctor --image of a missing file" 2 "/nonexistent/vdso.so"
run info --image /etc/hostname
expect_error "info --image of a file that is no vDSO" 2 "/etc/hostname"
run doctor --image
expect_error "doctor --image without a file" 2 "--image"

done_testing
