# SPDX-License-Identifier: MIT
# vdsokit: libvdsokit (static and shared), the vdsokit CLI, tests and benches.
#
#   make            library + CLI for the host
#   make run        build and run `vdsokit report`
#   make test       the library's and the CLI's tests alone (no root, cross compiler or QEMU)
#   make check      install what the tests need (as root), build, run every test under prove
#   make bench      the library's benchmark program (figures, not a test)
#   make install PREFIX=/usr/local DESTDIR=
#   make deb        Debian packages (debian/) in $(BUILD)/deb, built from a copy of the tree
#   make readme-samples   the sample outputs in README.md and docs/, from real runs
#
# Cross builds: make CC=aarch64-linux-gnu-gcc-12 BUILD=build/aarch64 LDFLAGS=-static
# (every output goes under $(BUILD), so several targets can coexist).

CC       ?= cc
AR       ?= ar
BUILD    ?= build
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
DESTDIR  ?=

SOVERSION := 1
VERSION   := 0.5.0

OPT      ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wcast-align -Wundef
CFLAGS   ?=
ALL_CFLAGS = -std=gnu11 $(OPT) $(WARN) -fno-strict-aliasing $(CFLAGS)
# override: a CPPFLAGS given on the command line is kept and extended, not
# left to replace the project's include paths.
override CPPFLAGS += -Iinclude -Isrc -D_GNU_SOURCE
LDFLAGS  ?=
comma := ,
# The timed loops (bench/, cli/measure/), on x86: the assembler keeps each
# jump, and each compare with the conditional jump it fuses with, inside a
# 32-byte block.  Intel's microcode fix for the JCC erratum (Skylake and
# later) takes a block that a jump crosses or ends in out of the µop cache,
# so a loop whose compare-and-branch happens to land there is slower by
# where the linker put it, not by what it calls: +0.33-0.60 ns of a 2.3 ns
# clock_getres loop here, the library "over" the bare entry it equals
# (docs/performance.md).  clang takes it as a driver flag (its assembler
# refuses it through -Wa,), gcc only through -Wa,; with -flto the code is
# generated at the link, which gets the flag too.  And each loop starts a
# 64-byte line (-falign-loops=64): two loops of the same instructions, the
# library's inlined call and the bare entry read from memory, still differed
# by a cycle (+0.33 ns of a 3.3 ns MONOTONIC_COARSE) by where each began.
LOOP_CFLAGS := $(firstword $(foreach f,-mbranches-within-32B-boundaries -Wa$(comma)-mbranches-within-32B-boundaries,\
	$(shell $(CC) $(CFLAGS) -Werror $(f) -c -x c -o /dev/null /dev/null 2>/dev/null && echo $(f)))) \
	$(shell $(CC) $(CFLAGS) -Werror -falign-loops=64 -c -x c -o /dev/null /dev/null 2>/dev/null && echo -falign-loops=64)

LIB_SRCS := src/image.c src/image_own.c src/vdso.c src/choose.c src/time.c src/cpu.c src/tp.c src/random.c src/route.c
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB_PIC_OBJS := $(LIB_SRCS:%.c=$(BUILD)/pic/%.o)
LIB_A    := $(BUILD)/libvdsokit.a
# In a directory of its own: ld.so also searches platform subdirectories
# (x86_64/, …) of a RUNPATH, and $(BUILD)/x86_64 is a cross-build tree.
LIB_SO   := $(BUILD)/lib/libvdsokit.so.$(SOVERSION)

# Header dependencies are the compiler's: -MMD -MP writes, beside each object
# or program, a .d file naming the headers its compile read (and an empty
# rule per header, so a deleted header is no error); the .mk files include
# them.  An edited header rebuilds the objects that include it, and those only.
DEPFLAGS = -MMD -MP
# A program compiled from several sources in one command: -MMD would keep
# only the last source's list, so the lists of all come from a preprocessor
# pass into $@.d, with an empty rule per source too (as -MP gives each
# header), so a source moved or removed is no error either.
# $(call depend_all,COMPILER AND FLAGS,SOURCES)
depend_all = { $(1) -MM -MP -MT $@ $(2) && printf '%s:\n' $(2); } >$@.d

.PHONY: all lib run check bench install clean abi-baseline deb readme-samples
all: lib

lib: $(LIB_A) $(LIB_SO)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -fvisibility=hidden -c -o $@ $<

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

-include $(LIB_OBJS:.o=.d) $(LIB_PIC_OBJS:.o=.d)

$(LIB_A): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# Every user flag reaches this link too (OPT="-flto" needs the compiler's
# flags here).  Exports are the linker map's; -z now because the library runs inside
# other processes' first clock read and should not stop in the resolver.
# -z noseparate-code puts the constants in the code's segment: the loader
# runs the library's _init there, which maps the whole small segment, so
# the first call finds its constants mapped instead of taking a page fault
# for them (1 fault, ~1.5 us here); they stay read-only, and nothing
# writable is executable.  -z nodelete: dlclose() never unloads it, as
# libc is never unloaded, so getrandom's per-thread states and their exit
# hooks stay valid for threads that outlive a handle (src/random.c).
$(LIB_SO): $(LIB_PIC_OBJS) src/libvdsokit.map
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ -Wl,-soname,libvdsokit.so.$(SOVERSION) \
	      -Wl,--version-script=src/libvdsokit.map -Wl,-z,now -Wl,-z,relro -Wl,-z,noseparate-code -Wl,-z,nodelete \
	      $(LIB_PIC_OBJS) $(filter-out -static,$(LDFLAGS))
	ln -sf libvdsokit.so.$(SOVERSION) $(BUILD)/lib/libvdsokit.so

# Each area keeps its rules beside its sources.  tests.mk comes last: its
# `tests` target takes the CHECK_DEPS the others add.
-include cli/cli.mk
-include tests/images/images.mk
-include tests/qemu/qemu.mk
-include fuzz/fuzz.mk
-include bench/bench.mk
-include tests/tests.mk

# The .pc file is written at install time: it records this PREFIX.
install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)
	install -m 644 include/vdsokit.h $(DESTDIR)$(INCDIR)/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libvdsokit.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libvdsokit.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' vdsokit.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/vdsokit.pc
	@if [ -x $(BUILD)/vdsokit ]; then \
		install -d $(DESTDIR)$(BINDIR) && install -m 755 $(BUILD)/vdsokit $(DESTDIR)$(BINDIR)/; fi
	@for m in man/*.1 man/*.3; do [ -f "$$m" ] || continue; \
		s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s && install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done

# dpkg-buildpackage -us -uc -b in a copy of the tree (it writes to the
# source's parent directory and leaves debian/ build state): the packages
# land in $(BUILD)/deb, the tree stays clean.
deb:
	scripts/build-deb $(BUILD)/deb

# The sample outputs of README.md and docs/performance.md (between
# <!-- sample: COMMAND --> markers), written from real runs of this build;
# tests/readme.t runs the blocks around them.
readme-samples: all $(BUILD)/bench/bench
	VDSOKIT_BUILD=$(abspath $(BUILD)) scripts/readme-samples

# The ABI baseline tests/abi.t compares the shared library with (x86_64),
# and the list of the header's enumerators and numeric macros it compares
# the header with (abidiff sees no macros): regenerate them only with an
# intended ABI change, in the same commit.
abi-baseline: $(LIB_SO)
	abidw --no-corpus-path --no-comp-dir-path --headers-dir include \
	      --drop-private-types --out-file tests/abi/libvdsokit.so.$(SOVERSION).abi $(LIB_SO)
	scripts/abi-constants "$(CC)" include/vdsokit.h >tests/abi/constants.txt

clean:
	rm -rf build
