#!/usr/bin/env bash
# Regenerate tests/kernels/X.ptx from X.cu. The tests read the checked-in .ptx (CI does not run nvcc).
# Usage: tests/kernels/build.sh [X.cu ...]     (default: every .cu in this folder)
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    files=(*.cu)
fi
for cu in "${files[@]}"; do
    cu=$(basename "$cu")
    ptx="${cu%.cu}.ptx"
    echo "$NVCC -ptx -arch=sm_90 -lineinfo -O3 $cu -o $ptx"
    "$NVCC" -ptx -arch=sm_90 -lineinfo -O3 "$cu" -o "$ptx"
done
