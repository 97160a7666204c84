# Session 39, device call 6 (the same warm H200 as call 5): call 5's two dQ buffers again
# at D=64 only, three rounds, with local(3) and causal (as run, on one command line; the
# log went to $OUT as it stands).
source benchmarks/sessions/common.sh; BUDGET=150; step dq-bufs-d64 python -c "
from benchmarks.sessions import ab
from sparseflash.kernels import hopper_fused as f
launch = ab.kernels_of(None)
ab.backward_ab({'one buffer': (launch, ab.knob(f, 'DQ_BUFS', 1)), 'two buffers': (launch, ab.knob(f, 'DQ_BUFS', 2))},
               [(64, 'dense', 0.0), (64, 'sparse_transformer_strided', 0.0), (64, 'local(3)', 0.0), (64, 'causal', 0.0)], rounds=3, timer='cudagraph')
"; cat $LOGS/dq-bufs-d64.log | grep -v "^=="; cp $LOGS/dq-bufs-d64.log $OUT/
