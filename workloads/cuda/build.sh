#!/usr/bin/env bash
# Regenerate workloads/ptx/X.ptx from workloads/cuda/X.cu. The workloads read the checked-in .ptx (CI does
# not run nvcc). Usage: workloads/cuda/build.sh [X.cu ...]     (default: every .cu in this folder)
# Flags as tests/kernels/build.sh: PTX for sm_90 with line info, -O3 (CUDA 13.0 gives PTX ISA 9.0).
# Kernels are extern "C" (plain names) and device functions __forceinline__ (isa.parse takes no .func).
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    files=(*.cu)
fi
for cu in "${files[@]}"; do
    cu=$(basename "$cu")
    ptx="../ptx/${cu%.cu}.ptx"
    echo "$NVCC -ptx -arch=sm_90 -lineinfo -O3 $cu -o $ptx"
    "$NVCC" -ptx -arch=sm_90 -lineinfo -O3 "$cu" -o "$ptx"
    # the absolute source path nvcc records in .file: make it relative so the PTX does not depend on the checkout
    sed -i "s|\"$(pwd)/|\"workloads/cuda/|" "$ptx"
done
