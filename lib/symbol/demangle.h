/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOL_DEMANGLE_H
#define SBX_SYMBOL_DEMANGLE_H

/* Demangling of C++ and Rust symbol names as perf shows them. */

/* demangle_symbol() flags */
#define DEMANGLE_PARAMS	1u	/* the full signature, as perf -v shows it */

/*
 * The demangled form of a mangled symbol name, as perf shows it by default:
 * C++ (Itanium ABI, "_Z…", through libstdc++'s __cxa_demangle) without the
 * parameters, function qualifiers, return type or clone suffix
 * ("_ZNK2ns1S1fEi.cold" -> "ns::S::f"), or the full signature with
 * DEMANGLE_PARAMS ("ns::S::f(int) const [clone .cold]"); Rust legacy
 * names ("_ZN4core3fmt5write17h0123456789abcdefE" -> "core::fmt::write")
 * without their hash. "TARGET@plt" gives the demangled target with "@plt".
 * Returns a new string (the caller frees it), or NULL with errno EINVAL when
 * name is not a mangled name or cannot be demangled, ENOMEM when memory ran
 * out. Rust v0 ("_R…") names are not demangled.
 */
char *demangle_symbol(const char *name, unsigned flags);

#endif
