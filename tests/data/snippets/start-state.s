# Checks the state a snippet starts from when nothing is defined: flags
# clear, MXCSR 0x1f80, the x87 control word 0x37f and its stack empty, MMX
# and YMM0-15 zero, and the general registers other than RSP and RDI (the
# scratch pointer) zero. exit(0) when all hold, else exit(the check's number).
# Needs AVX (vptest of YMM registers).
pushfq
popq %rbx
andq $0xcd5, %rbx		# CF PF AF ZF SF DF OF
movl $1, %edi
jnz out
.irp r, rax, rcx, rdx, rbp, rsi, r8, r9, r10, r11, r12, r13, r14, r15
	incl %edi
	testq %\r, %\r
	jnz out
.endr
movl $20, %edi
.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	incl %edi
	vptest %ymm\n, %ymm\n
	jnz out
.endr
movl $40, %edi
stmxcsr -8(%rsp)
cmpl $0x1f80, -8(%rsp)
jne out
movl $41, %edi
fnstenv -64(%rsp)		# 28 bytes: control, status, tag words first
cmpw $0x37f, -64(%rsp)
jne out
movl $42, %edi
testw $0x3800, -60(%rsp)	# the stack's top is 0
jnz out
movl $43, %edi
cmpw $0xffff, -56(%rsp)		# every register empty
jne out
movl $50, %edi
.irp n, 0, 1, 2, 3, 4, 5, 6, 7
	incl %edi
	movq %mm\n, %rax
	testq %rax, %rax
	jnz out
.endr
emms
xorl %edi, %edi
out:
movl $60, %eax
syscall
