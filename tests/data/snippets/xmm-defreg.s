# A DEFREG of an XMM register: XMM1 = 2.0 (double) in its low lane, then a
# dependent chain of double adds.
# LLVM-EXEGESIS-DEFREG XMM1 4000000000000000
# LLVM-EXEGESIS-DEFREG XMM0 3ff0000000000000
addsd %xmm1, %xmm0
addsd %xmm1, %xmm0
