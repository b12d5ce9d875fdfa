#!/usr/bin/env bash
# Build and run the PTX edge-case probe on a machine with an NVIDIA GPU.
# Usage (repo root):  bash tests/hw/run_probe.sh [outdir]
# Output dir defaults to $OUT (device-machine convention), else ./probe_out.
# Writes: ptx_hw_edge.json (results), probe.log, sass.txt.gz (disassembly of the
# probe kernels, if cuobjdump is available), env.txt.
set -u
OUTDIR="${1:-${OUT:-probe_out}}"
mkdir -p "$OUTDIR"
HERE="$(cd "$(dirname "$0")" && pwd)"
BIN=/tmp/edge_probe.$$
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version
  uname -a
} > "$OUTDIR/env.txt" 2>&1
cat "$OUTDIR/env.txt"

echo "== building"
t0=$(date +%s)
nvcc -O3 -arch=sm_90 -o "$BIN" "$HERE/edge_probe.cu" 2>&1 | tee "$OUTDIR/build.log"
[ -x "$BIN" ] || { echo "build failed"; exit 1; }
echo "build took $(( $(date +%s) - t0 )) s"

echo "== running"
t0=$(date +%s)
timeout 240 "$BIN" "$OUTDIR/ptx_hw_edge.json" 2>&1 | tee "$OUTDIR/probe.log"
rc=${PIPESTATUS[0]}
echo "probe rc=$rc, took $(( $(date +%s) - t0 )) s"

if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$BIN" 2>/dev/null | gzip -9 > "$OUTDIR/sass.txt.gz"
fi
python3 - "$OUTDIR/ptx_hw_edge.json" <<'EOF'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    print("JSON ok:", len(j["cases"]), "cases,", len(j["shfl"]), "shfl,",
          len(j["vote"]), "vote,", len(j["approx_sweeps"]), "sweeps, complete =", j["complete"])
except Exception as e:
    print("JSON problem:", e)
EOF
rm -f "$BIN"
exit $rc
