# write(1, rdi, 1): a system call the seccomp filter forbids.
movl $1, %eax
movl $1, %edx
movq %rdi, %rsi
movl $1, %edi
syscall
