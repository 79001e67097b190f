# `make bench`: the library's benchmark program (figures, not a test).
$(BUILD)/bench/bench: bench/bench.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $< $(LIB_A) $(LDFLAGS)

.PHONY: bench
bench: $(BUILD)/bench/bench
	$(BUILD)/bench/bench
