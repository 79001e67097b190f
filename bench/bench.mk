# SPDX-License-Identifier: MIT
# `make bench`: the library's benchmark program (figures, not a test), and
# the fresh processes it times the first call in: one linked -static with
# the archive, one with the shared library (found through its RUNPATH),
# bound at load (-z now) so the dynamic linker's lazy binding of the
# library's slow path is not timed as the library's work.
BENCH_PROGS := $(BUILD)/bench/bench $(BUILD)/bench/first-call-static $(BUILD)/bench/first-call-shared
# tests/bench-program.t runs them.
CHECK_DEPS += $(BENCH_PROGS)

$(BUILD)/bench/bench: bench/bench.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LOOP_CFLAGS) $(DEPFLAGS) -Wno-missing-prototypes -o $@ $< $(LIB_A) $(LDFLAGS)

$(BUILD)/bench/first-call-static: bench/first_call.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -DFIRST_CALL_STATIC -Wno-missing-prototypes -static -o $@ $< $(LIB_A) $(LDFLAGS)

$(BUILD)/bench/first-call-shared: bench/first_call.c $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -o $@ $< -L$(BUILD)/lib -lvdsokit -Wl,-z,now \
	      -Wl,-rpath,'$$ORIGIN/../lib' $(filter-out -static,$(LDFLAGS))

-include $(wildcard $(BUILD)/bench/*.d)

# The i386 userland's table too, from a static i686 build, where the kernel
# runs i386 binaries (IA32 emulation); else a line saying why not.
BENCH_I386_CC := i686-linux-gnu-gcc-12

.PHONY: bench
bench: $(BENCH_PROGS)
	$(BUILD)/bench/bench
	@if ! command -v $(BENCH_I386_CC) >/dev/null 2>&1; then \
		echo "i386: not measured: no $(BENCH_I386_CC) (install gcc-12-i686-linux-gnu)"; \
		exit 0; \
	fi; \
	$(MAKE) --no-print-directory -s CC=$(BENCH_I386_CC) AR=i686-linux-gnu-ar BUILD=$(BUILD)/i686 \
		LDFLAGS=-static $(BUILD)/i686/bench/bench $(BUILD)/i686/bench/first-call-static \
		$(BUILD)/i686/bench/first-call-shared || exit 1; \
	rc=0; $(BUILD)/i686/bench/first-call-static >/dev/null 2>&1 || rc=$$?; \
	if [ $$rc -eq 126 ]; then \
		echo "i386: not measured: this kernel does not execute i386 binaries (no IA32 emulation)"; \
	else \
		echo; echo "i386 userland (static i686 build, this kernel's compat vDSO):"; \
		$(BUILD)/i686/bench/bench; \
	fi
