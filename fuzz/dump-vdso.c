// SPDX-License-Identifier: MIT
/*
 * Writes this process's vDSO image, as the library parsed it, to the file
 * named by argv[1]: the host kernel's image as a fuzzing seed.  Exits 0
 * without writing when the process has no usable vDSO (valgrind, qemu-user),
 * so seeding never depends on it.
 */
#include <stdio.h>

#include "vdsokit.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
		return 2;
	}
	const struct vdsokit_image *img = vdsokit_process_image();
	if (!img) {
		fprintf(stderr, "%s: this process has no usable vDSO, nothing written\n", argv[0]);
		return 0;
	}
	FILE *out = fopen(argv[1], "wb");
	if (!out || fwrite(img->data, 1, img->size, out) != img->size || fclose(out) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
