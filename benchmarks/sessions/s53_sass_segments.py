"""Session 53: a static count of ``hopper``'s own D=64 forward's machine code by segment,
for a row of ``n`` key tiles: how much of what a short row issues is its steady trips.

    python benchmarks/sessions/s53_sass_segments.py [--tiles 3]

No GPU: the kernel is compiled for sm_90 as ``tests/test_hopper_compile.py`` compiles it
(with ``LAYOUT_HEADS`` and ``GROUP`` 1, as the launcher specialises a broadcast layout
without GQA), its SASS read by the cuobjdump beside Triton's ptxas (run it with Triton 3.6,
the GPU machine's: ``PYTHONPATH=/tmp/t36:.``). The count follows the code a warp runs on the
common path: every conditional branch not taken (no retry of an mbarrier wait, no empty
row, no split row, an output tile inside N), unconditional ones taken. Segments:

- *prologue*: from the start to tile 0's first score MMA (barriers, coordinates, the
  first copies, the wait for Q and K);
- *tile 0*: from there to the full tiles' loop (its scores, softmax, refill);
- *trip*: one pass of the loop (tile j-1's ``P V``, tile j's scores and softmax, a refill);
- *last P V*: from the loop's exit to the first mbarrier invalidation;
- *epilogue*: from there to the program's end (normalisation, coordinates again, O
  through shared memory by TMA, LSE).

A warp issues prologue + tile 0 + (n - 1) trips + last P V + epilogue instructions for a
row of n tiles; against n trips (the steady rate), the rest is the row's overhead.

Result (Triton 3.6, bf16; NOTES v54): see the table this prints, copied there.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))

LINE = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def instructions(sass: str):
    """[(address, text)] of a SASS listing's instructions, in address order."""
    found = []
    for line in sass.splitlines():
        match = LINE.match(line)
        if match:
            found.append((int(match.group(1), 16), match.group(2)))
    return found


def branch_target(text: str):
    """(conditional, target address) of a BRA instruction, else None."""
    match = re.match(r"(@!?U?P\w+\s+)?BRA\s+(?:`\(\.L_x_\d+\)\s*)?0x([0-9a-f]+)", text)
    if not match:
        return None
    return match.group(1) is not None, int(match.group(2), 16)


def walk(code):
    """The addresses a warp runs on the common path, from the start to EXIT, each loop
    passed once (a backward conditional branch not taken)."""
    where = {address: i for i, (address, _) in enumerate(code)}
    path, i = [], 0
    while i < len(code):
        address, text = code[i]
        path.append(address)
        if re.match(r"(@!?U?P\w+\s+)?EXIT\b", text):
            break  # (a predicated one after the last LSE store ends the common path too)
        branch = branch_target(text)
        if branch and not branch[0]:
            i = where[branch[1]]
            continue
        i += 1
    return path


def segments(code):
    """{segment: instructions} of the common path (module docstring)."""
    text = dict(code)
    path = walk(code)
    first_mma = next(a for a in path if text[a].startswith("HGMMA"))
    back = next(a for a in path
                if (b := branch_target(text[a])) and b[0] and b[1] < a and b[1] > first_mma)
    loop_head = branch_target(text[back])[1]
    inval = next(a for a in path if "SYNCS.CCTL.IV" in text[a])
    count = {"prologue": 0, "tile 0": 0, "trip": 0, "last P V": 0, "epilogue": 0}
    for a in path:
        if a < first_mma:  # (the loop's head lies past the first MMA)
            count["prologue"] += 1
        elif a < loop_head:
            count["tile 0"] += 1
        elif a <= back:
            count["trip"] += 1
        elif a < inval:
            count["last P V"] += 1
        else:
            count["epilogue"] += 1
    return count


def main():
    import torch
    import test_hopper_compile as t

    parser = argparse.ArgumentParser()
    parser.add_argument("--tiles", type=int, nargs="+", default=[3, 7, 128])
    args = parser.parse_args()
    print("| walk | prologue | tile 0 | trip | last P V | epilogue | "
          + " | ".join(f"{n} tiles: all / {n} trips" for n in args.tiles) + " |")
    print("|---" * (6 + len(args.tiles)) + "|")
    for label, row_runs in (("run (local, dense)", True), ("table (butterfly)", False)):
        compiled = t._compile(64, row_runs, False, torch.bfloat16, broadcast=True)
        count = segments(instructions(t._sass(compiled.asm["cubin"])))
        cells = []
        for n in args.tiles:
            total = (count["prologue"] + count["tile 0"] + (n - 1) * count["trip"]
                     + count["last P V"] + count["epilogue"])
            cells.append(f"{total} / {n * count['trip']} ({total / (n * count['trip']) - 1:+.0%})")
        print(f"| {label} | " + " | ".join(str(count[k]) for k in count) + " | "
              + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
