"""Session 50, compile only: dropout's draws made in registers in the ping-pong forward's
wgmma layout, each quad of threads trading Philox words among its four threads, against
``hopper_dropout``'s path through a shared buffer. Prints the two kernels' shared-memory
instructions and sizes (ptxas of the Triton in use, sm_90; no GPU needed).

    PYTHONPATH=. python benchmarks/sessions/s50_register_draws_probe.py
    PYTHONPATH=/tmp/t36:. python benchmarks/sessions/s50_register_draws_probe.py

(the second with Triton 3.6 unpacked at /tmp/t36, the device machine's Triton).

Why. Call 7 (``s50_philox_rounds_ab.py``) left half of what dropout adds to the D=64
forward outside Philox: the draws' trip through shared memory, the compares and selects,
and the switch to the ping-pong kernel. A Philox call serves eight keys of one query,
while the accumulator gives each thread two neighbouring keys of every group of eight for
two queries, and the four threads of a quad hold the same groups: each quad can compute
its 32 calls (8 a thread) and trade words within itself.

Result (Triton 3.6, and 3.9 alike): the exchange, a ``convert_layout`` between two
linear layouts, is lowered through shared memory: 8 ``STS.128`` and 8 ``LDSM.16.M88.4``,
the same as the buffer's path (less its one ``BAR.SYNC``), 752 instructions against 696
(704 under 3.9). Not pursued (NOTES v51).
"""

import collections
import os
import re
import sys
import warnings

import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

from sparseflash.kernels import hopper_dropout as hd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests"))
import test_hopper_compile  # noqa: E402  (the buffer path's test kernel, compiled)

# The (query, group, word) Philox words of a 64 x 128 score tile: computed with each
# quad's threads holding different groups and all four words of each ...
COMPUTED = gl.DistributedLinearLayout(
    reg_bases=[[0, 0, 1], [0, 0, 2], [8, 0, 0], [0, 4, 0], [0, 8, 0]],
    lane_bases=[[0, 1, 0], [0, 2, 0], [1, 0, 0], [2, 0, 0], [4, 0, 0]],
    warp_bases=[[16, 0, 0], [32, 0, 0]], block_bases=[], shape=[64, 16, 4])
# ... and read with each holding one word (two keys) of every group, as the accumulator.
READ = gl.DistributedLinearLayout(
    reg_bases=[[8, 0, 0], [0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0]],
    lane_bases=[[0, 0, 1], [0, 0, 2], [1, 0, 0], [2, 0, 0], [4, 0, 0]],
    warp_bases=[[16, 0, 0], [32, 0, 0]], block_bases=[], shape=[64, 16, 4])


@gluon.jit
def register_keep_kernel(OUT, SEED, bh, key_start, q_start, threshold):
    """OUT (64, 128) int8: the keep mask of queries ``q_start + arange(64)`` and keys
    ``key_start + arange(128)``, drawn in registers and read in the accumulator's layout."""
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, 128, 16])
    computed: gl.constexpr = COMPUTED
    calls: gl.constexpr = gl.SliceLayout(2, computed)
    k0, k1 = hd.seed_halves(SEED)
    queries = q_start + gl.arange(0, 64, layout=gl.SliceLayout(1, calls))
    groups = key_start // 8 + gl.arange(0, 16, layout=gl.SliceLayout(0, calls))
    zero = gl.zeros([64, 16], gl.uint32, calls)
    w0, w1, w2, w3 = hd.philox(k0, k1, zero + gl.expand_dims(groups, 0).to(gl.uint32),
                               zero + gl.expand_dims(queries, 1).to(gl.uint32),
                               zero + bh.to(gl.uint32), zero)
    words = gl.reshape(gl.join(gl.join(w0, w2), gl.join(w1, w3)), [64, 16, 4])
    words = gl.convert_layout(gl.convert_layout(words, computed), READ)
    words = gl.reshape(words, [64, 64])   # word m: keys 2m (low half) and 2m + 1
    limit = threshold.to(gl.uint32)
    keep = gl.reshape(gl.join((words & 0xFFFF) >= limit, (words >> 16) >= limit), [64, 128])
    keep = gl.convert_layout(keep, s_layout)
    rows = gl.arange(0, 64, layout=gl.SliceLayout(1, s_layout))
    cols = gl.arange(0, 128, layout=gl.SliceLayout(0, s_layout))
    gl.store(OUT + gl.expand_dims(rows, 1) * 128 + gl.expand_dims(cols, 0), keep.to(gl.int8))


def _report(name, kernel):
    sass = test_hopper_compile._sass(kernel.asm["cubin"])
    if sass is None:
        raise SystemExit("no cuobjdump beside Triton's ptxas")
    memory = collections.Counter(re.findall(r"\b(LDS[A-Z0-9.]*|STS[A-Z0-9.]*|SHFL[A-Z0-9.]*|"
                                            r"BAR[A-Z0-9.]*)", sass))
    count = len(re.findall(r"/\*[0-9a-f]{4,}\*/\s+[A-Z@]", sass))
    print(f"{name}: {count} instructions, shared {kernel.metadata.shared} bytes, "
          f"{dict(memory)}")


def main():
    sig = {"OUT": "*i8", "SEED": "*i64", "bh": "i32", "key_start": "i32", "q_start": "i32",
           "threshold": "i32"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        registers = triton.compile(GluonASTSource(register_keep_kernel, sig, {}),
                                   target=GPUTarget("cuda", 90, 128), options=dict(num_warps=4))
    print(f"Triton {triton.__version__}")
    _report("draws traded within quads", registers)
    _report("draws through the shared buffer", test_hopper_compile._compile_keep_mask(
        64, keys_first=False))


if __name__ == "__main__":
    main()
