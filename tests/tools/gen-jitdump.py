#!/usr/bin/env python3
"""gen-jitdump.py OUT PID KIND: a jitdump of pid PID that is hard on a reader.

KIND moves: one CODE_LOAD, then 50,000 CODE_MOVEs of it, each to the next
64 bytes; KIND lines: a DEBUG_INFO of 200,000 lines, each in a file of its
own, then its CODE_LOAD (the format: tools/perf/Documentation/jitdump-specification.txt).
"""
import struct
import sys

out, pid, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
recs = []
def rec(i, body, t):
    recs.append(struct.pack('<IIQ', i, 16 + len(body), t) + body)
code = b'\x90' * 64
base = 0x7f0000000000
if kind == 'moves':
    rec(0, struct.pack('<IIQQQQ', pid, pid, base, base, len(code), 1) + b'moved\0' + code, 1)
    for k in range(50000):
        rec(1, struct.pack('<IIQQQQQ', pid, pid, base, base + 64 * k, base + 64 * (k + 1), len(code), 1), 2 + k)
else:
    n = 200000
    ents = b''.join(struct.pack('<QII', base + (k % 64), k + 1, 0) + b'/src/file%d.js\0' % k for k in range(n))
    rec(2, struct.pack('<QQ', base, n) + ents, 1)
    rec(0, struct.pack('<IIQQQQ', pid, pid, base, base, len(code), 1) + b'lines\0' + code, 2)
hdr = struct.pack('<IIIIIIQQ', 0x4A695444, 1, 40, 62, 0, pid, 0, 0)
open(out, 'wb').write(hdr + b''.join(recs))
