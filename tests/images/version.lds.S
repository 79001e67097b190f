/* SPDX-License-Identifier: MIT */
/*
 * Version script of a synthetic image, run through the target compiler's
 * preprocessor (so names.h sees that architecture's macros).
 * UNVERSIONED gives an anonymous node: the linker then emits no
 * .gnu.version sections, the shape of an unversioned vDSO.  Everything not
 * listed (vdso_fake_localized, the fake_* implementations) becomes local.
 */
#include "names.h"

#define EXPORT(impl, name) name;
#define EXPORT_WEAK(impl, name) name;
#define EXPORT_DATA(name) name;
#ifdef UNVERSIONED
# define EXPORT_OLD(impl, name) name;
{
#else
# define EXPORT_OLD(impl, name)
IMAGE_NODE {
#endif
global:
#include "exports.h"
	vdso_fake_data;
#ifdef WITH_UNDEFINED
	vdso_fake_caller;
#endif
local: *;
};

#if defined(IMAGE_OLD_NODE) && !defined(UNVERSIONED)
# undef EXPORT
# undef EXPORT_WEAK
# undef EXPORT_DATA
# undef EXPORT_OLD
# define EXPORT(impl, name)
# define EXPORT_WEAK(impl, name)
# define EXPORT_DATA(name)
# define EXPORT_OLD(impl, name) name;
IMAGE_OLD_NODE {
global:
#include "exports.h"
};
#endif
