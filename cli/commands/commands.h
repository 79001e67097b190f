/* SPDX-License-Identifier: MIT */
/*
 * What one command offers another: the commands' own code that a second
 * command reuses (metrics runs doctor's checks).  Only commands/ includes
 * it; the layers below never call up into a command.
 */
#ifndef VDSOKIT_CLI_COMMANDS_H
#define VDSOKIT_CLI_COMMANDS_H

struct doctor_report;
struct host_facts;

/*
 * Every check doctor makes (commands/doctor.c, with their table), on the
 * facts in host (init_result: what vdsokit_init() said); the
 * clocksource's vDSO read is measured against the syscall for measure_s
 * seconds (at least 31 batches each).  An --image file given to
 * use_image_file() is examined in place of the process's vDSO.
 */
void doctor_examine(struct doctor_report *r, const struct host_facts *host, int init_result,
		    double measure_s);

#endif /* VDSOKIT_CLI_COMMANDS_H */
