# Loads from address 0x10: the snippet crashes (exegesis's subprocess-segfault test).
# LLVM-EXEGESIS-DEFREG RBX 10
addq $1, %rax
movq (%rbx), %rax
