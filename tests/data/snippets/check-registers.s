# Checks its own set-up, as llvm-exegesis's tests do: every DEFREG holds at
# the first instruction (the harness's rdtscp writes RAX, RDX and RCX, a
# system call RCX and R11, and RDI is the scratch pointer only when not
# defined). exit(0) when all match, else exit(1 + the register's number).
# RSP is defined too, last: the snippet must not touch the stack.
# LLVM-EXEGESIS-DEFREG RAX 1111111111110101
# LLVM-EXEGESIS-DEFREG RCX 1111111111110202
# LLVM-EXEGESIS-DEFREG RDX 1111111111110303
# LLVM-EXEGESIS-DEFREG RBX 1111111111110404
# LLVM-EXEGESIS-DEFREG RSP 7ffff0001000
# LLVM-EXEGESIS-DEFREG RBP 1111111111110606
# LLVM-EXEGESIS-DEFREG RSI 1111111111110707
# LLVM-EXEGESIS-DEFREG RDI 1111111111110808
# LLVM-EXEGESIS-DEFREG R8 1111111111110909
# LLVM-EXEGESIS-DEFREG R9 1111111111110a0a
# LLVM-EXEGESIS-DEFREG R10 1111111111110b0b
# LLVM-EXEGESIS-DEFREG R11 1111111111110c0c
# LLVM-EXEGESIS-DEFREG R12 1111111111110d0d
# LLVM-EXEGESIS-DEFREG R13 1111111111110e0e
# LLVM-EXEGESIS-DEFREG R14 1111111111110f0f
# LLVM-EXEGESIS-DEFREG R15 1111111111111010
cmpq k_rax(%rip), %rax
jne bad_rax
cmpq k_rcx(%rip), %rcx
jne bad_rcx
cmpq k_rdx(%rip), %rdx
jne bad_rdx
cmpq k_rbx(%rip), %rbx
jne bad_rbx
cmpq k_rsp(%rip), %rsp
jne bad_rsp
cmpq k_rbp(%rip), %rbp
jne bad_rbp
cmpq k_rsi(%rip), %rsi
jne bad_rsi
cmpq k_rdi(%rip), %rdi
jne bad_rdi
cmpq k_r8(%rip), %r8
jne bad_r8
cmpq k_r9(%rip), %r9
jne bad_r9
cmpq k_r10(%rip), %r10
jne bad_r10
cmpq k_r11(%rip), %r11
jne bad_r11
cmpq k_r12(%rip), %r12
jne bad_r12
cmpq k_r13(%rip), %r13
jne bad_r13
cmpq k_r14(%rip), %r14
jne bad_r14
cmpq k_r15(%rip), %r15
jne bad_r15
movl $60, %eax
xorl %edi, %edi
syscall
bad_rax: movl $1, %edi
jmp out
bad_rcx: movl $2, %edi
jmp out
bad_rdx: movl $3, %edi
jmp out
bad_rbx: movl $4, %edi
jmp out
bad_rsp: movl $5, %edi
jmp out
bad_rbp: movl $6, %edi
jmp out
bad_rsi: movl $7, %edi
jmp out
bad_rdi: movl $8, %edi
jmp out
bad_r8: movl $9, %edi
jmp out
bad_r9: movl $10, %edi
jmp out
bad_r10: movl $11, %edi
jmp out
bad_r11: movl $12, %edi
jmp out
bad_r12: movl $13, %edi
jmp out
bad_r13: movl $14, %edi
jmp out
bad_r14: movl $15, %edi
jmp out
bad_r15: movl $16, %edi
jmp out
out: movl $60, %eax
syscall
k_rax: .quad 0x1111111111110101
k_rcx: .quad 0x1111111111110202
k_rdx: .quad 0x1111111111110303
k_rbx: .quad 0x1111111111110404
k_rsp: .quad 0x7ffff0001000
k_rbp: .quad 0x1111111111110606
k_rsi: .quad 0x1111111111110707
k_rdi: .quad 0x1111111111110808
k_r8: .quad 0x1111111111110909
k_r9: .quad 0x1111111111110a0a
k_r10: .quad 0x1111111111110b0b
k_r11: .quad 0x1111111111110c0c
k_r12: .quad 0x1111111111110d0d
k_r13: .quad 0x1111111111110e0e
k_r14: .quad 0x1111111111110f0f
k_r15: .quad 0x1111111111111010
