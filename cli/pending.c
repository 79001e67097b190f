/* SPDX-License-Identifier: MIT */
/*
 * Subcommands whose implementation has not landed yet.  Each file that
 * lands (verify.c, abi.c, doctor.c, …) removes its entry here.
 */
#include <stdio.h>

#include "cli.h"

static int not_available(const char *cmd)
{
	fprintf(stderr, "%s: %s is not available in this build\n", CLI_PROGRAM, cmd);
	return CLI_EXIT_USAGE;
}

#define PENDING_COMMAND(name) \
	int cmd_##name(int argc, char **argv) \
	{ \
		(void)argc; (void)argv; \
		return not_available(#name); \
	}

PENDING_COMMAND(verify)
PENDING_COMMAND(abi)
PENDING_COMMAND(doctor)
