# The hardening tests (tests/hardening/), included by fuzz/fuzz.mk.
#
# C tests built into $(BUILD)/tests/ (prove runs them with the others):
#   malformed.t   the malformed-image corpus, each behind a guard page
#   threads.t     64 threads race the first call of every function
# and, built with -fsanitize=thread, $(BUILD)/tests/threads-tsan.t.
# The shell tests tests/hardening/*.t run the fuzzer, the sanitizer build
# of the whole suite, valgrind on the CLI and the static analysers.

HARDENING_TESTS := $(BUILD)/tests/malformed.t $(BUILD)/tests/threads.t
HARDENING_CFLAGS = $(CPPFLAGS) $(ALL_CFLAGS) -Wno-missing-prototypes

$(BUILD)/tests/malformed.t: tests/hardening/malformed.c tests/tap.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(HARDENING_CFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS)

$(BUILD)/tests/threads.t: tests/hardening/threads.c tests/tap.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(HARDENING_CFLAGS) -o $@ $< $(LIB_A) -lpthread $(LDFLAGS)

# ThreadSanitizer needs the library instrumented too: built from its sources.
$(BUILD)/tests/threads-tsan.t: tests/hardening/threads.c tests/tap.h $(LIB_SRCS) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HARDENING_CFLAGS) -O1 -fsanitize=thread -o $@ $< $(LIB_SRCS) -lpthread

.PHONY: hardening-tests
hardening-tests: $(HARDENING_TESTS)

# Built before prove runs (`make check` runs `make tests`).  The sanitizer
# builds of tests/hardening/sanitizers.t build hardening-tests only.
tests: hardening-tests $(BUILD)/tests/threads-tsan.t $(DUMP_VDSO)
ifneq ($(shell command -v $(FUZZ_CC) 2>/dev/null),)
tests: $(FUZZ_BIN)
endif
