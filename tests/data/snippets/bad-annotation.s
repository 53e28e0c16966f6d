# The DEFREG below lacks its value.
# LLVM-EXEGESIS-DEFREG RAX
addq %rax, %rax
