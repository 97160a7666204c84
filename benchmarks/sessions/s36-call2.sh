# Session 36, device call 2 (4 GPUs): the README's tables, CUDA graphs (GPUs 0, 1) and
# do_bench (GPUs 2, 3), at D=64 and D=128, of the tree $TREE (. for main, s36_persistent
# for the persistent fused backward, present on the GPU machine only for this session).
source benchmarks/sessions/common.sh
BUDGET=560
TREE=${TREE:-.}
NOTE="s36 call 2, ${TREE_NOTE:-main}"
cd "$TREE" && export PYTHONPATH=$PWD
python -c "import sparseflash; print('tree:', sparseflash.__file__)"
CUDA_VISIBLE_DEVICES=0 graph_tables 64 &
CUDA_VISIBLE_DEVICES=1 graph_tables 128 &
CUDA_VISIBLE_DEVICES=2 event_tables 64 &
CUDA_VISIBLE_DEVICES=3 event_tables 128 &
wait
grep -h "exit" $LOGS/*.log
pack
