# Session 29, device call 1: dropout in the ping-pong forward. The keep-mask, ping-pong
# dropout and choice tests, then the probe (forwards and fwd+bwd, one round each).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gpu-dropout python -m pytest -q -p no:cacheprovider -x \
    tests/test_gpu.py -k "keep_mask or pingpong_forward_with_dropout_against or gluon_forward_choice"
step probe python benchmarks/sessions/s29_dropout_fwd_probe.py --shape e6 short --rounds 1
pack
