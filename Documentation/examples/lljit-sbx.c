// SPDX-License-Identifier: MIT
/*
 * lljit-sbx: a tiny JIT on LLVM 19's ORC LLJIT (C API only) that describes
 * the code it generates through libsbx-jit, so that a profiler names the
 * samples taken in that code.
 *
 * What it shows:
 *  1. an LLVM IR module built in memory with the C API (LLVMBuildXxx):
 *     hot_loop(n), a loop of n steps of a dependent multiply-add-xorshift
 *     chain (which the optimizer cannot fold away), and cold_sum(n);
 *  2. the module optimized (LLVMRunPasses "default<O2>") and compiled to an
 *     object file in memory (LLVMTargetMachineEmitToMemoryBuffer), for the
 *     triple and data layout of the LLJIT instance;
 *  3. the exact size of each function read from that object file's symbol
 *     table (llvm-c/Object.h): the C API has no JIT event listener of one's
 *     own, but the object that LLJIT links is the one we compiled, so its
 *     st_size is the size of the code that runs;
 *  4. the object added to LLJIT (LLVMOrcLLJITAddObjectFile), each function
 *     looked up (LLVMOrcLLJITLookup, which links it) and reported with
 *     sbx_jit_load(): name, runtime address, size; bytes NULL, so the
 *     library copies the code from the runtime address;
 *  5. hot_loop run for argv[1] million iterations (default 400, about half
 *     a second), so that a profiler takes plenty of samples in it.
 *
 * Build (`make examples` builds it as build/default/examples/lljit-sbx):
 *
 *   gcc -std=gnu11 -O1 -g -Iinclude $(llvm-config-19 --cflags) \
 *       -o lljit-sbx Documentation/examples/lljit-sbx.c build/default/libsbx-jit.a \
 *       $(llvm-config-19 --ldflags) $(llvm-config-19 --libs) -lpthread
 *
 * Profile it with sbx (the dump goes to $SBX_JIT_DIR, else $JITDUMPDIR,
 * else ~/.debug/jit/, see include/sbx/jit.h):
 *
 *   sbx record -o app.data -- build/default/examples/lljit-sbx
 *   sbx report -i app.data                  (reads the jitdump directly)
 *
 * or make a perf.data with the jitted code as ELF images (jitted-*.so):
 *
 *   sbx jit-inject -i app.data -o app.jit.data && perf report -i app.jit.data
 *
 * With perf alone: perf record -k mono -- build/default/examples/lljit-sbx,
 * then perf inject --jit -i perf.data -o perf.jit.data.
 *
 * Errors: one line "lljit-sbx: ..." on stderr, exit status 1.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Object.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "sbx/jit.h"

#define DEFAULT_MILLIONS	400

/* The functions of the module, in the order they are reported. */
enum { FN_HOT_LOOP, FN_COLD_SUM, NR_FNS };

struct jit_fn {
	const char *name;
	uint64_t size;			/* from the object file's symbol table */
	int found;			/* size was found */
	LLVMOrcExecutorAddress addr;	/* from LLVMOrcLLJITLookup */
};

static struct jit_fn fns[NR_FNS] = {
	[FN_HOT_LOOP] = { .name = "hot_loop" },
	[FN_COLD_SUM] = { .name = "cold_sum" },
};

__attribute__((format(printf, 1, 2)))
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("lljit-sbx: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Report (and consume) an LLVMErrorRef. */
static int fail_llvm(const char *what, LLVMErrorRef err)
{
	char *msg = LLVMGetErrorMessage(err);

	fail("%s: %s", what, msg);
	LLVMDisposeErrorMessage(msg);
	return -1;
}

/* Report (and free) a message from LLVM's char ** error convention. */
static int fail_msg(const char *what, char *msg)
{
	fail("%s: %s", what, msg ? msg : "unknown error");
	LLVMDisposeMessage(msg);
	return -1;
}

/*
 * uint64_t hot_loop(uint64_t n)
 * {
 *	uint64_t x = n;
 *	for (uint64_t i = 0; i < n; i++) {
 *		x = x * 6364136223846793005 + 1442695040888963407;
 *		x ^= x >> 29;
 *	}
 *	return x;
 * }
 *
 * Each step depends on the one before, and the xor-shift keeps the optimizer
 * from merging unrolled steps (a bare multiply-add chain becomes one
 * multiply-add per 8 steps once unrolled), so the time is linear in n.
 */
static void build_hot_loop(LLVMContextRef ctx, LLVMModuleRef mod, LLVMBuilderRef b)
{
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	LLVMTypeRef fty = LLVMFunctionType(i64, (LLVMTypeRef[]){ i64 }, 1, 0);
	LLVMValueRef fn = LLVMAddFunction(mod, fns[FN_HOT_LOOP].name, fty);
	LLVMValueRef n = LLVMGetParam(fn, 0);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(ctx, fn, "loop");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx, fn, "done");
	LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
	LLVMValueRef one = LLVMConstInt(i64, 1, 0);
	LLVMValueRef mul = LLVMConstInt(i64, UINT64_C(6364136223846793005), 0);
	LLVMValueRef inc = LLVMConstInt(i64, UINT64_C(1442695040888963407), 0);
	LLVMValueRef shift = LLVMConstInt(i64, 29, 0);

	LLVMSetValueName2(n, "n", 1);

	LLVMPositionBuilderAtEnd(b, entry);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, n, zero, "empty"), done, loop);

	LLVMPositionBuilderAtEnd(b, loop);
	LLVMValueRef i = LLVMBuildPhi(b, i64, "i");
	LLVMValueRef x = LLVMBuildPhi(b, i64, "x");
	LLVMValueRef xa = LLVMBuildAdd(b, LLVMBuildMul(b, x, mul, "xm"), inc, "xa");
	LLVMValueRef x1 = LLVMBuildXor(b, xa, LLVMBuildLShr(b, xa, shift, "xs"), "x1");
	LLVMValueRef i1 = LLVMBuildAdd(b, i, one, "i1");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i1, n, "more"), loop, done);
	LLVMAddIncoming(i, (LLVMValueRef[]){ zero, i1 }, (LLVMBasicBlockRef[]){ entry, loop }, 2);
	LLVMAddIncoming(x, (LLVMValueRef[]){ n, x1 }, (LLVMBasicBlockRef[]){ entry, loop }, 2);

	LLVMPositionBuilderAtEnd(b, done);
	LLVMValueRef r = LLVMBuildPhi(b, i64, "r");
	LLVMAddIncoming(r, (LLVMValueRef[]){ n, x1 }, (LLVMBasicBlockRef[]){ entry, loop }, 2);
	LLVMBuildRet(b, r);
}

/*
 * uint64_t cold_sum(uint64_t n)
 * {
 *	uint64_t s = 0;
 *	for (uint64_t i = 0; i < n; i++)
 *		s += i ^ (i >> 3);
 *	return s;
 * }
 */
static void build_cold_sum(LLVMContextRef ctx, LLVMModuleRef mod, LLVMBuilderRef b)
{
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	LLVMTypeRef fty = LLVMFunctionType(i64, (LLVMTypeRef[]){ i64 }, 1, 0);
	LLVMValueRef fn = LLVMAddFunction(mod, fns[FN_COLD_SUM].name, fty);
	LLVMValueRef n = LLVMGetParam(fn, 0);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(ctx, fn, "loop");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx, fn, "done");
	LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
	LLVMValueRef one = LLVMConstInt(i64, 1, 0);
	LLVMValueRef three = LLVMConstInt(i64, 3, 0);

	LLVMSetValueName2(n, "n", 1);

	LLVMPositionBuilderAtEnd(b, entry);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, n, zero, "empty"), done, loop);

	LLVMPositionBuilderAtEnd(b, loop);
	LLVMValueRef i = LLVMBuildPhi(b, i64, "i");
	LLVMValueRef s = LLVMBuildPhi(b, i64, "s");
	LLVMValueRef t = LLVMBuildXor(b, i, LLVMBuildLShr(b, i, three, "ish"), "t");
	LLVMValueRef s1 = LLVMBuildAdd(b, s, t, "s1");
	LLVMValueRef i1 = LLVMBuildAdd(b, i, one, "i1");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i1, n, "more"), loop, done);
	LLVMAddIncoming(i, (LLVMValueRef[]){ zero, i1 }, (LLVMBasicBlockRef[]){ entry, loop }, 2);
	LLVMAddIncoming(s, (LLVMValueRef[]){ zero, s1 }, (LLVMBasicBlockRef[]){ entry, loop }, 2);

	LLVMPositionBuilderAtEnd(b, done);
	LLVMValueRef r = LLVMBuildPhi(b, i64, "r");
	LLVMAddIncoming(r, (LLVMValueRef[]){ zero, s1 }, (LLVMBasicBlockRef[]){ entry, loop }, 2);
	LLVMBuildRet(b, r);
}

/*
 * A target machine for the LLJIT's triple and the host CPU (as LLJIT's own
 * JITTargetMachineBuilder::detectHost() would pick), generating PIC with
 * the small code model: what LLJIT sets up when it links with JITLink, and
 * fine for its RuntimeDyld linker too.
 */
static LLVMTargetMachineRef make_target_machine(const char *triple)
{
	LLVMTargetRef target;
	LLVMTargetMachineRef tm;
	char *msg = NULL;

	if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
		fail_msg(triple, msg);
		return NULL;
	}
	char *cpu = LLVMGetHostCPUName();
	char *features = LLVMGetHostCPUFeatures();
	tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelDefault,
				     LLVMRelocPIC, LLVMCodeModelSmall);
	LLVMDisposeMessage(cpu);
	LLVMDisposeMessage(features);
	if (!tm)
		fail("cannot create a target machine for %s", triple);
	return tm;
}

/*
 * Build, verify, optimize and compile the module; on success *obj is the
 * object file (the caller owns it).
 */
static int compile_module(LLVMOrcLLJITRef jit, LLVMTargetMachineRef tm, LLVMMemoryBufferRef *obj)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("lljit-sbx", ctx);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
	LLVMPassBuilderOptionsRef opts = NULL;
	LLVMErrorRef err;
	char *msg = NULL;
	int ret = -1;

	LLVMSetTarget(mod, LLVMOrcLLJITGetTripleString(jit));
	LLVMSetDataLayout(mod, LLVMOrcLLJITGetDataLayoutStr(jit));
	build_hot_loop(ctx, mod, b);
	build_cold_sum(ctx, mod, b);

	if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
		fail_msg("invalid module", msg);
		goto out;
	}
	LLVMDisposeMessage(msg);
	msg = NULL;

	opts = LLVMCreatePassBuilderOptions();
	err = LLVMRunPasses(mod, "default<O2>", tm, opts);
	if (err) {
		fail_llvm("optimizing", err);
		goto out;
	}

	if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &msg, obj)) {
		fail_msg("compiling", msg);
		goto out;
	}
	ret = 0;
out:
	if (opts)
		LLVMDisposePassBuilderOptions(opts);
	LLVMDisposeBuilder(b);
	LLVMDisposeModule(mod);
	LLVMContextDispose(ctx);
	return ret;
}

/*
 * Find the size of each function in fns[] in the symbol table of obj. The
 * binary only borrows obj. The names in the object carry the global prefix
 * ('_' on Mach-O, none on ELF); the lookup names do not.
 */
static int read_sizes(LLVMMemoryBufferRef obj, char prefix)
{
	LLVMBinaryRef bin;
	LLVMSymbolIteratorRef sym;
	LLVMSectionIteratorRef sect;
	char *msg = NULL;
	int ret = 0;

	bin = LLVMCreateBinary(obj, NULL, &msg);
	if (!bin)
		return fail_msg("reading the object file", msg);
	sym = LLVMObjectFileCopySymbolIterator(bin);
	sect = LLVMObjectFileCopySectionIterator(bin);

	for (; !LLVMObjectFileIsSymbolIteratorAtEnd(bin, sym); LLVMMoveToNextSymbol(sym)) {
		const char *name = LLVMGetSymbolName(sym);

		if (!name || (prefix && *name++ != prefix))
			continue;
		/* only symbols defined in a code section */
		LLVMMoveToContainingSection(sect, sym);
		if (LLVMObjectFileIsSectionIteratorAtEnd(bin, sect) ||
		    strncmp(LLVMGetSectionName(sect), ".text", 5) != 0)
			continue;
		for (int k = 0; k < NR_FNS; k++) {
			if (strcmp(name, fns[k].name) == 0) {
				fns[k].size = LLVMGetSymbolSize(sym);
				fns[k].found = 1;
			}
		}
	}
	for (int k = 0; k < NR_FNS && !ret; k++) {
		if (!fns[k].found || !fns[k].size)
			ret = fail("%s: no sized symbol in the object file", fns[k].name);
	}

	LLVMDisposeSectionIterator(sect);
	LLVMDisposeSymbolIterator(sym);
	LLVMDisposeBinary(bin);
	return ret;
}

static int parse_millions(int argc, char **argv, uint64_t *iterations)
{
	unsigned long long m = DEFAULT_MILLIONS;
	char *end;

	if (argc > 2)
		return fail("usage: lljit-sbx [MILLIONS_OF_ITERATIONS]");
	if (argc == 2) {
		errno = 0;
		m = strtoull(argv[1], &end, 10);
		if (errno || end == argv[1] || *end || argv[1][0] == '-' ||
		    m > UINT64_MAX / 1000000)
			return fail("bad number of iterations (millions): %s", argv[1]);
	}
	*iterations = (uint64_t)m * 1000000;
	return 0;
}

int main(int argc, char **argv)
{
	LLVMOrcLLJITRef jit = NULL;
	LLVMTargetMachineRef tm = NULL;
	LLVMMemoryBufferRef obj = NULL;
	struct sbx_jit *dump = NULL;
	LLVMErrorRef err;
	uint64_t iterations = 0;
	int ret = 1, rc;

	if (parse_millions(argc, argv, &iterations))
		return 1;

	if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
		fail("no native target in this LLVM");
		return 1;
	}

	err = LLVMOrcCreateLLJIT(&jit, NULL);
	if (err) {
		jit = NULL;
		fail_llvm("creating the LLJIT", err);
		goto out;
	}

	tm = make_target_machine(LLVMOrcLLJITGetTripleString(jit));
	if (!tm || compile_module(jit, tm, &obj) ||
	    read_sizes(obj, LLVMOrcLLJITGetGlobalPrefix(jit)))
		goto out;

	/* LLJIT takes the object buffer, even when this fails */
	err = LLVMOrcLLJITAddObjectFile(jit, LLVMOrcLLJITGetMainJITDylib(jit), obj);
	obj = NULL;
	if (err) {
		fail_llvm("adding the object file", err);
		goto out;
	}

	dump = sbx_jit_open();
	if (!dump) {
		fail("sbx_jit_open: %s", strerror(errno));
		goto out;
	}

	for (int k = 0; k < NR_FNS; k++) {
		struct jit_fn *f = &fns[k];
		uint64_t index;

		/* the first lookup links the object into this process */
		err = LLVMOrcLLJITLookup(jit, &f->addr, f->name);
		if (err) {
			fail_llvm(f->name, err);
			goto out;
		}
		struct sbx_jit_code code = {
			.name = f->name,
			.addr = (const void *)(uintptr_t)f->addr,
			.size = f->size,
			.bytes = NULL,	/* the library copies the code from addr */
		};
		rc = sbx_jit_load(dump, &code, &index);
		if (rc < 0) {
			fail("sbx_jit_load %s: %s", f->name, strerror(-rc));
			goto out;
		}
		printf("%s: %" PRIu64 " bytes at 0x%" PRIx64 " (code index %" PRIu64 ")\n",
		       f->name, f->size, f->addr, index);
	}
	printf("jitdump: %s\n", sbx_jit_path(dump));
	fflush(stdout);

	uint64_t (*hot_loop)(uint64_t) = (uint64_t (*)(uint64_t))(uintptr_t)fns[FN_HOT_LOOP].addr;
	uint64_t (*cold_sum)(uint64_t) = (uint64_t (*)(uint64_t))(uintptr_t)fns[FN_COLD_SUM].addr;

	printf("cold_sum(1000) = %" PRIu64 "\n", cold_sum(1000));
	printf("hot_loop(%" PRIu64 ") = 0x%016" PRIx64 "\n", iterations, hot_loop(iterations));
	ret = 0;
out:
	/* close the dump before the code goes away with the LLJIT */
	rc = sbx_jit_close(dump);
	if (rc < 0 && ret == 0) {
		fail("sbx_jit_close: %s", strerror(-rc));
		ret = 1;
	}
	if (obj)
		LLVMDisposeMemoryBuffer(obj);
	if (tm)
		LLVMDisposeTargetMachine(tm);
	if (jit) {
		err = LLVMOrcDisposeLLJIT(jit);
		if (err) {
			fail_llvm("disposing of the LLJIT", err);
			ret = 1;
		}
	}
	LLVMShutdown();
	return ret;
}
