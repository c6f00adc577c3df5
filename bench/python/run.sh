#!/usr/bin/env bash
# Python benchmark: HTA's TraceAnalysis and opscope.hta.TraceAnalysis side by side on the same
# trace folders. Each run is one fresh Python process (bench/python/cell.py) that imports
# pandas and the side's TraceAnalysis (the only line that differs), then runs the notebook cell
# TraceAnalysis(trace_dir=..., include_last_profiler_step=True), get_temporal_breakdown,
# get_comm_comp_overlap, get_gpu_kernel_breakdown, get_idle_time_breakdown,
# get_queue_length_summary, get_cuda_kernel_launch_stats (the trace's ranks, visualize=False)
# and critical_path_analysis(rank, "ProfilerStep", 0) for each rank (left out of both sides on
# a trace where HTA's stops on an error). Runs alternate HTA, opscope, HTA, opscope ...
# N each; HTA_DISABLE_NS_ROUNDING=1 on both sides. Prints per side the median (min-max) of
# the process's wall time and peak RSS and of the cell's wall time (after the imports to the
# last call's return) and peak RSS increase over the RSS after the imports (VmHWM reset by
# /proc/self/clear_refs), the ratios HTA/opscope, and whether both sides' figures are equal
# (temporal, overlap, kernel breakdown sums, idle, queue; launch stats on a line of their own).
#
# usage: bench/python/run.sh [--hta DIR] [--runs N] [--json FILE] [--build DIR] [--installed]
#                            [--python PY] [TRACE_DIR...]        (--help: every option)
# opscope's side: PYTHONPATH=python and OPSCOPE_LIBRARY=BUILD/lib/libopscope.so.0 (BUILD:
# ./build), or the installed package with --installed. Without --hta (or DIR missing) it
# measures opscope only. bench/run.sh passes a build folder as the only argument: taken as
# --build, and with no trace named the benchmark says so and is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
args=() builds=0
for x in "$@"; do
  if [ -d "$x" ] && [ -e "$x/CMakeCache.txt" ]; then args+=(--build "$x"); builds=$((builds + 1)); continue; fi
  args+=("$x")
done
if [ "$builds" -gt 0 ] && [ "$builds" = "$#" ]; then
  echo "bench/python: skipped (no TRACE_DIR and no --hta DIR; bench/python/run.sh --help)"
  exit 0
fi
exec /usr/bin/python3 bench/python/bench.py "${args[@]}"
