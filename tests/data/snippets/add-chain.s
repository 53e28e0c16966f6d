# A dependent chain of adds: the latency of add is 1 cycle.
# LLVM-EXEGESIS-DEFREG RAX 1
# LLVM-EXEGESIS-DEFREG RBX 2
addq %rbx, %rax
addq %rbx, %rax
addq %rbx, %rax
addq %rbx, %rax
