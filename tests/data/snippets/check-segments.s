# Checks its own set-up: DEFREG FS and GS set the segment bases, so %fs:0
# and %gs:0 read the memory mapped there. exit(0) when both match, exit(1)
# when FS is wrong, exit(2) when GS is.
# LLVM-EXEGESIS-MEM-DEF tls 4096 0706050403020100
# LLVM-EXEGESIS-MEM-MAP tls 65536
# LLVM-EXEGESIS-DEFREG FS 10000
# LLVM-EXEGESIS-DEFREG GS 10004
movabsq $0x0706050403020100, %rcx
cmpq %fs:0, %rcx
jne 1f
movabsq $0x0302010007060504, %rcx
cmpq %gs:0, %rcx
jne 2f
movl $60, %eax
xorl %edi, %edi
syscall
1: movl $1, %edi
jmp 9f
2: movl $2, %edi
9: movl $60, %eax
syscall
