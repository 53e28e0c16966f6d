// SPDX-License-Identifier: MIT
/*
 * interp [N]: a bytecode interpreter for scripts/bench/profgen-pgo.sh. A small
 * stack machine (one switch dispatches each instruction; calls, returns and
 * native calls are functions of their own) runs a program assembled here:
 * for i below N (default 180000) it adds the Collatz steps of 1000 + i, folds
 * in the gcd of two numbers made of i, stores into and loads from an array,
 * calls a recursive Fibonacci every 64th i and a native hash every 16th.
 * Every run does the same work. Prints the program's result.
 *
 * The hot functions are not static: clang keeps each of them, and inlines
 * it only where it judges that worth it, a judgement a profile changes.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum op {
	HALT, PUSH, LOAD, STORE, INC, ADD, SUB, MUL, MOD, AND, XOR, SHR, LT, EQ,
	JMP, JZ, JNZ, CALL, RET, POP, DUP, GETM, SETM, NATIVE,
};

/* the instructions that take an operand, after the opcode */
static const unsigned char has_arg[] = {
	[PUSH] = 1, [LOAD] = 1, [STORE] = 1, [INC] = 1, [SHR] = 1, [JMP] = 1,
	[JZ] = 1, [JNZ] = 1, [CALL] = 1, [NATIVE] = 1,
};

#define STACK 1024
#define DEPTH 256
#define LOCALS 4096
#define MEM 1024

struct func {
	int entry, nargs, nlocals;
};

struct frame {
	int ret, base;	/* the caller's pc, and this frame's first local */
};

struct vm {
	int64_t stack[STACK];
	int64_t locals[LOCALS];
	int64_t mem[MEM];
	struct frame frames[DEPTH];
	int sp, fp, lp;	/* the next free stack slot, frame, local */
	const int32_t *code;
	const struct func *funcs;
};

static void trap(const char *why)
{
	fprintf(stderr, "interp: %s\n", why);
	exit(1);
}

/* CALL f: moves f's arguments off the stack into a new frame; returns f's entry. */
int enter(struct vm *vm, int f, int ret)
{
	const struct func *fn = &vm->funcs[f];
	struct frame *fr;

	if (vm->fp == DEPTH || vm->lp + fn->nlocals > LOCALS)
		trap("call stack overflow");
	if (vm->sp < fn->nargs)
		trap("stack underflow");
	fr = &vm->frames[vm->fp++];
	fr->ret = ret;
	fr->base = vm->lp;
	vm->sp -= fn->nargs;
	for (int i = 0; i < fn->nargs; i++)
		vm->locals[vm->lp + i] = vm->stack[vm->sp + i];
	for (int i = fn->nargs; i < fn->nlocals; i++)
		vm->locals[vm->lp + i] = 0;
	vm->lp += fn->nlocals;
	return fn->entry;
}

/* RET: drops the frame (the result stays on the stack); returns the caller's pc, -1 past main. */
int leave(struct vm *vm)
{
	struct frame *fr = &vm->frames[--vm->fp];

	vm->lp = fr->base;
	return fr->ret;
}

static int64_t mix(int64_t a, int64_t b)
{
	uint64_t h = (uint64_t)a * 0xff51afd7ed558ccdULL ^ (uint64_t)b;

	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return (int64_t)(h & 0xffffffffffffULL);
}

/* NATIVE id: a function of the host, on the two values on top of the stack. */
void native(struct vm *vm, int id)
{
	int64_t b = vm->stack[--vm->sp], a = vm->stack[--vm->sp];

	switch (id) {
	case 0:
		vm->stack[vm->sp++] = mix(a, b);
		break;
	case 1:
		vm->stack[vm->sp++] = a > b ? a : b;
		break;
	default:
		trap("unknown native function");
	}
}

int64_t run(struct vm *vm, int main_func, int64_t arg)
{
	const int32_t *code = vm->code;
	int64_t *st = vm->stack, *loc;
	int pc, sp;

	vm->sp = 0;
	vm->fp = 0;
	vm->lp = 0;
	st[vm->sp++] = arg;
	pc = enter(vm, main_func, -1);
	loc = vm->locals + vm->frames[vm->fp - 1].base;
	sp = vm->sp;
	for (;;) {
		int32_t op = code[pc++];

		switch (op) {
		case HALT:
			return sp ? st[sp - 1] : 0;
		case PUSH:
			st[sp++] = code[pc++];
			break;
		case LOAD:
			st[sp++] = loc[code[pc++]];
			break;
		case STORE:
			loc[code[pc++]] = st[--sp];
			break;
		case INC:
			loc[code[pc++]]++;
			break;
		case ADD:
			sp--;
			st[sp - 1] += st[sp];
			break;
		case SUB:
			sp--;
			st[sp - 1] -= st[sp];
			break;
		case MUL:
			sp--;
			st[sp - 1] *= st[sp];
			break;
		case MOD:
			sp--;
			if (st[sp] == 0)
				trap("division by zero");
			st[sp - 1] %= st[sp];
			break;
		case AND:
			sp--;
			st[sp - 1] &= st[sp];
			break;
		case XOR:
			sp--;
			st[sp - 1] ^= st[sp];
			break;
		case SHR:
			st[sp - 1] >>= code[pc++];
			break;
		case LT:
			sp--;
			st[sp - 1] = st[sp - 1] < st[sp];
			break;
		case EQ:
			sp--;
			st[sp - 1] = st[sp - 1] == st[sp];
			break;
		case JMP:
			pc = code[pc];
			break;
		case JZ:
			pc = st[--sp] == 0 ? code[pc] : pc + 1;
			break;
		case JNZ:
			pc = st[--sp] != 0 ? code[pc] : pc + 1;
			break;
		case CALL:
			vm->sp = sp;
			pc = enter(vm, code[pc], pc + 1);
			sp = vm->sp;
			loc = vm->locals + vm->frames[vm->fp - 1].base;
			break;
		case RET:
			pc = leave(vm);
			if (pc < 0)
				return st[sp - 1];
			loc = vm->locals + vm->frames[vm->fp - 1].base;
			break;
		case POP:
			sp--;
			break;
		case DUP:
			st[sp] = st[sp - 1];
			sp++;
			break;
		case GETM:
			st[sp - 1] = vm->mem[st[sp - 1] & (MEM - 1)];
			break;
		case SETM:
			sp -= 2;
			vm->mem[st[sp] & (MEM - 1)] = st[sp + 1];
			break;
		case NATIVE:
			vm->sp = sp;
			native(vm, code[pc++]);
			sp = vm->sp;
			break;
		default:
			trap("bad opcode");
		}
		if (sp < 0 || sp > STACK - 2)
			trap("stack out of bounds");
	}
}

/* The assembler: labels are resolved when the program is done. */
#define CODE 4096
#define LABELS 64

static int32_t code[CODE];
static int ncode;
static int label_at[LABELS];
static int nlabels;
static int fixups[CODE];	/* the code indexes that hold a label number */
static int nfixups;

static void emit(int op)
{
	if (ncode == CODE)
		trap("program too long");
	code[ncode++] = op;
}

static void emit1(int op, int arg)
{
	emit(op);
	if (op == JMP || op == JZ || op == JNZ)
		fixups[nfixups++] = ncode;
	emit(arg);
}

static int label(void)
{
	label_at[nlabels] = -1;
	return nlabels++;
}

static void here(int l)
{
	label_at[l] = ncode;
}

static void resolve(void)
{
	for (int i = 0; i < nfixups; i++) {
		int l = code[fixups[i]];

		if (label_at[l] < 0)
			trap("undefined label");
		code[fixups[i]] = label_at[l];
	}
	/* check that every opcode is known and every operand is in place */
	for (int pc = 0; pc < ncode; pc += 1 + (code[pc] <= NATIVE && has_arg[code[pc]]))
		if (code[pc] < 0 || code[pc] > NATIVE)
			trap("bad opcode in the program");
}

enum { F_COLLATZ, F_GCD, F_FIB, F_MAIN, NFUNCS };
static struct func funcs[NFUNCS];

/* collatz(n): the steps from n down to 1. Locals: n, steps. */
static void asm_collatz(void)
{
	int loop = label(), even = label(), step = label(), done = label();

	funcs[F_COLLATZ] = (struct func){ ncode, 1, 2 };
	here(loop);
	emit1(LOAD, 0), emit1(PUSH, 1), emit(EQ), emit1(JNZ, done);
	emit1(LOAD, 0), emit1(PUSH, 1), emit(AND), emit1(JZ, even);
	emit1(LOAD, 0), emit1(PUSH, 3), emit(MUL), emit1(PUSH, 1), emit(ADD), emit1(STORE, 0);
	emit1(JMP, step);
	here(even);
	emit1(LOAD, 0), emit1(SHR, 1), emit1(STORE, 0);
	here(step);
	emit1(INC, 1), emit1(JMP, loop);
	here(done);
	emit1(LOAD, 1), emit(RET);
}

/* gcd(a, b) by Euclid. Locals: a, b, t. */
static void asm_gcd(void)
{
	int loop = label(), done = label();

	funcs[F_GCD] = (struct func){ ncode, 2, 3 };
	here(loop);
	emit1(LOAD, 1), emit1(JZ, done);
	emit1(LOAD, 0), emit1(LOAD, 1), emit(MOD), emit1(STORE, 2);
	emit1(LOAD, 1), emit1(STORE, 0), emit1(LOAD, 2), emit1(STORE, 1), emit1(JMP, loop);
	here(done);
	emit1(LOAD, 0), emit(RET);
}

/* fib(n), the recursive way. Locals: n. */
static void asm_fib(void)
{
	int rec = label();

	funcs[F_FIB] = (struct func){ ncode, 1, 1 };
	emit1(LOAD, 0), emit1(PUSH, 2), emit(LT), emit1(JZ, rec);
	emit1(LOAD, 0), emit(RET);
	here(rec);
	emit1(LOAD, 0), emit1(PUSH, -1), emit(ADD), emit1(CALL, F_FIB);
	emit1(LOAD, 0), emit1(PUSH, -2), emit(ADD), emit1(CALL, F_FIB);
	emit(ADD), emit(RET);
}

/* main(n). Locals: n, i, sum, j. */
static void asm_main(void)
{
	int loop = label(), nofib = label(), nomix = label(), end = label();
	int fold = label(), folded = label();

	funcs[F_MAIN] = (struct func){ ncode, 1, 4 };
	here(loop);
	emit1(LOAD, 1), emit1(LOAD, 0), emit(LT), emit1(JZ, end);
	/* sum += collatz(i + 1000) */
	emit1(LOAD, 1), emit1(PUSH, 1000), emit(ADD), emit1(CALL, F_COLLATZ);
	emit1(LOAD, 2), emit(ADD), emit1(STORE, 2);
	/* sum ^= gcd(i + 1000, i % 37 + 3) */
	emit1(LOAD, 1), emit1(PUSH, 1000), emit(ADD);
	emit1(LOAD, 1), emit1(PUSH, 37), emit(MOD), emit1(PUSH, 3), emit(ADD);
	emit1(CALL, F_GCD), emit1(LOAD, 2), emit(XOR), emit1(STORE, 2);
	/* mem[i & 1023] = mem[i * 7 & 1023] + sum */
	emit1(LOAD, 1), emit1(PUSH, 1023), emit(AND);
	emit1(LOAD, 1), emit1(PUSH, 7), emit(MUL), emit1(PUSH, 1023), emit(AND), emit(GETM);
	emit1(LOAD, 2), emit(ADD), emit(SETM);
	/* every 64th i: sum += fib(10 + (i >> 6 & 3)) */
	emit1(LOAD, 1), emit1(PUSH, 63), emit(AND), emit1(JNZ, nofib);
	emit1(LOAD, 1), emit1(SHR, 6), emit1(PUSH, 3), emit(AND), emit1(PUSH, 10), emit(ADD);
	emit1(CALL, F_FIB), emit1(LOAD, 2), emit(ADD), emit1(STORE, 2);
	here(nofib);
	/* every 16th i: sum = mix(sum, i) */
	emit1(LOAD, 1), emit1(PUSH, 15), emit(AND), emit1(JNZ, nomix);
	emit1(LOAD, 2), emit1(LOAD, 1), emit1(NATIVE, 0), emit1(STORE, 2);
	here(nomix);
	emit1(INC, 1), emit1(JMP, loop);
	here(end);
	/* fold the array into sum: for j below 1024, sum = max(sum, mix(sum, mem[j])) - j */
	emit1(PUSH, 0), emit1(STORE, 3);
	here(fold);
	emit1(LOAD, 3), emit1(PUSH, MEM), emit(LT), emit1(JZ, folded);
	emit1(LOAD, 2), emit(DUP), emit1(LOAD, 3), emit(GETM), emit1(NATIVE, 0);
	emit1(NATIVE, 1), emit1(LOAD, 3), emit(SUB), emit1(STORE, 2);
	emit1(INC, 3), emit1(JMP, fold);
	here(folded);
	emit1(LOAD, 2), emit(RET);
}

int main(int argc, char **argv)
{
	static struct vm vm;
	int64_t n = argc > 1 ? atoll(argv[1]) : 180000;

	asm_collatz();
	asm_gcd();
	asm_fib();
	asm_main();
	resolve();
	vm.code = code;
	vm.funcs = funcs;
	printf("%" PRId64 "\n", run(&vm, F_MAIN, n));
	return 0;
}
