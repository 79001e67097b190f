// SPDX-License-Identifier: MIT
/*
 * The image parser again, for the process's own image: this ABI's class
 * and byte order only, as constants (src/image.c says why; src/image.h
 * lists what it gives the library).
 */
#define IMAGE_OWN_ABI 1
#include "image.c"
