#!/usr/bin/env python3
"""make_tree.py ROOT FILES [SUBFOLDERS]: FILES small text files in 100 folders under ROOT (the
benchmarks' tree), each split into SUBFOLDERS folders when given (first_run.sh: 100 x 10 x 100)."""
import os
import sys

root, n = sys.argv[1], int(sys.argv[2])
subs = int(sys.argv[3]) if len(sys.argv) > 3 else 0
per = max(1, n // (100 * max(1, subs)))
for d in range(100):
    for s in range(max(1, subs)):
        folder = f"{root}/d{d}/s{s}" if subs else f"{root}/d{d}"
        os.makedirs(folder, exist_ok=True)
        for f in range(per):
            with open(f"{folder}/f{f}.txt", "w") as fh:
                fh.write((f"file {d}/{s}/{f}\n" if subs else f"file {d}/{f}\n") * 4)
