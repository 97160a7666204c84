"""Session 41: the early dK product taking dS^T from registers, issued before dS is
stored for the exchange (``hopper_fused.DK_FROM_REGISTERS``), against taking it from
shared memory after the store and its fence, from CUDA graphs.

    git apply benchmarks/sessions/s41_dk_registers.patch   # the knob (not on main)
    python benchmarks/sessions/s41_dk_registers_ab.py [--rounds 2]

Session 41's trace (NOTES v42) has the dS phase (dP^T done to dS stored, with dK issued
after the store's ``fence.proxy.async``) take ~870-910 cycles of a D=64 tile and ~730-750
of a D=128 one, and warp group 0 then wait ~710 / ~340 at the exchange. With dS^T as the
register operand of dK's wgmma (as P^T is dV's), dK starts before the store and the
fence, so the tensor cores get it earlier. The registers are held until the tile's last
wait (+32 a thread). Prediction: 0-2% off the backward at D=64, less at D=128. A tile
is not bound by its products, so an earlier dK helps only if the dQ product that follows
it starts sooner. ptxas of Triton 3.6: no serialised wgmma, spills 12 bytes at dense D=64
(12 before), 0 at D=128, 56 against 80 with partial blocks at D=64, 256 against 280 with
dropout.

Result (call 6, an H200, ``benchmarks/results/NVIDIA-H200-dk-registers-s41.log``; NOTES
v42): the 16 bf16 fused-backward GPU tests without dropout against float64 passed with
it on; dK and dV bit for bit in every run; best of four, registers against shared: dense
D=64 5.991 against 6.013 ms (+0.4%), dense D=128 9.983 against 9.953 (-0.3%),
``sparse_transformer_strided`` D=64 -0.8%, ``causal`` D=64 -1.2%, dense D=64 with dropout
0.1 -2.4%. Refuted: no gain, and a loss where the tile has more besides its products.
Not kept: the patch holds it.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "sparse_transformer_strided", 0.0),
             (64, "causal", 0.0), (64, "dense", 0.1)]
    ab.knob_ab_main(hopper_fused, "DK_FROM_REGISTERS", {"shared": False, "registers": True}, cases)


if __name__ == "__main__":
    main()
