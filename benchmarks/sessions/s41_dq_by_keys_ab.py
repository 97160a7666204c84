"""Session 41: each consumer warp group's keys' share of dQ, all columns
(``hopper_fused.DQ_BY_KEYS``), against its columns of the whole sum after the dS exchange,
from CUDA graphs.

    git apply benchmarks/sessions/s41_dq_by_keys.patch   # the knob (not on main)
    python benchmarks/sessions/s41_dq_by_keys_ab.py [--rounds 2]

Session 40's clock trace of the fused backward (H200, bf16, N=16K, dense; NOTES v42) had
warp group 0 wait at the dS exchange 703 cycles of a 5,220-cycle tile at D=64 (warp group
1: 115) and 342 of 4,060 at D=128 (1: 104): warp group 1 runs behind (its S^T done 753
cycles into the tile against 389), and the exchange pulls the two back into step every
tile. With ``DQ_BY_KEYS`` each warp group computes ``dS[:, its 64 keys] K[its keys]``
(BLOCK_M x D, the same flops) and hands it to the dQ adder, which adds both into the same
rows: no exchange, one dS buffer instead of two, but 64 float32 registers a thread for
dQ's tile instead of 32 and twice the bytes reduced into dQ's accumulator (at D=64 dense
about 2.8 TB/s of reductions into L2 across the GPU instead of 1.4).

Prediction: the warp groups drift apart and each one's elementwise work overlaps the
other's products; the backward 3-8% faster on dense D=64 and 2-5% at D=128, unless the
reductions' L2 traffic binds. ptxas of Triton 3.6 (sm_90a): spills 36 bytes against 12 on
dense D=64, none at D=128; with partial blocks at D=64 it serialises the wgmma (so those
cases stay off the knob whatever it measures); with dropout 560 bytes against 280 at D=64,
172 against 16 at D=128. Shared memory 199,200 bytes at D=64 (199,232), 214,560 at D=128
(198,208).

Result (call 1, an H200, ``benchmarks/results/NVIDIA-H200-dq-by-keys-s41.log``; NOTES
v42): the 44 fused-backward GPU tests against float64 passed with the knob on; dK and dV
bit for bit in every run; best of four, by keys against the exchange: dense D=64 6.363
against 6.019 ms (-5.4%), D=128 11.535 against 10.111 (-12.3%),
``sparse_transformer_strided`` -6.6% (D=64) and -12.5% (D=128), D=64 ``local(3)`` -4.3%,
D=128 ``butterfly`` -12.8%, dense with dropout 0.1 -19.9% (D=64) and -9.8% (D=128).
Refuted, and slowest where the reductions are widest (D=128). Not kept: the patch holds
it.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "sparse_transformer_strided", 0.0),
             (128, "sparse_transformer_strided", 0.0), (64, "local(3)", 0.0),
             (128, "butterfly", 0.0), (64, "dense", 0.1), (128, "dense", 0.1)]
    ab.knob_ab_main(hopper_fused, "DQ_BY_KEYS", {"exchange": False, "by keys": True}, cases)


if __name__ == "__main__":
    main()
