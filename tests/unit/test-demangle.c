// SPDX-License-Identifier: MIT
/*
 * demangle_symbol(): the names perf shows (its libiberty demangler without
 * DMGL_PARAMS by default, with DMGL_PARAMS | DMGL_ANSI under -v); the
 * expected texts are libiberty's (cplus_demangle) for the same names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "symbol/demangle.h"
#include "symbol/symtab.h"

/* name demangled with flags is want (NULL: not demangled, errno EINVAL) */
static void check(const char *name, unsigned flags, const char *want)
{
	char *got;

	errno = 0;
	got = demangle_symbol(name, flags);
	if (want) {
		CHECK_EQ_STR(got ? got : "(null)", want);
	} else {
		CHECK_EQ_STR(got ? got : "(null)", "(null)");
		CHECK_EQ_INT(errno, EINVAL);
	}
	free(got);
}

static void test_cxx_short_form_as_perf(void)
{
	check("_ZNK6shapes6Square4areaEm", 0, "shapes::Square::area");
	check("_ZN6shapes4spinEmi", 0, "shapes::spin");
	/* a template function: its return type goes too */
	check("_ZN6shapes5twiceIlEET_m", 0, "shapes::twice<long>");
	check("_ZN3foo3barEv.cold", 0, "foo::bar");
	check("_ZNKSt6vectorIiSaIiEE4sizeEv", 0, "std::vector<int, std::allocator<int> >::size");
	check("_ZNKRSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE3strEv", 0,
	      "std::__cxx11::basic_stringbuf<char, std::char_traits<char>, "
	      "std::allocator<char> >::str");
	check("_ZN12_GLOBAL__N_13fooEv", 0, "(anonymous namespace)::foo");
	/* operators, whose names hold brackets and spaces */
	check("_ZN1AclEi", 0, "A::operator()");
	check("_ZN1AltIiEEbT_", 0, "A::operator< <int>");
	check("_ZN1AnwEm", 0, "A::operator new");
	check("_ZN1AdaEPv", 0, "A::operator delete[]");
	check("_ZN1AcvT_IiEEv", 0, "A::operator int<int>");
	check("_ZZ4mainENKUliE_clEi", 0, "main::{lambda(int)#1}::operator()");
	/* special names keep their target's signature */
	check("_ZThn8_N1B1fEv", 0, "non-virtual thunk to B::f()");
	check("_ZTV1A", 0, "vtable for A");
	check("_ZGVZ4mainE1x", 0, "guard variable for main::x");
	/* a PLT entry: the target demangled, then @plt, as perf names them */
	check("_ZN1A1fEv@plt", 0, "A::f@plt");
}

static void test_cxx_full_signature(void)
{
	check("_ZNK6shapes6Square4areaEm", DEMANGLE_PARAMS,
	      "shapes::Square::area(unsigned long) const");
	check("_ZN6shapes5twiceIlEET_m", DEMANGLE_PARAMS,
	      "long shapes::twice<long>(unsigned long)");
	check("_ZN3foo3barEv.cold", DEMANGLE_PARAMS, "foo::bar() [clone .cold]");
	check("_ZN1A1fEv@plt", DEMANGLE_PARAMS, "A::f()@plt");
}

static void test_rust_legacy(void)
{
	check("_ZN4core3fmt5write17h0123456789abcdefE", 0, "core::fmt::write");
	check("_ZN4core3fmt5write17h0123456789abcdefE", DEMANGLE_PARAMS,
	      "core::fmt::write");
	check("_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$"
	      "4drop17h1234567890abcdefE", 0,
	      "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop");
	check("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h0123456789abcdefE", 0,
	      "std::rt::lang_start::{{closure}}");
	check("_ZN3foo3bar17h0123456789abcdefE.llvm.1234", 0, "foo::bar");
}

static void test_not_mangled_or_malformed(void)
{
	check("main", 0, NULL);
	check("hot_a", 0, NULL);
	check("", 0, NULL);
	check("_start", 0, NULL);
	check("_Z", 0, NULL);
	check("_Zfoo", 0, NULL);
	check("_ZN3foo", 0, NULL);			/* unterminated nested name */
	check("_ZN3foo3bar17h0123456789abcdeE", 0, NULL);	/* a 15-digit "hash" */
	check("_ZN9999999999999999999999E", 0, NULL);	/* a length past the end */
	/* Rust v0 is not demangled (perf's libiberty does it) */
	check("_RNvCs1234_7mycrate3foo", 0, NULL);
}

static void test_symtab_caches_demangled_names(void)
{
	char path[] = "/tmp/sbx-test-demangle-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct symtab *t;
	const struct symbol *a, *b, *c;
	const char *na;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	fprintf(f, "1000 10 _ZN3foo3barEv\n2000 10 plain_c\n3000 10 _Zjunk\n");
	fclose(f);
	t = symtab_from_perf_map(path);
	unlink(path);
	CHECK(t != NULL);
	if (!t)
		return;
	a = symtab_find(t, 0x1004);
	b = symtab_find(t, 0x2004);
	c = symtab_find(t, 0x3004);
	CHECK(a && b && c);
	if (a && b && c) {
		na = symtab_demangled_name(t, a);
		CHECK_EQ_STR(na, "foo::bar");
		CHECK(symtab_demangled_name(t, a) == na);	/* cached */
		CHECK_EQ_STR(a->name, "_ZN3foo3barEv");	/* the raw name stays */
		CHECK(symtab_demangled_name(t, b) == b->name);
		CHECK(symtab_demangled_name(t, c) == c->name);
		CHECK(symtab_demangled_name(t, c) == c->name);
	}
	symtab_free(t);
}

static const struct unit_test tests[] = {
	TEST(test_cxx_short_form_as_perf),
	TEST(test_cxx_full_signature),
	TEST(test_rust_legacy),
	TEST(test_not_mangled_or_malformed),
	TEST(test_symtab_caches_demangled_names),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
