# Four independent adds: for inverse throughput (several per cycle).
addq $1, %rax
addq $1, %rbx
addq $1, %rcx
addq $1, %rdx
