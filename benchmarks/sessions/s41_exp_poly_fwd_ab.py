"""Session 41: part of the D=64 Gluon forward's exponentials by a polynomial on the FMA
units (``hopper.EXP_POLY``, ``hopper_exp2``) against all on the SFUs, from CUDA graphs.

    git apply benchmarks/sessions/s41_exp_poly.patch   # the knobs (not on main)
    python benchmarks/sessions/s41_exp_poly_fwd_ab.py [--rounds 2]

The forward's 128 x 128 tile at D=64 has as many clocks of SFU work (16,384
exponentials at 16 a clock: 1,024) as of tensor-core work at peak (two products, 4.2
MFLOP at 4,096 a clock), so if the SFUs bind anywhere it is here. In the fused backward
(call 2, ``s41_exp_poly_ab.py``) 1 or 2 of 8 by the polynomial were 0.4-3.6% slower.
Prediction: within ±2%, most likely slower, as in the backward (the issue slots the
polynomial takes are the forward's softmax's too). ptxas of Triton 3.6: no spills with 1
of 8 (8 bytes with 2 on row runs), no serialised wgmma.

Result (call 3, an H200, ``benchmarks/results/NVIDIA-H200-exp-poly-fwd-s41.log``; NOTES
v42): ``hopper_exp2``'s tests passed on the GPU (the inline PTX within 3e-7 of 2^x, the
asked share through the polynomial), and the 26 Gluon-forward GPU tests against float64
with 2 of 8; best of four, sfu / 1 of 8 / 2 of 8: dense 2.221 / 2.477 (-10.3%) / 2.618 ms
(-15.2%), ``local(3)`` 0.146 / -8.3% / -11.2%, ``butterfly`` 0.162 / -5.7% / -10.9%,
random+global 0.156 / -5.5% / -10.9%. Refuted, more than in the backward. Not kept.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper


def main():
    cases = [(64, "dense", 0.0), (64, "local(3)", 0.0), (64, "butterfly", 0.0),
             (64, "local(1) | global(1) | random(2)", 0.0)]
    ab.knob_ab_main(hopper, "EXP_POLY", {"sfu": 0, "1 of 8": 1, "2 of 8": 2}, cases, forward=True)


if __name__ == "__main__":
    main()
