"""Session 43: the dQ hand-offs between each consumer warp group and the dQ warp on named
hardware barriers of their 160 threads (``bar.arrive`` by the side that signals,
``bar.sync`` by the side that waits; ``hopper_fused.NAMED_DQ``) against the ``dq_ready``
and ``dq_empty`` mbarriers, from CUDA graphs.

    python benchmarks/sessions/s43_named_dq_ab.py [--rounds 2]

A consumer's dQ hand-off was a try-wait loop on ``dq_empty``, then the stores, then an
mbarrier arrive with a partition barrier before it; Gluon's barrier analysis also put a
partition barrier before the next tile's wait on its Q/dO slot. On named barriers the
consumer's side is a ``bar.sync`` (skipped on the first tile) and a ``bar.arrive``, which
does not wait; the dQ warp's is a ``bar.sync`` before each reduction and a ``bar.arrive``
once the reduction has read the buffer (FlashAttention-3's backward hands dQ over the
same way). ptxas of Triton 3.6, sm_90a: 2,800 -> 2,800 instructions at D=64 (SYNCS
43 -> 31, BAR 40 -> 42, of which 4 BAR.ARV), 3,056 -> 3,072 at D=128; spills 16 -> 4 bytes
at D=64, none at D=128. The PTX loses two of the five partition barriers a consumer
partition has a tile. Prediction: 0-1% off the backward.

This ran in call 2 with the knob applying to every call. Since call 4 it applies to calls
with dropout only (``hopper_fused.named_dq``), so on later trees the cases without
dropout here time the same kernel twice.
"""

from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused


def main():
    cases = [(64, "dense", 0.0), (128, "dense", 0.0), (64, "sparse_transformer_strided", 0.0),
             (128, "local(3)", 0.0), (64, "dense", 0.1)]
    ab.knob_ab_main(hopper_fused, "NAMED_DQ", {"mbarriers": False, "named": True}, cases)


if __name__ == "__main__":
    main()
