# Helpers for the session scripts beside this file: each is one call to a 4-GPU machine
# that runs kernel checks and benchmarks on some GPUs and LRA training on the others, in
# parallel, and packs every result and log into one archive under $OUT.
#
#   bash benchmarks/sessions/<script>.sh     (from the repository root; $OUT set)
set -u
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=8
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/sparseflash-out}
WORK=/tmp/session
RES=$WORK/results      # JSON/CSV/PNG of every job (one file per job: no shared writes)
LOGS=$WORK/logs
mkdir -p "$RES" "$LOGS" "$OUT"
START=$(date +%s)
BUDGET=${BUDGET:-570}  # seconds: every job ends by then, leaving time to pack

# left: seconds until the budget is spent (at least 1)
left() { local l=$((START + BUDGET - $(date +%s))); echo $((l > 1 ? l : 1)); }

# step NAME CMD...: run CMD with what is left of the budget, log to $LOGS/NAME.log
step() {
    local name=$1; shift
    echo "== $(date +%T) $name: $*" | tee -a "$LOGS/$name.log"
    timeout "$(left)" "$@" >>"$LOGS/$name.log" 2>&1
    local rc=$?  # before $(date) below resets $? (logs before session 5 always said 0)
    echo "== $(date +%T) $name exit $rc" | tee -a "$LOGS/$name.log"
}

# knob_checks NAME MODULE KNOB VALUE KEXPR: tests/test_gpu.py's tests that KEXPR selects
# (pytest -k) with sparseflash.kernels.MODULE.KNOB = VALUE, as step NAME; then its tail.
knob_checks() {
    step $1 python -c "
import sys, pytest
from sparseflash.kernels import $2 as module
module.$3 = $4
sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py', '-k', '$5']))"
    tail -3 $LOGS/$1.log
}

# d64_forward_checks: as step `checks`, the 46 D=64 forward GPU tests against float64 that
# sessions 52-54 ran on every change to hopper's own D=64 forward (~3 minutes).
d64_forward_checks() {
    step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k \
        "(gluon_forward_against or own_forward_filling or d64_forward_choice or test_against_float64) and D64 and not test_tma"
}

# gpu_suite: the whole GPU suite (tests/test_gpu.py, against float64) as step gpu-suite,
# in eight pytest-xdist workers that share the GPU so that its compiles, most of its time,
# run in parallel (4 minutes on an H100 in session 58, about 30 serially); then its tail.
gpu_suite() {
    step gpu-suite python -m pytest -q -p no:cacheprovider -n 8 --durations=10 tests/test_gpu.py
    tail -3 $LOGS/gpu-suite.log
}

# forward_stall_sites: Nsight Compute's source page (warp stall samples by SASS instruction)
# of hopper's own D=64 forward on s53_ncu_issue.py's cases, saved as $RES/source.csv.gz and
# summarised by s54_stall_sites.py as step `sites` (where its long-scoreboard stalls sit).
forward_stall_sites() {
    local ncu
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
    step ncu "$ncu" --clock-control none --profile-from-start off \
        --kernel-name regex:"hopper_forward_kernel" \
        --section WarpStateStats --section SourceCounters --import-source yes \
        -o $RES/sass python benchmarks/sessions/s53_ncu_issue.py
    step source "$ncu" --import $RES/sass.ncu-rep --page source --print-source sass --csv
    cp $LOGS/source.log $RES/source.csv
    step sites python benchmarks/sessions/s54_stall_sites.py $RES/source.csv 30
    cat $LOGS/sites.log
    rm -f $RES/sass.ncu-rep
}

# The LRA harness as the session scripts run it (one data, checkpoint and results folder per
# call), and the Pathfinder-32 recipe of the Nystromformer paper's LRA code (Xiong et al.
# 2021, lra_config.py: 2 layers, lr 1e-4, batch 256, 312 warmup steps, linear decay,
# 62,400 steps) that sessions 5 and 6 started from; a script adds its variant's --set's.
LRA_ARGS="--no-progress --out-dir $RES --data-dir $WORK/data --ckpt-dir $WORK/ckpt"
LRA="python -m benchmarks.lra --config full $LRA_ARGS"
NYS=(--task pathfinder32 --set num_layers=2 --set lr=1e-4 --set batch_size=256
     --set eval_batch_size=256 --set steps=62400 --set warmup_steps=312 --set schedule=linear
     --set eval_interval=624 --set checkpoint_interval=624)

# lra_data TASK [CONFIG]: build TASK's splits once into $WORK/data (on GPU 0), before the
# runs that share them start (the cache is read-only once written).
lra_data() {
    step data-$1 python -c "
from benchmarks.lra import configs, train
train.load_data(configs.get_config('$1', '${2:-full}'), data_dir='$WORK/data', progress=False,
                device=__import__('torch').device('cuda'))"
}
pathfinder32_data() { lra_data pathfinder32; }

# old_tree TAR: unpack an older tree (its sparseflash and benchmarks) into $OLD for an A/B
# run and print which package each side imports. Run the old side with `old NAME CMD...`:
# a step from $OLD's directory (`python -m` puts the working directory first on sys.path,
# so PYTHONPATH alone would import this tree's package).
old_tree() {
    OLD=/tmp/old-tree
    mkdir -p $OLD && tar -xf "$1" -C $OLD
    python -c "import sparseflash; print('new tree:', sparseflash.__file__)"
    (cd $OLD && PYTHONPATH=$OLD python -c "import sparseflash; print('old tree:', sparseflash.__file__)")
}
old() { (cd $OLD && PYTHONPATH=$OLD step "$@"); }

# The README's speed tables: its five headline patterns, and the sparse-efficiency ones.
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
MORE_PATTERNS=("strided(sqrt(n))" "chunk(8)" "local(1)" bigbird sparse_transformer_strided)

# attention_step NAME METHODS... -- ARGS...: one benchmarks.attention process at the
# README's shape (16K tokens, fwd and fwd+bwd, bf16), its rows in $RES/NAME.json, its
# note "$NOTE: NAME in its own process" (a script sets NOTE to name its call).
attention_step() {
    local name=$1; shift
    local methods=(); while [ "$1" != "--" ]; do methods+=("$1"); shift; done; shift
    step $name python -m benchmarks.attention --seq-lens 16384 --modes fwd fwd+bwd \
        --dtypes bfloat16 --methods "${methods[@]}" --out $RES/$name.json "$@" \
        --note "$NOTE: $name in its own process"
}

# graph_tables D [DTYPE]: the README's CUDA-graph table at head dim D (all ten patterns;
# in DTYPE, bfloat16 unless given), sparseflash and the peers in processes of their own.
# event_tables D: its do_bench table (the five headline patterns), likewise.
graph_tables() {
    local dtype=${2:-bfloat16} suffix=""
    if [ "$dtype" != bfloat16 ]; then suffix=-$dtype; fi
    attention_step sf-d$1-graph$suffix sparseflash -- --head-dims $1 --timer cudagraph \
        --dtypes $dtype --patterns "${PATTERNS[@]}" "${MORE_PATTERNS[@]}"
    attention_step peers-d$1-graph$suffix flex sdpa-cudnn -- --head-dims $1 \
        --timer cudagraph --dtypes $dtype --patterns "${PATTERNS[@]}" "${MORE_PATTERNS[@]}"
}
# all_graph_tables: graph_tables at D=64 and D=128 in bfloat16, then both in float16.
all_graph_tables() {
    local args
    for args in "64" "128" "64 float16" "128 float16"; do
        graph_tables $args
    done
}
event_tables() {
    attention_step sf-d$1-events sparseflash -- --head-dims $1 --patterns "${PATTERNS[@]}"
    attention_step peers-d$1-events flex sdpa-cudnn -- --head-dims $1 \
        --patterns "${PATTERNS[@]}"
}

# length_sweep DTYPE: the five headline patterns at N = 1K, 4K and 64K (16K tokens a call)
# at D=64 and then D=128 in DTYPE from CUDA graphs, sparseflash and the peers in processes
# of their own: the README's speed-against-N points beside graph_tables' 16K ones.
length_sweep() {
    local prefix=sweep d methods
    if [ "$1" != bfloat16 ]; then prefix=sweep-fp16; fi
    for d in 64 128; do
        for methods in sparseflash "flex sdpa-cudnn"; do
            step $prefix-d$d-${methods%% *} python -m benchmarks.attention \
                --seq-lens 1024 4096 65536 --head-dims $d --modes fwd fwd+bwd \
                --dtypes $1 --methods $methods --timer cudagraph \
                --patterns "${PATTERNS[@]}" --out $RES/$prefix-d$d-${methods%% *}.json \
                --note "$NOTE: N sweep, $methods"
        done
    done
}

# pack: results, logs and the paths under $WORK named in EXTRA (e.g. `EXTRA=ckpt pack`)
# into $OUT/session.tar.gz. Names in EXTRA that are not there are skipped: sessions 26 and
# 31 used EXTRA for a list of patterns, which tar then failed to find.
pack() {
    nvidia-smi >"$LOGS/nvidia-smi.txt" 2>&1
    local extra=() path
    for path in ${EXTRA:-}; do
        if [ -e "$WORK/$path" ]; then extra+=("$path"); fi
    done
    tar -czf "$OUT/session.tar.gz" -C "$WORK" results logs "${extra[@]}"
    ls -la "$OUT"
}
