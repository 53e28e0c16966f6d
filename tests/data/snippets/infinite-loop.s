# Never ends: run with --timeout 1.
1: jmp 1b
