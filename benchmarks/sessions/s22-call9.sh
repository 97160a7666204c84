# Session 22, device call 9 (nvidia-h200, one GPU): source-level warp stall samples of the
# D=128 dense fused backward and the D=64 dense forward (s22_ncu_probe.py's cases, the
# D=128 local(3) case left out by the kernel filter's launch count), summarised per SASS
# instruction by s22_sass_hot.py.
source benchmarks/sessions/common.sh
NCU=/usr/local/cuda/bin/ncu
step ncu $NCU --clock-control none --profile-from-start off \
    --kernel-name regex:"hopper_fused_backward_kernel|hopper_forward_kernel" --launch-count 3 \
    --section WarpStateStats --section SourceCounters --import-source yes \
    -o $RES/sass python benchmarks/sessions/s22_ncu_probe.py
step source $NCU --import $RES/sass.ncu-rep --page source --print-source sass --csv
cp $LOGS/source.log $RES/source.csv
step hot python benchmarks/sessions/s22_sass_hot.py $RES/source.csv 45
pack
