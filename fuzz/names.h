/* SPDX-License-Identifier: MIT */
/*
 * Every vDSO symbol name and version node the library looks up on any
 * architecture (ARCH_SYMBOLS of every src/arch header), plus names the synthetic images
 * export beside them, so that the fuzzer exercises every lookup the library
 * can make whatever the host.  A test-only list: when an architecture
 * header gains a name, add it here too (tests/hardening/names.t compares them).
 */
#ifndef FUZZ_NAMES_H
#define FUZZ_NAMES_H

static const char *const fuzz_symbol_names[] = {
	"__vdso_clock_gettime", "__vdso_clock_gettime64", "__vdso_clock_getres",
	"__vdso_clock_getres_time64", "__vdso_gettimeofday", "__vdso_time",
	"__vdso_getcpu", "__vdso_getrandom", "__vdso_get_thread_area",
	"__kernel_clock_gettime", "__kernel_clock_gettime64", "__kernel_clock_getres",
	"__kernel_clock_getres_time64", "__kernel_gettimeofday", "__kernel_time",
	"__kernel_getcpu", "__kernel_getrandom",
	/* exported beside them, never called: lookups that must miss cleanly */
	"__kernel_vsyscall", "__kernel_sigreturn", "__kernel_rt_sigreturn",
	"__vdso_rt_sigreturn", "__vdso_flush_icache", "__vdso_riscv_hwprobe",
	"__kernel_get_tbfreq", "__kernel_sync_dicache", "__vdso_clock_gettime_stick",
	"__vdso_gettimeofday_stick", "clock_gettime", "gettimeofday", "time", "getcpu",
	"",
};

static const char *const fuzz_version_names[] = {
	"LINUX_2.6", "LINUX_2.6.15", "LINUX_2.6.29", "LINUX_2.6.39", "LINUX_4.15",
	"LINUX_5.10", "LINUX_5.11", "LINUX_2.5", "LINUX_1.0", "",
};

#define FUZZ_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#endif
