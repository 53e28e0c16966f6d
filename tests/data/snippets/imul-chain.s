# A dependent chain of 64-bit multiplies: 3 cycles each on current x86.
# SBX-DEFREG RAX 3
imulq %rax, %rax
imulq %rax, %rax
