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

