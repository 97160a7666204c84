"""Session 22: the hottest SASS instructions of an Nsight Compute source page.

    ncu --import R.ncu-rep --page source --print-source sass --csv > S.csv
    python benchmarks/sessions/s22_sass_hot.py S.csv [rows]

Prints the page's columns once, then per kernel the instructions with the most warp
stall samples (all samples), with their share of the kernel's samples and every stall
column that is not zero on that row.
"""

import csv
import sys


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip()]
    # The page may hold several kernels, each with a header row of its own.
    blocks, current = [], None
    for row in csv.reader(lines):
        if any("Source" == c or "Address" == c for c in row) and any("Sampl" in c for c in row):
            current = {"header": row, "rows": []}
            blocks.append(current)
        elif current is not None and len(row) == len(current["header"]):
            current["rows"].append(row)
        elif row and current is None:
            print("preamble:", ",".join(row)[:200])
    for n, block in enumerate(blocks):
        header = block["header"]
        if n == 0:
            print("columns:", header)
        samples = next(i for i, c in enumerate(header) if "Sampling (All" in c or c.startswith("Warp Stall Sampling"))
        source = next(i for i, c in enumerate(header) if c == "Source")

        def num(x):
            try:
                return float(x.replace(",", ""))
            except ValueError:
                return 0.0
        rows = block["rows"]
        total = sum(num(r[samples]) for r in rows) or 1.0
        print(f"\n== kernel {n}: {len(rows)} instructions, {total:.0f} samples")
        for r in sorted(rows, key=lambda r: -num(r[samples]))[:top]:
            extra = [f"{header[i]}={r[i]}" for i in range(len(header))
                     if "stall" in header[i].lower() and i != samples and num(r[i]) > 0]
            print(f"{100 * num(r[samples]) / total:5.1f}%  {r[source][:70]:70s} " + " ".join(extra)[:300])


if __name__ == "__main__":
    main()
