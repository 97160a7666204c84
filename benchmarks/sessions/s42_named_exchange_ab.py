"""Session 42: the consumer warp groups' dS exchange on a named hardware barrier of their
256 threads (``bar.sync 8, 256``, ``hopper_fused.NAMED_EXCHANGE``) against the
``ds_full`` mbarriers, from CUDA graphs.

    python benchmarks/sessions/s42_named_exchange_ab.py [--rounds 2]

Each mbarrier arrive in a Gluon partition comes with a partition barrier before it and
another before the next shared-memory access (Gluon's barrier analysis); the exchange
was an arrive, that barrier pair and a try-wait loop a tile in each consumer partition.
On the named barrier it is one ``bar.sync`` (FlashAttention-3's backward meets its warp
groups the same way). ptxas of Triton 3.6: the whole kernel 2,808 -> 2,792 instructions
at D=64 (BAR 42 -> 40, SYNCS 49 -> 43), 3,072 -> 3,056 at D=128; spills 12 -> 16 bytes at
D=64, none at D=128. Prediction: 0-1% off the backward (a few tens of cycles of a
~5,200-cycle tile), more if the barriers' skew is larger than it looks.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "sparse_transformer_strided", 0.0),
             (128, "local(3)", 0.0), (64, "dense", 0.1)]
    ab.knob_ab_main(hopper_fused, "NAMED_EXCHANGE", {"mbarriers": False, "named": True}, cases)


if __name__ == "__main__":
    main()
