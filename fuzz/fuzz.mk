# SPDX-License-Identifier: MIT
# Fuzzing the image parser (fuzz/) and the hardening tests (tests/hardening/).
#
#   make fuzz FUZZ_SECONDS=N   run the libFuzzer target N seconds (default 60)
#                              from the seeds: every synthetic image
#                              ($(BUILD)/images), the guest kernels' images
#                              (tests/qemu/images) and the host's vDSO
#   make fuzz-afl FUZZ_SECONDS=N   the same target built with afl-clang-fast, under AFL++
#   (fuzz/README.md: what the target does, and the long runs' figures)
#
# The libFuzzer target is built with clang whatever $(CC) is (gcc has no
# -fsanitize=fuzzer); it takes the parser alone: src/image.c, and
# src/image_own.c, the same file built for the host's ABI, which the target
# checks against it.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_image
FUZZ_SRCS    := fuzz/fuzz_image.c src/image.c src/image_own.c
FUZZ_FLAGS   := -std=gnu11 -g -O1 $(WARN) $(CPPFLAGS) -Ifuzz
DUMP_VDSO    := $(FUZZ_DIR)/dump-vdso

$(FUZZ_BIN): $(FUZZ_SRCS)
	@mkdir -p $(dir $@)
	$(call depend_all,$(FUZZ_CC) $(FUZZ_FLAGS),$(FUZZ_SRCS))
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(FUZZ_SRCS)

$(DUMP_VDSO): fuzz/dump-vdso.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS)

.PHONY: fuzz fuzz-afl
fuzz: $(FUZZ_BIN) $(DUMP_VDSO)
	fuzz/run-fuzz $(BUILD) $(FUZZ_SECONDS)

# AFL++: the same target, its own driver (afl-clang-fast links one in for
# LLVMFuzzerTestOneInput through -fsanitize=fuzzer).
FUZZ_AFL_BIN := $(FUZZ_DIR)/fuzz_image.afl
$(FUZZ_AFL_BIN): $(FUZZ_SRCS)
	@mkdir -p $(dir $@)
	$(call depend_all,$(FUZZ_CC) $(FUZZ_FLAGS),$(FUZZ_SRCS))
	AFL_USE_ASAN=1 AFL_USE_UBSAN=1 afl-clang-fast $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $(FUZZ_SRCS)

fuzz-afl: $(FUZZ_AFL_BIN) $(DUMP_VDSO)
	fuzz/run-afl $(BUILD) $(FUZZ_SECONDS)

-include $(wildcard $(FUZZ_DIR)/*.d)

-include tests/hardening/hardening.mk
