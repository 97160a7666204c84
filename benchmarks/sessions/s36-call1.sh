# Session 36, device call 1 (4 GPUs): main's fused backward, as landed in session 35 (the
# tile loop's views), against float64 with dropout and in float16 (GPU 0); the persistent
# fused backward of branch s35-persistent-views, exported to s36_persistent/ (present on
# the GPU machine only for this call), against float64 (GPUs 1 and 2); and the two
# alternating in one process (GPU 3, s36_persistent_ab.py).
source benchmarks/sessions/common.sh
BUDGET=500
PYTEST="python -m pytest -q -p no:cacheprovider"
CUDA_VISIBLE_DEVICES=0 step checks-main $PYTEST tests/test_gpu.py \
    -k "fused_backward_against or fused_backward_with_dropout or dq_cast" &
(cd s36_persistent && CUDA_VISIBLE_DEVICES=1 PYTHONPATH=$PWD step checks-persistent-a $PYTEST \
    tests/test_gpu.py -k "fused_backward_against or dq_cast") &
(cd s36_persistent && CUDA_VISIBLE_DEVICES=2 PYTHONPATH=$PWD step checks-persistent-b $PYTEST \
    tests/test_gpu.py -k "programs or fused_backward_with_dropout") &
CUDA_VISIBLE_DEVICES=3 step persistent-ab python benchmarks/sessions/s36_persistent_ab.py \
    s36_persistent --rounds 2 &
wait
tail -n 3 $LOGS/checks-*.log
grep -E "best|DIFFER" $LOGS/persistent-ab.log
pack
