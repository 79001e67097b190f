# SPDX-License-Identifier: MIT
# vdsokit command-line tool: every cli/*.c and cli/LAYER/*.c file, linked with the
# static library.  Layer headers are included by their path from cli/
# ("checks/reference.h").
# Included by the top Makefile (which defines CC, BUILD, CPPFLAGS, ALL_CFLAGS,
# LDFLAGS, LIB_A).

CLI_SRCS := $(wildcard cli/*.c cli/*/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
CLI_BIN  := $(BUILD)/vdsokit

# `make check` builds it through `all`.
.PHONY: cli
all: $(CLI_BIN)
cli: $(CLI_BIN)

# More specific than the library's $(BUILD)/%.o rule, so it wins: the CLI is
# not built with -fvisibility=hidden and sees cli/cli.h.
$(BUILD)/cli/%.o: cli/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icli $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

-include $(CLI_OBJS:.o=.d)

$(CLI_BIN): $(CLI_OBJS) $(LIB_A)
	$(CC) $(ALL_CFLAGS) $(LOOP_CFLAGS) -o $@ $(CLI_OBJS) $(LIB_A) $(LDFLAGS) -lm

# `make run`: what the README's first command shows.
run: $(CLI_BIN)
	$(CLI_BIN) report

# The stack probe counts from the stack pointer its thunks mark just before
# their call: a tail call would run the callee in the thunk's caller's frame,
# above the mark (sparc's `restore` pops the thunk's 176- or 96-byte frame),
# and under-count by that frame.  tests/lib/stack.c is built the same way.
STACK_PROBE_CFLAGS := -fno-optimize-sibling-calls
$(BUILD)/cli/measure/stack_use.o: ALL_CFLAGS += $(STACK_PROBE_CFLAGS)

# The timed loops: no branch placed on the JCC erratum's penalty (Makefile).
$(filter $(BUILD)/cli/measure/%,$(CLI_OBJS)): ALL_CFLAGS += $(LOOP_CFLAGS)

# The bash completion, beside the CLI it completes (make install).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
.PHONY: install-bash-completion
install: install-bash-completion
install-bash-completion:
	install -d $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 cli/vdsokit.bash $(DESTDIR)$(BASHCOMPDIR)/vdsokit
