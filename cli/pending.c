/* SPDX-License-Identifier: MIT */
/*
 * Subcommands whose implementation has not landed yet.  The definitions
 * are weak: as soon as verify.c, abi.c or doctor.c defines its command,
 * the linker takes that one, so a subcommand can land without touching
 * this file (delete it once all three are in).
 */
#include <stdio.h>

#include "cli.h"

static int not_available(const char *cmd)
{
	fprintf(stderr, "%s: %s is not available in this build\n", CLI_PROGRAM, cmd);
	return CLI_EXIT_USAGE;
}

#define PENDING_COMMAND(name) \
	__attribute__((weak)) int cmd_##name(int argc, char **argv) \
	{ \
		(void)argc; (void)argv; \
		return not_available(#name); \
	}

PENDING_COMMAND(verify)
PENDING_COMMAND(abi)
PENDING_COMMAND(doctor)
