# SPDX-License-Identifier: MIT
# The hardening tests (tests/hardening/), included by fuzz/fuzz.mk.
#
# C tests built into $(BUILD)/tests/ (prove runs them with the others):
#   malformed.t   the malformed-image corpus, each behind a guard page
#   threads.t     64 threads race the first call of every function
#   parsers-agree.t  the public parser and the library's own build of it
#                 (src/image_own.c) agree on every ABI's both.so, the real
#                 kernels' images and this process's vDSO, and on this
#                 ABI's both.so changed byte by byte (fuzz/fuzz_image.c)
# and, built with -fsanitize=thread, $(BUILD)/tests/threads-tsan.t.
# The shell tests tests/hardening/*.t run the fuzzer (fuzz.t), the suite
# built with ASan+UBSan (sanitizers.t), the CLI under valgrind
# (valgrind.t), `vdsokit inspect` on the malformed corpus (inspect.t), the
# static analysers (static.t), and the C tests again as i686 programs
# (i386.t) and on nine other architectures under qemu-user (arches.t).

HARDENING_TESTS := $(BUILD)/tests/malformed.t $(BUILD)/tests/threads.t $(BUILD)/tests/parsers-agree.t
HARDENING_CFLAGS = $(CPPFLAGS) $(ALL_CFLAGS) -Wno-missing-prototypes

$(BUILD)/tests/malformed.t: tests/hardening/malformed.c tests/tap.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(HARDENING_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS)

$(BUILD)/tests/parsers-agree.t: tests/hardening/parsers_agree.c fuzz/fuzz_image.c tests/tap.h $(LIB_A)
	@mkdir -p $(dir $@)
	@$(call depend_all,$(CC) $(HARDENING_CFLAGS) -Ifuzz,$< fuzz/fuzz_image.c)
	$(CC) $(HARDENING_CFLAGS) -Ifuzz -o $@ $< fuzz/fuzz_image.c $(LIB_A) $(LDFLAGS)

$(BUILD)/tests/threads.t: tests/hardening/threads.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(HARDENING_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIB_A) -lpthread $(LDFLAGS)

# ThreadSanitizer needs the library instrumented too: built from its
# sources.  A compiler whose TSan programs do not build or run here
# (musl-gcc, cross compilers) gets a test that says so and skips, instead
# of a build failure.
$(BUILD)/tests/threads-tsan.t: tests/hardening/threads.c $(LIB_SRCS)
	@mkdir -p $(dir $@)
	@$(call depend_all,$(CC) $(HARDENING_CFLAGS),$< $(LIB_SRCS))
	@if echo 'int main(void) { return 0; }' | \
	    $(CC) -fsanitize=thread -x c -o $@.probe - >/dev/null 2>&1 && $@.probe >/dev/null 2>&1; then \
		rm -f $@.probe; \
		echo "$(CC) ... -fsanitize=thread -o $@"; \
		$(CC) $(HARDENING_CFLAGS) -O1 -fsanitize=thread -o $@ $< $(LIB_SRCS) -lpthread; \
	else \
		rm -f $@.probe; \
		printf '#!/bin/sh\necho "1..0 # SKIP $(CC) cannot build or run -fsanitize=thread programs"\n' >$@; \
		chmod +x $@; \
	fi

.PHONY: hardening-tests
hardening-tests: $(HARDENING_TESTS)

# Built before prove runs (`make check` runs `make tests`).  The sanitizer
# build of tests/hardening/sanitizers.t builds hardening-tests only;
# tests/hardening/fuzz.t builds the fuzz target (clang) itself.
tests: hardening-tests $(BUILD)/tests/threads-tsan.t
