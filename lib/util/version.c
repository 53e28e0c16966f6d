// SPDX-License-Identifier: MIT
/* The version string, given by the Makefile to this object alone (see version.h). */
#include "util/version.h"

#ifndef SBX_VERSION
#define SBX_VERSION "0.0.0"
#endif

const char *sbx_version(void)
{
	return SBX_VERSION;
}
