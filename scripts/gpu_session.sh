#!/usr/bin/env bash
# Every GPU check in one run on a lent device machine (../.library/device: one short, prepared
# script). Prepare here first, without a GPU:
#
#   python -m bench run -n 1 --no-emu --out .cache/bench-gpu          # both compilers' cubins
#   OPENPTXAS_ORACLE_CACHE=.cache/gpu-oracle python -c "from tests.emu.harness import \
#       corpus_cases; [c.cubin() for c in corpus_cases()]"            # ptxas's cubins for tests/gpu
#   python scripts/gpu_public_diff.py prep .cache/gpu-public --compiled-only SWEEP.json
#   tar -C .cache -cJf .cache/gpu-public.tar.xz gpu-public
#   python scripts/gpu_control_probe.py prep .cache/gpu-probe --bench .cache/bench-gpu  # optional
#   tar -C .cache -cJf .cache/gpu-probe.tar.xz gpu-probe
#
# then run this script there with .cache/bench-gpu, .cache/gpu-oracle, .cache/gpu-public.tar.xz
# (and .cache/gpu-probe.tar.xz) carried; every log and JSON lands in $OUT. Each part has its own
# time limit, so a part that hangs leaves the others' figures. (About 6 minutes on an H100, 2026-11-26; 5 on an H200, 2026-11-27: 16 cores, hence 14 jobs.) Where our cubins
# still differ from ptxas's, the next call is scripts/gpu_control_probe.py (which part of the
# control field) and scripts/gpu_stall_bisect.py (which instruction): docs/emu.md, "Checked on
# hardware".
set -u
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PWD  # openptxas is not installed there
export PATH=/usr/local/cuda/bin:$PATH
PY=${PY:-python3}
{
  date -u; nvidia-smi -L; $PY --version; command -v nvcc ptxas; ptxas --version | tail -1
} > "$OUT/machine.txt" 2>&1

tar -C /tmp -xJf .cache/gpu-public.tar.xz

# 1. correctness first, side by side: the public corpus (ours vs ptxas's), tests/gpu (ptxas's cubins vs
#    the numpy references and the emulator), the call checks (registers kept across calls)
timeout "${PART_S:-220}" $PY scripts/gpu_public_diff.py run /tmp/gpu-public --jobs ${PUBLIC_JOBS:-14} \
  --json "$OUT/public.json" > "$OUT/public.log" 2>&1 &
# (-v: one line per test, so a run stopped at its limit (SIGINT) still names every result)
OPENPTXAS_ORACLE_CACHE=.cache/gpu-oracle timeout -s INT -k 20 "${PART_S:-220}" $PY -m pytest \
  tests/gpu -v -rf -n "${PYTEST_JOBS:-14}" -p no:cacheprovider > "$OUT/pytest_gpu.log" 2>&1 &
OPENPTXAS_ORACLE_CACHE=.cache/gpu-oracle timeout "${PART_S:-220}" $PY scripts/calls_gpu_check.py > "$OUT/calls.log" 2>&1 &
wait

# 2. kernel times, alone on the GPU: our cubins and ptxas's on the own kernels' launch specs
timeout "${BENCH_S:-170}" $PY -m bench.gpu .cache/bench-gpu --out "$OUT/bench_gpu.json" --timeout 30 \
  > "$OUT/bench_gpu.log" 2>&1
echo "bench.gpu rc=$?" >> "$OUT/machine.txt"

# 3. where our cubins of the own kernels still differ or fail: which part of the control field
#    (prepared here with `python scripts/gpu_control_probe.py prep .cache/gpu-probe --bench
#    .cache/bench-gpu`, carried as .cache/gpu-probe.tar.xz)
if [ -f .cache/gpu-probe.tar.xz ] && [ -f "$OUT/bench_gpu.json" ]; then
  tar -C /tmp -xJf .cache/gpu-probe.tar.xz
  timeout "${PROBE_S:-100}" $PY scripts/gpu_control_probe.py run /tmp/gpu-probe --jobs 12 \
    --only-from "$OUT/bench_gpu.json" --json "$OUT/probe.json" > "$OUT/probe.log" 2>&1
fi

tail -n 3 "$OUT"/*.log
# (at most 8 files come back: the logs travel as one archive)
grep -h "^FAILED\|passed\|failed" "$OUT/pytest_gpu.log" >> "$OUT/machine.txt" 2>/dev/null
tar -C "$OUT" -czf "$OUT/logs.tgz" $(cd "$OUT" && ls *.log) && rm -f "$OUT"/*.log
