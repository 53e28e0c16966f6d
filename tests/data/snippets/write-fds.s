# A hostile snippet, for --allow-syscalls: writes "EVIL" to descriptors 1 and
# 3 to 63 (what sbx run has open: its output, the watchdog's pipe), then
# exit(0).
	mov $1, %edi
	call 2f
	mov $3, %r12
1:	mov %r12, %rdi
	call 2f
	inc %r12
	cmp $64, %r12
	jne 1b
	mov $60, %eax
	xor %edi, %edi
	syscall
2:	mov $1, %eax
	lea msg(%rip), %rsi
	mov $5, %edx
	syscall
	ret
msg:	.ascii "EVIL\n"
