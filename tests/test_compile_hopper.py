"""The forward kernel compiles for Hopper (sm_90) on this CPU-only machine: Triton targets a
named architecture with the ptxas it ships. The interpreter runs the kernels' semantics;
this catches what only the compiler sees (layouts, dropout's join/reshape, pipelining)
before GPU time is spent. ``python -m benchmarks.compile_probe`` prints the full counts.

The probe runs in a subprocess without TRITON_INTERPRET (under it, @triton.jit gives
interpreted functions, which do not compile)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("triton.backends.nvidia")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def counts():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.compile_probe", "--json", "--block-m", "64",
         "--block-n", "64", "--stages", "2"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_variant_compiles_to_hopper_mma(counts):
    assert set(counts) == {"plain", "dropout", "padding", "dropout+padding"}
    for name, c in counts.items():
        assert c.get("wgmma.mma_async", 0) > 0, name


def test_philox_only_with_dropout(counts):
    for name, c in counts.items():
        assert (c.get("mul.hi.u32", 0) > 0) == ("dropout" in name), name


def test_plain_kernel_streams_kv_through_async_copies(counts):
    """Software pipelining of the K/V loads (with padding too since v7, when the per-block
    skip became a shorter walk; benchmarks/NOTES.md)."""
    assert counts["plain"].get("cp.async.commit_group", 0) > 0


def _probe(*args):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-m", "benchmarks.compile_probe", "--json",
                           "--plain-only", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])["plain"]


def test_tma_forward_loads_kv_with_the_copy_engine():
    """With tensor descriptors, K and V arrive by bulk tensor copies instead of the
    per-thread asynchronous copies of the pointer version (the few left are the block
    tables' entries)."""
    tma, plain = _probe("--tma"), _probe()
    assert tma.get("cp.async.bulk.tensor", 0) > 0 and plain.get("cp.async.bulk.tensor", 0) == 0
    assert tma.get("cp.async.commit_group", 0) < plain["cp.async.commit_group"] / 2


_SPLIT_KERNELS_PROBE = """
import json, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from sparseflash.kernels.backward import sum_split_rows_kernel
from sparseflash.kernels.forward import merge_split_rows_kernel
from sparseflash.kernels.hopper_fused import delta_kernel, dq_cast_kernel
from sparseflash.kernels.launch import SPLIT_TILE_ROWS
found = {}
def ptx_of(kernel, pointers, consts):
    sig = {name: "i32" for name in kernel.arg_names}
    sig.update(pointers, **dict.fromkeys(consts, "constexpr"))
    return triton.compile(ASTSource(kernel, sig, consts), target=GPUTarget("cuda", 90, 128),
                          options=dict(num_warps=4)).asm["ptx"]
tables = dict(SPLIT_SLOTS="*i32", SPLIT_ROWS="*i32")
split = dict(LAYOUT_BLOCK=128, BLOCK_M=SPLIT_TILE_ROWS, BLOCK_D=128)
for name, kernel, pointers, consts in (
        ("merge", merge_split_rows_kernel,
         dict(WS_O="*fp32", WS_LSE="*fp32", O="*bf16", LSE="*fp32", **tables), split),
        ("sum", sum_split_rows_kernel,
         dict(WS="*fp32", OUT="*bf16", WS_2="*fp32", OUT_2="*bf16", **tables),
         dict(split, PAIR=False, PDL=False)),
        ("sum_pair_pdl", sum_split_rows_kernel,
         dict(WS="*fp32", OUT="*bf16", WS_2="*fp32", OUT_2="*bf16", **tables),
         dict(split, PAIR=True, PDL=True)),
        ("delta_pdl", delta_kernel,
         dict(O="*bf16", DO="*bf16", DELTA="*fp32", DQ_ACC="*fp32", scale="fp32"),
         dict(D=128, BLOCK_M=64, REVERSED=True, PDL=True)),
        ("cast_pdl", dq_cast_kernel, dict(DQ_ACC="*fp32", DQ="*bf16"),
         dict(D=128, BLOCK_M=64, REVERSED=True, PDL=True))):
    ptx = ptx_of(kernel, pointers, consts)
    found[name] = [ptx.count(op) for op in ("cp.async", "griddepcontrol.wait",
                                            "griddepcontrol.launch_dependents")]
print(json.dumps(found))
"""


def test_split_row_kernels_pipeline_their_chunk_loads():
    """The merge (forward) and split-sum (backward) kernels load each chunk's slot and rows
    ahead by asynchronous copies (``tl.range`` with stages): a plain loop waited for two
    dependent loads a chunk, 15-20 us a launch on an H200 (benchmarks/NOTES.md, v23).
    Launched by programmatic dependent launch (``PDL``), the sum (dK and dV in one launch)
    and dQ's cast wait for the grid before them, and the delta kernel and the cast let
    the next one launch; without ``PDL`` none of them has the instructions."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", _SPLIT_KERNELS_PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["merge"][0] > 0 and found["sum"][0] > 0 and found["sum_pair_pdl"][0] > 0, found
    assert found["merge"][1:] == [0, 0] and found["sum"][1:] == [0, 0], found
    assert found["sum_pair_pdl"][1:] == [1, 0], found
    assert found["delta_pdl"][1:] == [0, 1] and found["cast_pdl"][1:] == [1, 1], found
