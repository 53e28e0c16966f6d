# A push and a pop on a stack of its own: DEFREG RSP into a MEM-MAP.
# LLVM-EXEGESIS-MEM-DEF stack 8192 0
# LLVM-EXEGESIS-MEM-MAP stack 65536
# LLVM-EXEGESIS-DEFREG RSP 11000
pushq %rax
popq %rax
