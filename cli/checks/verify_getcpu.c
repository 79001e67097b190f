/* SPDX-License-Identifier: MIT */
/*
 * verify: getcpu while the thread is moved across every CPU it may use.
 *
 * sched_setaffinity() to a single CPU returns only once the thread runs
 * there, so right after it the answer is known: the pinned CPU.  The vDSO
 * reads it from a per-CPU segment limit or register the kernel updates on
 * every migration; a kernel that forgets to update it on one CPU shows up
 * as a mismatch on that CPU only, hence every CPU, several times.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"
#include "checks/reference.h"

#define MAX_CPUS 1024

void verify_getcpu(struct check_list *out, const char *group, double seconds)
{
	struct check_result *r = check_add(out, group, "getcpu");
	static int cpus[MAX_CPUS];
	unsigned count = allowed_cpus(cpus, MAX_CPUS);
	cpu_set_t original;
	unsigned cpu, node;

	if (count == 0 || sched_getaffinity(0, sizeof(original), &original) != 0) {
		check_set(r, CHECK_SKIP, "sched_getaffinity failed: %s", errno_name(errno));
		return;
	}
	int sys_probe = reference_getcpu(&cpu, &node);
	if (syscall_refused(sys_probe)) {
		check_skip_refused(r, "getcpu", sys_probe);
		return;
	}
	if (sys_probe != 0) {
		check_set(r, CHECK_SKIP, "the getcpu syscall fails here: %s", errno_name(-sys_probe));
		return;
	}
	bool have_raw = vdsokit_getcpu_via(VDSOKIT_ROUTE_VDSO, &cpu, &node) != -ENOSYS;

	long long visits = 0, mismatches = 0, unpinnable = 0;
	long reference_error = 0;
	char first[160] = "";
	struct bench_deadline deadline;
	bench_deadline_start(&deadline, seconds);
	/* At least three passes over every CPU; more while the budget lasts. */
	for (unsigned pass = 0; pass < 3 || !bench_deadline_passed(&deadline); pass++) {
		if (pass >= 1000 || reference_error)
			break;
		progress_tick();
		for (unsigned i = 0; i < count; i++) {
			if (bench_pin_to_cpu(cpus[i]) != 0) {
				unpinnable++;
				continue;
			}
			unsigned sys_cpu = ~0u, sys_node = ~0u, raw_cpu = ~0u, raw_node = ~0u;
			unsigned lib_cpu = ~0u, lib_node = ~0u;
			int sys = reference_getcpu(&sys_cpu, &sys_node);
			if (syscall_refused(sys)) {
				/* The first probe answered, this one is refused: nothing to hold against. */
				reference_error = sys;
				break;
			}
			int raw = have_raw ? vdsokit_getcpu_via(VDSOKIT_ROUTE_VDSO, &raw_cpu, &raw_node) : 0;
			int lib = vdsokit_getcpu(&lib_cpu, &lib_node);
			if (!have_raw) {
				raw_cpu = sys_cpu;
				raw_node = sys_node;
			}
			visits++;
			bool ok = sys == 0 && raw == 0 && lib == 0 && sys_cpu == (unsigned)cpus[i] &&
				  raw_cpu == sys_cpu && lib_cpu == sys_cpu && raw_node == sys_node &&
				  lib_node == sys_node;
			if (!ok && mismatches++ == 0)
				snprintf(first, sizeof(first),
					 "pinned to CPU %d: syscall cpu %u node %u, vDSO cpu %u node %u "
					 "(rc %d), library cpu %u node %u (rc %d)", cpus[i], sys_cpu,
					 sys_node, raw_cpu, raw_node, raw, lib_cpu, lib_node, lib);
		}
	}
	sched_setaffinity(0, sizeof(original), &original);

	if (reference_error) {
		check_skip_reference(r, "getcpu", NULL, reference_error);
		return;
	}
	check_number(r, "cpus", "", count);
	check_number(r, "visits", "", visits);
	check_number(r, "mismatches", "", mismatches);
	if (mismatches)
		check_set(r, CHECK_FAIL, "%lld of %lld visits disagree; first: %s", mismatches,
			  visits, first);
	else if (visits == 0)
		check_set(r, CHECK_SKIP, "could not pin the thread to any of %u allowed CPUs", count);
	else
		check_set(r, CHECK_PASS, "%s equal to the syscall and the pinned CPU on %u CPU%s, "
			  "%lld visits%s", have_raw ? "vDSO and library" : "library (no vDSO symbol)",
			  count, count == 1 ? "" : "s", visits,
			  unpinnable ? " (some CPUs refused pinning)" : "");
}
