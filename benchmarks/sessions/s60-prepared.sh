# Prepared, not run, twice: written in session 59 as s59-prepared.sh (two calls for a
# fourth machine were refused there and the device time was then spent); in session 60,
# fourteen calls found no machine (ten tried to start one, four were turned away while
# none was tried), spending 19 of the 30 minutes, before new loans were paused. Session
# 60 put the A/B first, packed its results before the sweep, read the budget from
# CALL_BUDGET and added the per-head step. The next session renames it to its own call
# and adds its result here.
# Session 59's call 3 found `local(1) | random(2)` at D=128 losing 15% of its
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
NOTE="sNN call M"  # the session and call that run it
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
# The A/B first: it alone can change the kernels' tables.
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
# Per-head layouts have never been timed on a GPU: the per-head layout of the A/B
# (four random draws over 16 heads) beside the broadcast one, forward and fwd+bwd.
# Prediction (session 60, from s59_l2_model.py: the per-head column schedule mixes the
# heads): the forwards within 5% of each other; the per-head fwd+bwd at least 5% slower
# at D=128 (68.4% of its column visits missed in the model, against ~20% broadcast), less
# at D=64.
PER_HEAD=$(python -c "from benchmarks.sessions.s59_l2_model import PER_HEAD; print(PER_HEAD)")
step per-head python -m benchmarks.attention --seq-lens 16384 --head-dims 64 128 \
    --modes fwd fwd+bwd --dtypes bfloat16 --methods sparseflash --timer cudagraph \
    --patterns "$PER_HEAD" "local(1) | random(2)" --out $RES/per-head.json \
    --note "$NOTE: per-head against broadcast"
grep -h "exit" $LOGS/*.log
pack
