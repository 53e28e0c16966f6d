# A hostile snippet (no system call but exit): it finds the context page
# through the address the generated code loads after the copies (movabs
# $PAGE, %rsp: 48 bc and a page-aligned user address; other bytes that
# happen to read 48 bc are passed over), and writes "done" and a counter
# index far out of range into the page above it, where sbx run's report
# used to be; then exit(0).
	lea 0(%rip), %rax
1:	inc %rax
	cmpb $0x48, (%rax)
	jne 1b
	cmpb $0xbc, 1(%rax)
	jne 1b
	mov 2(%rax), %rbx
	test $0xfff, %ebx
	jnz 1b
	mov %rbx, %rcx
	shr $47, %rcx
	jnz 1b
	test %rbx, %rbx
	jz 1b
	add $4096, %rbx
	movl $1, (%rbx)
	movl $0x7fffffff, 12(%rbx)
	mov $60, %eax
	xor %edi, %edi
	syscall
