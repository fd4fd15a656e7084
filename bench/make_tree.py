#!/usr/bin/env python3
"""make_tree.py ROOT FILES: FILES small text files in 100 folders under ROOT (the benchmarks' tree)."""
import os
import sys

root, n = sys.argv[1], int(sys.argv[2])
per = max(1, n // 100)
for d in range(100):
    os.makedirs(f"{root}/d{d}", exist_ok=True)
    for f in range(per):
        with open(f"{root}/d{d}/f{f}.txt", "w") as fh:
            fh.write(f"file {d}/{f}\n" * 4)
