# SPDX-License-Identifier: MIT
# Synthetic vDSO images (tests/images/build-images) and the tests built on
# them: tests/image-readelf.t (host parser against readelf) and
# tests/qemu-user.t (tests/callpath.c on every architecture).
#
#   make images      $(BUILD)/images/<arch>/<variant>.so for every arch
#                    with a compiler; <arch>/SKIP says why one is missing
#
# The images do not depend on $(CC): they are made with each architecture's
# own cross compiler whatever the build is for.

IMAGES_DIR    := $(BUILD)/images
IMAGES_INPUTS := tests/images/build-images tests/images/version.lds.S \
                 $(wildcard tests/images/*.c tests/images/*.S tests/images/*.h)
IMGDUMP       := $(BUILD)/tests/tools/imgdump

.PHONY: images
images: $(IMAGES_DIR)/.built

$(IMAGES_DIR)/.built: $(IMAGES_INPUTS)
	tests/images/build-images $(IMAGES_DIR)
	@touch $@

# The images of the architecture $(CC) builds for only, made with that
# compiler (`make test`): the tests that run an image find theirs, and no
# cross compiler is needed.  The names are build-images' (i386, ppc64le…).
IMAGES_ARCH := $(shell $(CC) -dumpmachine 2>/dev/null | sed -e 's/-.*gnux32$$/-x32/' \
	-e 's/^x86_64-.*-x32$$/x32/' -e 's/-.*//' -e 's/^i.86$$/i386/' -e 's/^arm.*/arm/' \
	-e 's/^powerpc64le$$/ppc64le/' -e 's/^powerpc64$$/ppc64/' -e 's/^powerpc$$/ppc32/')
.PHONY: images-host
images-host: $(IMAGES_DIR)/$(IMAGES_ARCH)/.built

$(IMAGES_DIR)/$(IMAGES_ARCH)/.built: $(IMAGES_INPUTS)
	tests/images/build-images $(IMAGES_DIR) $(IMAGES_ARCH)
	@touch $@

# Host tool: the library's view of an image, in readelf's terms.
$(IMGDUMP): tests/tools/imgdump.c cli/images/elf_names.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(call depend_all,$(CC) $(CPPFLAGS) -Icli $(ALL_CFLAGS),$< cli/images/elf_names.c)
	$(CC) $(CPPFLAGS) -Icli $(ALL_CFLAGS) -o $@ $< cli/images/elf_names.c $(LIB_A) $(LDFLAGS)

# The call-path program for the architecture of $(CC); tests/qemu-user.t
# builds it once per architecture with a cross CC and BUILD.
$(BUILD)/tests/callpath: tests/callpath.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS)

CHECK_DEPS += images $(IMGDUMP)

# The shell tests find the images, imgdump and the build directory here.
export VDSOKIT_BUILD := $(BUILD)
