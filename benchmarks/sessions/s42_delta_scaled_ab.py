"""Session 42: the backward's delta scaled by the softmax scale in the delta kernel
(``hopper_fused.DELTA_SCALED``), so that each consumer computes ``dS^T = P^T * (dP^T *
sm_scale - delta')`` (an FFMA and an FMUL an element) instead of ``P^T * (dP^T - delta)
* sm_scale`` (an FADD and two FMULs), from CUDA graphs.

    python benchmarks/sessions/s42_delta_scaled_ab.py [--rounds 3]

Session 41's trace (NOTES v42) has the dS phase of a D=64 tile (dP^T done to dS stored)
take ~870-910 cycles for ~264 instructions a warp, and the exponentials by a polynomial
(more FMA-pipe instructions for fewer MUFU ones) measured slower: issue slots, not the
special-function units, seemed to bind. ptxas of Triton 3.6 (sm_90a): 64 fewer
instructions a consumer partition a tile at D=64 (2,936 -> 2,808 in the whole kernel,
FADD 128 -> 0, FMUL 256 -> 128, FFMA 128 -> 256), 32 fewer at D=128 (3,136 -> 3,072);
spills unchanged (12 bytes at D=64, 0 at D=128). Prediction: 0-2% off the D=64 backward
if those slots sit on the tile's critical path (the dS phase precedes the exchange every
tile), less at D=128. At D=64 the scale (1/8) is a power of two, so dQ, dK and dV should
come out bit for bit the same; at D=128 they round differently.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "sparse_transformer_strided", 0.0),
             (64, "local(3)", 0.0), (128, "local(3)", 0.0), (64, "dense", 0.1)]
    ab.knob_ab_main(hopper_fused, "DELTA_SCALED", {"unscaled": False, "scaled": True}, cases)


if __name__ == "__main__":
    main()
