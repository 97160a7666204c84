# Session 39, device call 5: two dQ buffers a consumer warp group against one
# (benchmarks/sessions/s39_dq_bufs_ab.py), in the session's last ~4 minutes of device time.
source benchmarks/sessions/common.sh
BUDGET=200
step dq-bufs python benchmarks/sessions/s39_dq_bufs_ab.py --rounds 2
grep -E "best|DIFFER" $LOGS/dq-bufs.log
tar -czf "$OUT/s39c5.tar.gz" -C $WORK logs/dq-bufs.log
