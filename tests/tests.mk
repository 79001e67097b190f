# SPDX-License-Identifier: MIT
# The library's own tests: tests/lib/NAME.c -> $(BUILD)/tests/NAME.t (TAP).
# Other areas add programs to CHECK_DEPS (built before prove runs) and
# shell tests as tests/*.t, which prove finds on its own.

TEST_CFLAGS = $(CPPFLAGS) $(ALL_CFLAGS) -Wno-missing-prototypes
LIB_TEST_SRCS := $(wildcard tests/lib/*.c)
LIB_TESTS := $(LIB_TEST_SRCS:tests/lib/%.c=$(BUILD)/tests/%.t)
# The same calls test, told there is no vDSO: the syscall paths; and
# inside a time namespace with offsets, entered after initialisation.
LIB_TESTS += $(BUILD)/tests/calls-novdso.t $(BUILD)/tests/calls-timens.t

$(BUILD)/tests/%.t: tests/lib/%.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIB_A) -lpthread $(LDFLAGS)

$(BUILD)/tests/calls-novdso.t: tests/lib/calls.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(DEPFLAGS) -DTEST_NO_VDSO=1 -o $@ $< $(LIB_A) -lpthread $(LDFLAGS)

$(BUILD)/tests/calls-timens.t: tests/lib/calls.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(DEPFLAGS) -DTEST_IN_TIME_NAMESPACE=1 -o $@ $< $(LIB_A) -lpthread $(LDFLAGS)

# The painted-stack probe is the CLI's (cli/measure/stack_probe.c); the bounds
# file by its path in the tree, for a run from elsewhere.  -z now, as
# libvdsokit.so is linked: the libc functions the library calls are bound
# at load, so a first getrandom measures the library, not ld.so's lazy
# binding (2.6 KiB more here).  No sibling calls: see STACK_PROBE_CFLAGS.
# The bounds are also built in, as C string lines, for a run where the tree
# is not (the QEMU matrix's guests).
$(BUILD)/tests/stack-bounds.h: tests/stack-bounds.txt
	@mkdir -p $(dir $@)
	sed -e 's/[\\"]/\\&/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@

STACK_TEST_FLAGS = -Icli -I$(BUILD)/tests -DTEST_STACK_BOUNDS_EMBEDDED \
	-DTEST_STACK_BOUNDS='"$(abspath tests/stack-bounds.txt)"'
$(BUILD)/tests/stack.t: tests/lib/stack.c cli/measure/stack_probe.c cli/host/child.c $(LIB_A) $(BUILD)/tests/stack-bounds.h
	@mkdir -p $(dir $@)
	$(call depend_all,$(CC) $(TEST_CFLAGS) $(STACK_TEST_FLAGS),$< cli/measure/stack_probe.c cli/host/child.c)
	$(CC) $(TEST_CFLAGS) $(STACK_PROBE_CFLAGS) $(STACK_TEST_FLAGS) -o $@ \
	      $< cli/measure/stack_probe.c cli/host/child.c $(LIB_A) -lpthread -Wl,-z,now $(LDFLAGS)

# The same, linked statically: a static program's libc (its pthread_setspecific,
# a first getrandom's) is part of the measure.  Not in a sanitizer build
# (tests/hardening/sanitizers.t), whose runtimes cannot be linked -static.
LIB_TESTS += $(BUILD)/tests/stack-static.t
$(BUILD)/tests/stack-static.t: tests/lib/stack.c cli/measure/stack_probe.c cli/host/child.c $(LIB_A) $(BUILD)/tests/stack-bounds.h
	@mkdir -p $(dir $@)
	$(call depend_all,$(CC) $(TEST_CFLAGS) $(STACK_TEST_FLAGS),$< cli/measure/stack_probe.c cli/host/child.c)
ifneq ($(findstring -fsanitize=,$(ALL_CFLAGS) $(LDFLAGS)),)
	printf '#!/bin/sh\necho "1..0 # SKIP a sanitizer build links nothing -static"\n' >$@
	chmod +x $@
else
	$(CC) $(TEST_CFLAGS) $(STACK_PROBE_CFLAGS) $(STACK_TEST_FLAGS) -o $@ \
	      $< cli/measure/stack_probe.c cli/host/child.c $(LIB_A) -lpthread -static
endif

# The same, bound lazily (as a program linked without -z now is): the
# library's calls into the libc are bound at load whatever the program's
# link (LOADER_BOUND, src/internal.h), so the bounds hold here too.
LIB_TESTS += $(BUILD)/tests/stack-lazy.t
$(BUILD)/tests/stack-lazy.t: tests/lib/stack.c cli/measure/stack_probe.c cli/host/child.c $(LIB_A) $(BUILD)/tests/stack-bounds.h
	@mkdir -p $(dir $@)
	$(call depend_all,$(CC) $(TEST_CFLAGS) $(STACK_TEST_FLAGS),$< cli/measure/stack_probe.c cli/host/child.c)
	$(CC) $(TEST_CFLAGS) $(STACK_PROBE_CFLAGS) $(STACK_TEST_FLAGS) -o $@ \
	      $< cli/measure/stack_probe.c cli/host/child.c $(LIB_A) -lpthread -Wl,-z,lazy $(LDFLAGS)

# Counts the calls that reach the library's out-of-line time functions.
$(BUILD)/tests/time32-inline.t: TEST_CFLAGS += -Wl,--wrap=vdsokit_clock_gettime \
	-Wl,--wrap=vdsokit_clock_getres -Wl,--wrap=vdsokit_time

# Maps this architecture's synthetic image, by its path in this build.
$(BUILD)/tests/random-layout.t: TEST_CFLAGS += -DTEST_IMAGES='"$(abspath $(BUILD)/images)"'
$(BUILD)/tests/random-layout.t: | images

# dlopen()s the shared library by its path in this build.
$(BUILD)/tests/random-dlclose.t: TEST_CFLAGS += -DTEST_LIBVDSOKIT_SO='"$(abspath $(LIB_SO))"'

# Against the shared library, through its version-map exports only, and
# calling the out-of-line vdsokit_clock_gettime instead of the inline fast path.
$(BUILD)/tests/calls-shared.t: tests/lib/calls.c $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(DEPFLAGS) -DVDSOKIT_NO_INLINE -o $@ $< -L$(BUILD)/lib -l:libvdsokit.so.$(SOVERSION) \
	      -Wl,-rpath,$(abspath $(BUILD)/lib) -lpthread

# The same tests on the host's other userspaces: musl (static) and i386.
VARIANT_TESTS :=
ifneq ($(shell command -v musl-gcc 2>/dev/null),)
VARIANT_TESTS += $(BUILD)/tests/calls-musl.t
endif
# Every library test also runs as an i386 program (NAME-i386.t): a 32-bit
# userspace, and a vDSO without getrandom (the state-less paths).
I386_TESTS := $(patsubst $(BUILD)/tests/%.t,$(BUILD)/tests/%-i386.t,\
	$(filter-out $(BUILD)/tests/time32-inline.t,$(LIB_TESTS)))
ifneq ($(shell command -v i686-linux-gnu-gcc-12 2>/dev/null),)
VARIANT_TESTS += $(I386_TESTS) $(BUILD)/tests/time32-inline-i386.t
endif

$(BUILD)/tests/calls-musl.t: FORCE
	$(MAKE) --no-print-directory lib-tests CC=musl-gcc BUILD=$(BUILD)/musl LDFLAGS=-static
	@mkdir -p $(dir $@)
	cp $(BUILD)/musl/tests/calls.t $@

# time32-inline: the inlined calls on the time32only image (32-bit time only).
# One recipe makes them all (&:), so a parallel make builds the i686 tree once.
$(I386_TESTS) $(BUILD)/tests/time32-inline-i386.t &: FORCE
	$(MAKE) --no-print-directory lib-tests CC=i686-linux-gnu-gcc-12 AR=i686-linux-gnu-ar \
		BUILD=$(BUILD)/i686 LDFLAGS=-static
	@mkdir -p $(BUILD)/tests
	@$(BUILD)/i686/tests/calls.t >/dev/null 2>&1; runs=$$?; \
	for t in $(I386_TESTS:$(BUILD)/tests/%-i386.t=%); do \
		if [ $$runs -ne 126 ]; then \
			cp $(BUILD)/i686/tests/$$t.t $(BUILD)/tests/$$t-i386.t; \
		else \
			printf '#!/bin/sh\necho "1..0 # SKIP this kernel does not execute i386 binaries (no IA32 emulation)"\n' \
				> $(BUILD)/tests/$$t-i386.t; chmod +x $(BUILD)/tests/$$t-i386.t; \
		fi; \
	done
	@t=$(abspath $(BUILD)/i686/tests/time32-inline.t); run=; \
	$$t >/dev/null 2>&1; if [ $$? -eq 126 ]; then run=qemu-i386-static; fi; \
	if [ -n "$$run" ] && ! command -v $$run >/dev/null 2>&1; then \
		printf '#!/bin/sh\necho "1..0 # SKIP this kernel does not execute i386 binaries, and no qemu-i386-static"\n'; \
	else \
		printf '#!/bin/sh\n# the i386 build on the time32only image (qemu-user maps no vDSO of its own)\nVDSOKIT_IMAGES=%s exec %s %s\n' \
			$(abspath $(BUILD)/images) "$$run" $$t; \
	fi >$(BUILD)/tests/time32-inline-i386.t; chmod +x $(BUILD)/tests/time32-inline-i386.t

# Runs a command under a seccomp filter that refuses named syscalls
# (tests/cli-sandbox.t): the sandboxes vdsokit must report on.
SANDBOX_RUN := $(BUILD)/tests/tools/sandbox-run
$(SANDBOX_RUN): tests/tools/sandbox-run.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -o $@ $< $(LDFLAGS)
CHECK_DEPS += $(SANDBOX_RUN)

# The i386 CLI and sandbox-run (tests/cli-time32.t): under a filter that
# refuses the 32-bit time syscalls with ENOSYS, the CLI meets a kernel
# without CONFIG_COMPAT_32BIT_TIME as a 32-bit program does.  After the
# i386 library tests: one make at a time in the i686 tree.
ifneq ($(shell command -v i686-linux-gnu-gcc-12 2>/dev/null),)
CHECK_DEPS += $(BUILD)/i686/cli-time32.stamp
$(BUILD)/i686/cli-time32.stamp: $(firstword $(I386_TESTS)) FORCE
	$(MAKE) --no-print-directory CC=i686-linux-gnu-gcc-12 AR=i686-linux-gnu-ar \
		BUILD=$(BUILD)/i686 LDFLAGS=-static $(BUILD)/i686/vdsokit $(BUILD)/i686/tests/tools/sandbox-run
	@touch $@
endif

# The standalone reproducers of docs/kernel-findings.md (tests/findings/):
# plain C, no libvdsokit, so that a kernel developer can build one alone;
# tests/cli-findings.t runs them.  They print what they see and exit 0.
FINDINGS := $(patsubst tests/findings/%.c,$(BUILD)/tests/findings/%,$(wildcard tests/findings/*.c))
$(BUILD)/tests/findings/%: tests/findings/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -o $@ $< $(LDFLAGS)
CHECK_DEPS += $(FINDINGS)

# What each program's compile read (DEPFLAGS, depend_all).
-include $(wildcard $(BUILD)/tests/*.d $(BUILD)/tests/*/*.d)

.PHONY: lib-tests tests FORCE
FORCE:
lib-tests: $(LIB_TESTS)

tests: lib-tests $(BUILD)/tests/calls-shared.t $(VARIANT_TESTS) $(CHECK_DEPS)

# `make test`: the quick loop while working on the library or the CLI.  The
# library's tests on this host and the CLI's, under prove -j2: nothing that
# needs the network, a cross compiler, QEMU or a sanitizer, and none of the
# build, packaging and release checks (ABI baseline, installed man pages,
# header dependencies, build flags).  What needs root skips, saying so.
# Images only for this architecture (images-host), and the tests that build
# the CLI for another (cross_vdsokit) skip that part.  `make check` runs all.
# One file: prove -v tests/cli-doctor.t (after make test, or make tests).
QUICK_LIB_TESTS := $(filter-out $(BUILD)/tests/random-layout.t,$(LIB_TESTS)) \
	$(BUILD)/tests/calls-shared.t $(HARDENING_TESTS)
QUICK_SHELL_TESTS := $(filter-out tests/cli-build-flags.t,$(wildcard tests/cli-*.t)) tests/completion.t
.PHONY: test
test: all images-host $(QUICK_LIB_TESTS) $(SANDBOX_RUN) $(FINDINGS)
	VDSOKIT_NO_CROSS=1 prove -j2 $(PROVE_FLAGS) $(QUICK_LIB_TESTS) $(QUICK_SHELL_TESTS)

# `make check`: what the tests need (apt, as root), everything built, then prove.
# The QEMU matrix (most of a cold run: building kernels, then booting guests)
# runs beside the other tests, which run one after another: on 2 cores a
# kernel build leaves about a tenth of them idle and most other tests use
# one, so side by side they take less than the sum of their times.  Each
# phase's time is printed at the end by tests/phase-times (each kernel
# build's too, and each test's by prove --timer), so that a change sees what
# it costs the 60-minute cold run.
MATRIX_TEST := $(BUILD)/tests/qemu-matrix.t
check:
	@t0=$$(date +%s); ./scripts/install-deps || exit 1; \
	t1=$$(date +%s); $(MAKE) --no-print-directory all || exit 1; \
	t2=$$(date +%s); $(MAKE) --no-print-directory tests || exit 1; \
	t3=$$(date +%s); rm -rf $(BUILD)/tap; \
	others=$$(ls $(BUILD)/tests/*.t $(wildcard tests/*.t tests/hardening/*.t) | grep -vxF $(MATRIX_TEST)); \
	VDSOKIT_TAP_DIR=$(BUILD)/tap prove --timer -e tests/keep-tap -j2 \
		--rules='par=$(MATRIX_TEST)' --rules='seq=**' $(PROVE_FLAGS) \
		$$(ls $(MATRIX_TEST) 2>/dev/null) $$others; status=$$?; \
	t4=$$(date +%s); \
	tests/phase-times $(BUILD)/tap $$t0 $$t1 $$t2 $$t3 $$t4; \
	tests/failure-digest --second-boots $(BUILD)/tap; \
	[ $$status -eq 0 ] || tests/failure-digest $(BUILD)/tap; \
	exit $$status
