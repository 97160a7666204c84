"""Session 54: where a kernel's long-scoreboard stalls sit, from an Nsight Compute source page.

    ncu --section SourceCounters --import-source yes -o R ... python s53_ncu_issue.py
    ncu --import R.ncu-rep --page source --print-source sass --csv > S.csv
    python benchmarks/sessions/s54_stall_sites.py S.csv [rows]

Session 53 counted 1.79 long-scoreboard stall cycles an issued instruction on ``hopper``'s
own D=64 forward for `local(1)` against 0.21 for dense (NOTES v54), and could not say
whether they wait on the schedule's global loads (the entry, then the run's first key,
before the first K/V copy can be issued) or on the copies themselves (an mbarrier's
``SYNCS.PHASECHK`` result, which a warp waits on through the same scoreboard). A stall
sample is charged to the instruction that waits, not to the load; so for each of the
kernel's most stalled instructions this prints the nearest instruction before it that
writes one of the registers or predicates it reads (in address order: a guess across
branches, exact within straight-line code), and the kernel's long-scoreboard samples by
segment: the prologue (up to the first ``HGMMA``), the tile loop and the epilogue (from
the first ``SYNCS.CCTL.IV``, the mbarriers' invalidation).

Result (call 1, ``s54-call1.sh``; logs ``benchmarks/results/NVIDIA-H200-stall-sites-s54-call1.log``
and ``-sass-hot-s54-call1.log``, the page as ``-ncu-source-s54-call1.csv.gz``; hopper's own
D=64 forward, B=1, H=16, N=16K, bf16). Long-scoreboard samples are 21.3% of `local(1)`'s
warp samples, 11.4% of `local(3)`'s and 2.8% of dense's. On `local(1)`, 64% of them sit in
the prologue: 40.7% at the wait for Q's copy (its mbarrier's try-wait; 8.7% of all the
kernel's samples), 10.0% at the wait for K's first tile after it, 9.4% on the schedule
entry's load and 2.3% on the run's first key (the key table); 26% sit in the epilogue,
14.0% of them at the barrier after the wait for the O store to read shared memory (3.1%
of all samples). On dense, 82% are in the loop, at the K/V tiles' waits. So the loads the
schedule adds are a small part (under 12% of `local(1)`'s long-scoreboard samples); the
copies' own latency at a row's start is the large one (NOTES v55).
"""

import csv
import re
import sys

REGISTER = re.compile(r"\b(U?R\d+|U?P\d+)(?:\.64)?\b")


def read_blocks(path):
    """[{header, rows}] of the page's kernels (each has a header row of its own)."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip()]
    blocks, current = [], None
    for row in csv.reader(lines):
        if "Source" in row and "Address" in row:
            current = {"header": row, "rows": []}
            blocks.append(current)
        elif current is not None and len(row) == len(current["header"]):
            current["rows"].append(row)
    return blocks


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def registers(operand_text):
    """The registers and predicates an operand list names, with a .64 pair's second."""
    found = set()
    for match in REGISTER.finditer(operand_text):
        name = match.group(1)
        found.add(name)
        if match.group(0).endswith(".64"):
            prefix = "UR" if name.startswith("UR") else "R"
            found.add(f"{prefix}{int(name[len(prefix):]) + 1}")
    return found - {"RZ", "URZ", "PT", "UPT"}


def split(text):
    """(guard registers, opcode, written registers, read registers) of one instruction."""
    guard = set()
    match = re.match(r"@!?(U?P\w+)\s+(.*)", text)
    if match:
        guard, text = {match.group(1)}, match.group(2)
    opcode, _, operands = text.partition(" ")
    parts = [p.strip() for p in operands.split(",")] if operands else []
    stores = ("ST", "SYNCS.ARRIVE", "SYNCS.EXCH", "BAR", "BRA", "UTMA", "RED", "HGMMA",
              "WARPGROUP", "EXIT", "SYNCS.CCTL")
    if not parts or opcode.startswith(stores):
        written, read = set(), registers(operands)
    else:
        written = registers(parts[0])
        width = 4 if ".128" in opcode else 2 if ".64" in opcode else 1
        for name in list(written):
            prefix = "UR" if name.startswith("UR") else "R" if name.startswith("R") else None
            if prefix:
                written |= {f"{prefix}{int(name[len(prefix):]) + i}" for i in range(width)}
        read = registers(", ".join(parts[1:]))
    return guard, opcode, written, read | guard


def producer(rows, source, index):
    """The nearest row before ``index`` writing a register that row ``index`` reads."""
    _, _, _, read = split(rows[index][source])
    for back in range(index - 1, max(index - 400, -1), -1):
        _, _, written, _ = split(rows[back][source])
        if written & read:
            return back
    return None


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    for n, block in enumerate(read_blocks(path)):
        header, rows = block["header"], block["rows"]
        source, address = header.index("Source"), header.index("Address")
        long_sb = header.index("stall_long_sb")
        total = next(i for i, c in enumerate(header) if c.startswith("Warp Stall Sampling (All"))
        executed = header.index("Instructions Executed")
        samples = sum(number(r[total]) for r in rows) or 1.0
        waits = sum(number(r[long_sb]) for r in rows) or 1.0
        first_mma = next(i for i, r in enumerate(rows) if r[source].strip().startswith("HGMMA"))
        epilogue = next((i for i, r in enumerate(rows) if "SYNCS.CCTL.IV" in r[source]),
                        len(rows))
        parts = {"prologue": range(0, first_mma), "loop": range(first_mma, epilogue),
                 "epilogue": range(epilogue, len(rows))}
        print(f"\n== kernel {n}: {len(rows)} instructions, {samples:.0f} samples, "
              f"long scoreboard {waits:.0f} ({100 * waits / samples:.1f}%); "
              f"warp instructions executed {sum(number(r[executed]) for r in rows):.0f}")
        for name, span in parts.items():
            share = sum(number(rows[i][long_sb]) for i in span)
            every = sum(number(rows[i][total]) for i in span)
            print(f"   {name:9s} long scoreboard {100 * share / waits:5.1f}% of its samples; "
                  f"all stalls {100 * every / samples:5.1f}% of the kernel's")
        ranked = sorted(range(len(rows)), key=lambda i: -number(rows[i][long_sb]))[:top]
        for i in ranked:
            if number(rows[i][long_sb]) == 0:
                break
            p = producer(rows, source, i)
            made = f"<- {rows[p][address]} {rows[p][source].strip()[:60]}" if p is not None \
                else "<- ?"
            print(f"{100 * number(rows[i][long_sb]) / waits:5.1f}% {rows[i][address]} "
                  f"{rows[i][source].strip()[:58]:58s} {made}")


if __name__ == "__main__":
    main()
