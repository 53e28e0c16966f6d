# A hostile snippet, for --allow-syscalls: SIGSTOP to its parent (sbx run,
# where it can name it), then spin. sbx's --timeout must still end it.
	mov $110, %eax		# getppid
	syscall
	mov %rax, %rdi
	mov $19, %esi		# SIGSTOP
	mov $62, %eax		# kill
	syscall
1:	jmp 1b
