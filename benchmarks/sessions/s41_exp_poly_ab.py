"""Session 41: part of the fused backward's exponentials by a polynomial on the FMA units
(``hopper_fused.EXP_POLY``, ``hopper_exp2``) against all on the SFUs, from CUDA graphs.

    git apply benchmarks/sessions/s41_exp_poly.patch   # the knobs (not on main)
    python benchmarks/sessions/s41_exp_poly_ab.py [--rounds 2]

An SM computes 16 ``ex2.approx`` a clock: a D=64 tile's 128 x 128 exponentials of P^T take
1,024 clocks of its SFUs, a fifth of the 5,220-clock tile session 40's trace measured
(NOTES v42), where the two consumer warp groups' P^T phases overlap (warp group 0's from
S^T done to dP^T done took 1,636 clocks). The polynomial path is ~15 instructions an
element on the FMA and integer pipes, so a small share pays at most: by a model of one
SFU instruction (8 clocks of an SM quarter's SFU a warp) against 15 issue slots, about
1 in 7. Prediction: with 1 of 8 the dense D=64 backward 1-3% faster, D=128 (half the
exponentials a tile) 0-1%; 2 of 8 no better than 1 of 8. ptxas of Triton 3.6: no spills
added (12 bytes at D=64 with either, 0 at D=128; with dropout 252 and 272 against 280),
no serialised wgmma.

Result (call 2, an H200, ``benchmarks/results/NVIDIA-H200-exp-poly-s41.log``; NOTES v42):
the 44 fused-backward GPU tests against float64 passed with 2 of 8; best of four, sfu / 1
of 8 / 2 of 8: dense D=64 6.049 / 6.160 (-1.8%) / 6.192 ms (-2.3%), dense D=128 10.238 /
-0.4% / -1.0%, D=64 ``sparse_transformer_strided`` 1.135 / -3.0% / -1.6%, D=64
``local(3)`` 0.433 / -1.2% / +0.1%, D=64 ``causal`` 3.089 / -1.2% / -3.6%, D=128
``butterfly`` 0.801 / -0.9% / -0.5%, D=64 dense with dropout 0.1 10.023 / -7.4% / -7.1%
(every polynomial run slower than every SFU run). Refuted: the SFUs do not bind; the
issue slots the polynomial takes do. Not kept: the patch holds it.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "sparse_transformer_strided", 0.0),
             (64, "local(3)", 0.0), (64, "causal", 0.0), (128, "butterfly", 0.0),
             (64, "dense", 0.1)]
    ab.knob_ab_main(hopper_fused, "EXP_POLY", {"sfu": 0, "1 of 8": 1, "2 of 8": 2}, cases)


if __name__ == "__main__":
    main()
