/* SPDX-License-Identifier: MIT */
/*
 * tests/cli-compare-scale.t's program: `vdsokit compare BEFORE AFTER` must
 * match rows by label in work linear in the rows.  Linked with the CLI's
 * objects and -Wl,--wrap=json_get_string, so every label compare reads is
 * counted from outside, whatever does the matching (a hash table reads each
 * label a few times; a scan per row reads n^2/2), and the shipped binary
 * carries no counter or switch for it.
 *
 * compare_scale BEFORE.json AFTER.json ROWS: the files hold ROWS shared
 * labels (and may hold a few of their own).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "output/output.h"
#include "../tap.h"

/* A generous bound: building two tables and finding each row once is ~7. */
#define MAX_READS_PER_ROW 16

static unsigned long long label_reads;

const char *__real_json_get_string(const struct json_value *v, const char *key);
const char *__wrap_json_get_string(const struct json_value *v, const char *key);
const char *__wrap_json_get_string(const struct json_value *v, const char *key)
{
	if (strcmp(key, "label") == 0)
		label_reads++;
	return __real_json_get_string(v, key);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s BEFORE.json AFTER.json ROWS\n", argv[0]);
		return 2;
	}
	unsigned long long rows = strtoull(argv[3], NULL, 10);
	char *args[] = { "compare", "--json", argv[1], argv[2], NULL };

	/* compare's table goes to /dev/null: stdout carries the TAP. */
	fflush(stdout);
	int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
	if (saved < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) {
		perror("compare_scale: redirecting stdout");
		return 2;
	}
	int status = cmd_compare(4, args);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(null);
	close(saved);

	ok(status == CLI_EXIT_OK, "compare of two files of %llu rows exits 0 (got %d)", rows, status);
	ok(label_reads <= MAX_READS_PER_ROW * rows,
	   "label matching is linear: %llu label reads for %llu rows, at most %u per row "
	   "(a scan per row: ~%llu)", label_reads, rows, MAX_READS_PER_ROW, rows * rows / 2);
	return done_testing();
}
