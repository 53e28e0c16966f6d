# Pointer chasing: a block at 0x10000 whose every word holds 0x10000, so
# each load's address is the previous load's result (L1 load-to-use latency).
# LLVM-EXEGESIS-MEM-DEF chain 4096 0000000000010000
# LLVM-EXEGESIS-MEM-MAP chain 65536
# LLVM-EXEGESIS-DEFREG RAX 10000
movq (%rax), %rax
