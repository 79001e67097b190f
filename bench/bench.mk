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
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $< $(LIB_A) $(LDFLAGS)

$(BUILD)/bench/first-call-static: bench/first_call.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -static -o $@ $< $(LIB_A) $(LDFLAGS)

$(BUILD)/bench/first-call-shared: bench/first_call.c $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -L$(BUILD)/lib -lvdsokit -Wl,-z,now \
	      -Wl,-rpath,'$$ORIGIN/../lib' $(filter-out -static,$(LDFLAGS))

.PHONY: bench
bench: $(BENCH_PROGS)
	$(BUILD)/bench/bench
