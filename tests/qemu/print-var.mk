# SPDX-License-Identifier: MIT
# print-var.mk — lets tests/qemu/matrix.t ask the build for a variable's
# value (e.g. the list of test programs tests/tests.mk builds) instead of
# repeating that list: make -f Makefile -f tests/qemu/print-var.mk print-VAR
print-%:
	@echo $($*)
