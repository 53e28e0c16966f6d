/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_VERSION_H
#define SBX_UTIL_VERSION_H

/*
 * The version of this build ("git describe" of the tree it was built from),
 * compiled into one object only, so that a new commit rebuilds that object
 * and nothing else.
 */
const char *sbx_version(void);

#endif
