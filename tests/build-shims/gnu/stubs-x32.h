/* SPDX-License-Identifier: MIT */
/* Empty: lets tests/build.t compile-check an ABI whose libc Debian does not ship. */
