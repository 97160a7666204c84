"""What the forward and dK/dV kernels compile to on Hopper, without a GPU: counts of layout
conversions, shared-memory traffic and barriers in the compiled code, and the registers
and spills ptxas reports.

    python -m benchmarks.compile_probe                      # plain vs dropout vs padding
    python -m benchmarks.compile_probe --block-m 64 --block-n 64 --stages 2
    python -m benchmarks.compile_probe --tma                # K/V through tensor descriptors
    python -m benchmarks.compile_probe --kernel dkdv --block-m 64 --block-n 128 --warps 8

Triton compiles for a target given by name (``GPUTarget("cuda", 90, ...)``) with the ptxas
it ships, so this runs on a CPU-only machine. It is for comparing code variants before
spending GPU time on them (e.g. what dropout's join/reshape adds per tile), not a timing:
the counts are static, per kernel, and from the local Triton version, which may differ from
the GPU machine's.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import warnings
from typing import Dict

_POINTERS = {"Q": "*{dt}", "K": "*{dt}", "V": "*{dt}", "O": "*{dt}", "LSE": "*fp32",
             "DO": "*{dt}", "DK": "*{dt}", "DV": "*{dt}", "DELTA": "*fp32",
             "FULL_OFF": "*i32", "FULL_IDX": "*i32", "PART_OFF": "*i32", "PART_IDX": "*i32",
             "PART_CODE": "*i32", "SCHED": "*i32", "WS_O": "*fp32", "WS_LSE": "*fp32",
             "WS_DK": "*fp32", "WS_DV": "*fp32", "WS_DQ": "*fp32", "DQ": "*{dt}",
             "KPM": "*i8", "KV_LIMITS": "*i32", "SEED": "*i64"}
_IR_OPS = ("ttg.convert_layout", "ttg.local_alloc", "ttg.local_load", "tt.join",
           "tt.reshape", "ttng.warp_group_dot", "tt.dot")
_PTX_OPS = ("wgmma.mma_async", "mma.sync", "cp.async.commit_group", "cp.async.bulk",
            "ld.global", "ld.shared", "st.shared", "bar.sync",
            "mul.hi.u32", "ex2.approx", "cvt.rn.f32.u32", "setp", "fma.rn.f32", "mul.f32",
            "sub.f32")


def probe(*, dropout: bool, padding: bool, block_m: int, block_n: int, head_dim: int,
          stages: int, warps: int, dtype: str = "bf16", arch: int = 90, kernel: str = "fwd",
          tma: bool = False, column_runs: bool = False, lean: bool = False,
          index_regs: int = 0) -> Dict[str, int]:
    """Counts of IR ops and PTX instructions of one compiled kernel: the forward (``tma``:
    K/V through tensor descriptors), dQ, or dK/dV (``column_runs``: its walk of consecutive
    columns on transposed scores). The kernel is compiled for a layout with partial blocks
    and split rows (and, forward and dQ, rows that are not all consecutive) unless
    ``lean``: the code of a banded layout like ``local(3)``, with those walks and branches
    left out. ``index_regs`` (forward): the table walk's indices from a register vector
    of that many lanes (``INDEX_REGS``) instead of read in the loop."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from sparseflash.kernels.backward import attention_dkdv_kernel, attention_dq_kernel
    from sparseflash.kernels.forward import attention_forward_kernel

    constants = dict(LAYOUT_BLOCK=128, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_D=head_dim,
                     HAS_PADDING=padding, HAS_DROPOUT=dropout, PRECISION="tf32", EVEN_D=True,
                     HAS_PARTIAL=not lean, HAS_SPLITS=not lean)
    if kernel == "fwd":
        kernel = attention_forward_kernel
        constants.update(USE_TMA=tma, ROW_RUNS=lean, INDEX_REGS=index_regs)
    elif kernel == "dq":
        kernel = attention_dq_kernel
        constants.update(ROW_RUNS=lean)
    else:
        kernel = attention_dkdv_kernel
        constants.update(SCHEDULED=True, COLUMN_RUNS=column_runs)
    # Specialise the arguments as a launch on contiguous (B, H, N, D) tensors with a
    # broadcast layout does: unit strides along D, one layout head and no GQA grouping
    # become the constant 1; pointers, the other strides and the head and block counts are
    # multiples of 16. Without these, the compiler sees 2-byte loads it cannot vectorise
    # or pipeline: the code of no real launch (benchmarks/NOTES.md, v11).
    ones = {"LAYOUT_HEADS", "GROUP", "SCHED_HEADS"}
    aligned = {"H", "H_KV", "D", "NUM_Q_BLOCKS", "NUM_KV_BLOCKS"}
    signature, attrs = {}, {}
    for i, name in enumerate(kernel.arg_names):
        if name in _POINTERS:
            signature[name] = _POINTERS[name].format(dt=dtype)
            attrs[(i,)] = [["tt.divisibility", 16]]
        elif name in constants:
            signature[name] = "constexpr"
        elif name in ones or (name.startswith("stride_") and name.endswith("d")):
            signature[name] = "constexpr"
            constants[name] = 1
        else:
            signature[name] = {"qk_scale": "fp32", "sm_scale": "fp32",
                               "dropout_p": "fp32"}.get(name, "i32")
            if name in aligned or (name.startswith("stride_") and "kpm" not in name
                                   and "lim" not in name):
                attrs[(i,)] = [["tt.divisibility", 16]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = triton.compile(ASTSource(kernel, signature, constants, attrs),
                                  target=GPUTarget("cuda", arch, 128),
                                  options=dict(num_warps=warps, num_stages=stages))
    counts = collections.Counter(
        re.findall(r"\b(" + "|".join(re.escape(o) for o in _IR_OPS) + r")\b",
                   compiled.asm["ttgir"]))
    counts.update(re.findall(r"^\s*(" + "|".join(re.escape(o) for o in _PTX_OPS) + r")",
                             compiled.asm["ptx"], re.M))
    counts.update(_register_use(compiled.asm["ptx"], arch))
    # Tensor-descriptor copies are predicated (``@%p cp.async.bulk.tensor...``), which the
    # line-start pattern above does not see.
    counts["cp.async.bulk.tensor"] = compiled.asm["ptx"].count("cp.async.bulk.tensor")
    counts["shared_bytes"] = compiled.metadata.shared
    return dict(counts)


def _register_use(ptx: str, arch: int) -> Dict[str, int]:
    """Registers per thread and bytes spilled to local memory, from ``ptxas -v`` on the PTX
    (the ptxas Triton itself uses). 255 registers with spills means the tile does not fit
    the register file: every spill is a local-memory round trip in the loop."""
    import subprocess
    import tempfile

    from triton.backends.nvidia.compiler import get_ptxas
    suffix = "a" if arch == 90 else ""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        info = subprocess.run([get_ptxas(arch).path, f"-arch=sm_{arch}{suffix}", "-v", src,
                               "-o", os.path.join(tmp, "kernel.o")],
                              capture_output=True, text=True).stderr
    regs = re.search(r"Used (\d+) registers", info)
    spills = re.search(r"(\d+) bytes spill stores", info)
    return {"registers": int(regs.group(1)) if regs else -1,
            "spill_bytes": int(spills.group(1)) if spills else -1}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--block-m", type=int, default=128)
    p.add_argument("--block-n", type=int, default=64)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--stages", type=int, default=3)
    p.add_argument("--warps", type=int, default=4)
    p.add_argument("--arch", type=int, default=90, help="compute capability x 10")
    p.add_argument("--kernel", choices=["fwd", "dkdv", "dq"], default="fwd")
    p.add_argument("--tma", action="store_true", help="forward: K/V through tensor descriptors")
    p.add_argument("--column-runs", action="store_true",
                   help="dK/dV: consecutive columns at computed offsets, transposed scores")
    p.add_argument("--index-regs", type=int, default=0, choices=[0, 16, 32],
                   help="forward: the table walk reads its indices from registers "
                        "(INDEX_REGS)")
    p.add_argument("--lean", action="store_true",
                   help="compile for a banded layout: no partial blocks, no split rows, "
                        "every row consecutive")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.add_argument("--plain-only", action="store_true",
                   help="only the variant without dropout and padding")
    args = p.parse_args(argv)
    if os.environ.get("TRITON_INTERPRET", "0") == "1":
        # Under the interpreter @triton.jit yields interpreted functions, which do not compile.
        raise SystemExit("unset TRITON_INTERPRET: the probe compiles the kernels")
    variants = {"plain": dict(dropout=False, padding=False),
                "dropout": dict(dropout=True, padding=False),
                "padding": dict(dropout=False, padding=True),
                "dropout+padding": dict(dropout=True, padding=True)}
    if args.plain_only:
        variants = {"plain": variants["plain"]}
    results = {name: probe(**kw, block_m=args.block_m, block_n=args.block_n,
                           head_dim=args.head_dim, stages=args.stages, warps=args.warps,
                           arch=args.arch, kernel=args.kernel, tma=args.tma,
                           column_runs=args.column_runs, lean=args.lean,
                           index_regs=args.index_regs)
               for name, kw in variants.items()}
    if args.json:
        print(json.dumps(results))
        return
    keys = [k for k in (*_IR_OPS, *_PTX_OPS, "cp.async.bulk.tensor", "shared_bytes",
                        "registers", "spill_bytes")
            if any(k in r for r in results.values())]
    print(f"{args.kernel} kernel{' (TMA)' if args.tma else ''}, sm_{args.arch}, BLOCK_M={args.block_m} BLOCK_N={args.block_n} "
          f"D={args.head_dim} stages={args.stages} warps={args.warps} (static counts)")
    print("| op | " + " | ".join(results) + " |")
    print("|---|" + "---|" * len(results))
    for k in keys:
        print(f"| {k} | " + " | ".join(str(r.get(k, 0)) for r in results.values()) + " |")


if __name__ == "__main__":
    main()
