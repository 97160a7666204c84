"""Session 39: two dQ buffers a consumer warp group in the fused backward
(``hopper_fused.DQ_BUFS = 2``) against one, from CUDA graphs, without dropout.

    python benchmarks/sessions/s39_dq_bufs_ab.py [--rounds 2]

Each consumer warp group stores a tile's dQ columns into its buffer once the dQ adder's
TMA reduction of the tile before has read it (``dq_empty``). Prediction: that reduction
was issued a whole tile earlier (~2-3 us for 16-32 KB), so the wait is rarely long: within
±0.5%. Shared memory: 232,032 bytes at D=64 and 231,008 at D=128 with two buffers (ptxas
of Triton 3.6, against 199,232 and 198,208), under the 232,448 an H100/H200 block may
have; with dropout it would not fit (264,832), so the cases run without.

Result (calls 5 and 6, an H200, ``benchmarks/results/NVIDIA-H200-dq-bufs-s39.log``; NOTES
v41; dK and dV bit for bit in every run): call 5, best of four, dense D=64 +1.4%, D=128
-1.9%, ``sparse_transformer_strided`` +0.8% (D=64) and -2.6% (D=128); call 6, D=64 only,
best of six: dense -0.1%, ``sparse_transformer_strided`` +1.1%, ``local(3)`` +0.3%,
``causal`` +0.3%. As predicted at D=64 (within the runs' swing), slower at D=128. Not kept.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "sparse_transformer_strided", 0.0),
             (128, "sparse_transformer_strided", 0.0)]
    ab.knob_ab_main(hopper_fused, "DQ_BUFS", {"one buffer": 1, "two buffers": 2}, cases)


if __name__ == "__main__":
    main()
