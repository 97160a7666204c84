"""Session 52: the three Triton attention kernels compiled for sm_90 over every
combination of their boolean constexprs, without a GPU.

    PYTHONPATH=. TRITON_INTERPRET=0 python benchmarks/sessions/s52_triton_compile_sweep.py

Why. Call 2 found that the dK/dV kernel's unscheduled path (a per-head layout with
grouped key heads) did not compile: it named a variable only the scheduled path defines,
in a branch that is never taken but is compiled all the same. The CPU tests run the
kernels in Triton's interpreter, which executes only the branches a call takes, and no
GPU test had that layout. Are other flag combinations broken the same way?

What. ``triton.compile`` (target sm_90) of ``attention_forward_kernel`` (key padding,
dropout, partial blocks, split rows, run walks, in-kernel TMA descriptors, and table
indices in registers (0 or 16) where rows are not runs: 96 variants),
``attention_dq_kernel`` (padding, dropout, partial blocks, split rows, run walks: 32)
and ``attention_dkdv_kernel`` (padding, dropout, partial blocks, column schedule with
its splits, column runs: 32), at BLOCK_M = BLOCK_N = BLOCK_D = 64, bf16. Prints each
failure and a count.

Result (commit e6a0d52, the fix in place): all 160 compiled, with Triton 3.9 (612 s on
two cores) and with Triton 3.6 (434 s). With the fix reverted, 16 of the 32 dK/dV
variants fail (Triton 3.9);
``tests/test_hopper_compile.py::test_triton_dkdv_compiles_for_sm90`` keeps one of them.
"""
import itertools
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests"))
from test_hopper_compile import _compile_triton  # noqa: E402

from sparseflash.kernels import backward, forward  # noqa: E402


def variants():
    """(name, kernel, constexprs) of every flag combination the docstring lists."""
    base = dict(LAYOUT_BLOCK=128, BLOCK_M=64, BLOCK_N=64, BLOCK_D=64, PRECISION="tf32",
                EVEN_D=True)
    flags = itertools.product([False, True], repeat=5)
    for pad, drop, part, splits, runs in flags:
        yield "dq", backward.attention_dq_kernel, dict(
            base, HAS_PADDING=pad, HAS_DROPOUT=drop, HAS_PARTIAL=part, HAS_SPLITS=splits,
            ROW_RUNS=runs)
    for pad, drop, part, sched, column_runs in itertools.product([False, True], repeat=5):
        # (The launcher passes HAS_SPLITS only with the column schedule.)
        yield "dkdv", backward.attention_dkdv_kernel, dict(
            base, HAS_PADDING=pad, HAS_DROPOUT=drop, HAS_PARTIAL=part, SCHEDULED=sched,
            HAS_SPLITS=sched, COLUMN_RUNS=column_runs)
    for pad, drop, part, splits, runs, tma in itertools.product([False, True], repeat=6):
        for regs in ((0,) if runs else (0, 16)):
            yield "fwd", forward.attention_forward_kernel, dict(
                base, HAS_PADDING=pad, HAS_DROPOUT=drop, HAS_PARTIAL=part, HAS_SPLITS=splits,
                ROW_RUNS=runs, USE_TMA=tma, INDEX_REGS=regs)


def main() -> None:
    failed = done = 0
    start = time.time()
    for name, kernel, consts in variants():
        done += 1
        try:
            _compile_triton(kernel, consts, num_stages=2)
        except Exception as error:  # a compile error of any kind is the finding
            failed += 1
            flags = {k: v for k, v in consts.items()
                     if isinstance(v, bool) or k == "INDEX_REGS"}
            print("FAIL", name, flags, type(error).__name__,
                  str(error).splitlines()[-1][:200], flush=True)
    print(f"{done} variants, {failed} failed to compile, {time.time() - start:.0f} s",
          flush=True)


if __name__ == "__main__":
    main()
