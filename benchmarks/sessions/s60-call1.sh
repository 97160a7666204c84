# Session 60, call 1: prepared in session 59 as s59-prepared.sh (two calls for a fourth
# machine were refused there and the device time was then spent) and run here unchanged
# but for this header, the note and the
# order of its steps.
# Call 3 found `local(1) | random(2)` at D=128 losing 15% of its
# fwd+bwd rate from 16K to 64K tokens (B = 1) while its forward and `local(3)` did not.
# Guess: the backward's working set of one head (Q, dO and dQ's float32 sum: N x D x 8
# bytes, 64 MB at 64K and D=128) outgrows the 50 MB L2, and random blocks' query tiles are
# fetched from HBM; at D=64 it is 32 MB. Prediction: D=128 holds its 16K rate to 32K (32 MB)
# and falls at 48K (48 MB) and 64K; D=64 holds it to 64K and falls at 128K; `local(3)`
# (neighbouring tiles only) holds everywhere. Then the column orders that
# benchmarks/sessions/s59_l2_model.py says keep more tiles in L2, against the built
# (longest-first) one: benchmarks/sessions/s59_column_order_ab.py (its docstring has the
# prediction).
source benchmarks/sessions/common.sh
BUDGET=${CALL_BUDGET:-585}  # less when the session's device time is short
NOTE="s60 call 1"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
# The A/B first (moved up in session 60, after four refused calls had spent a third of
# the device time): it alone can change the kernels' tables.
step column-order python benchmarks/sessions/s59_column_order_ab.py --rounds 2
pack >/dev/null  # its results come back even if the sweep below runs out of time
step l2-d128 python -m benchmarks.attention --seq-lens 16384 32768 49152 65536 \
    --head-dims 128 --modes fwd+bwd --dtypes bfloat16 --methods sparseflash \
    --timer cudagraph --patterns "local(1) | random(2)" "local(3)" \
    --out $RES/l2-d128.json --note "$NOTE: rate against N"
step l2-d64 python -m benchmarks.attention --seq-lens 16384 65536 131072 \
    --head-dims 64 --modes fwd+bwd --dtypes bfloat16 --methods sparseflash \
    --timer cudagraph --patterns "local(1) | random(2)" "local(3)" \
    --out $RES/l2-d64.json --note "$NOTE: rate against N"
grep -h "exit" $LOGS/*.log
pack
