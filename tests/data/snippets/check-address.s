# Checks its own set-up: the code runs at SNIPPET-ADDRESS (the page of the
# first instruction is that address). exit(0) when it does, else exit(1).
# LLVM-EXEGESIS-SNIPPET-ADDRESS 20000000
leaq 0(%rip), %rax
andq $-4096, %rax
cmpq $0x20000000, %rax
jne 1f
movl $60, %eax
xorl %edi, %edi
syscall
1: movl $60, %eax
movl $1, %edi
syscall
