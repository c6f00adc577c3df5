#!/usr/bin/env bash
# Capture cost per record (bar: <= 100 ns), two ways. Run inside the test root:
#   scripts/in-root.sh 'bash bench/capture/run-cost.sh'
#
# 1. Synthetic: the capture_cost graph (N cheap ADD nodes, one thread) timed without and with
#    libopscope-ggml.so, alternating, ROUNDS times; the difference of the medians per node:
#    computed directly by the backend (full walk every compute) and through a scheduler (the
#    cached plan: what every decode step of llama.cpp costs).
# 2. A real program: llama-bench -p 0 -n 256 -t THREADS (default 1) on tiny-dense-f32, alternating
#    without / with the library, ROUNDS times, both with llama.cpp's graph reuse (default: the
#    capture's cached step plans) and with LLAMA_GRAPH_REUSE_DISABLE=1 (full walk every graph):
#    - in-compute cost: tests/capture_e2e/nodecount.c, preloaded first, gives each decode graph's
#      backend-call wall time, which holds what the library does inside the call (abort callback,
#      barrier stamps); (wall with - wall without) / records per graph, walls as the 10th
#      percentile of a run's decode graphs; the median over REAL_ROUNDS (8) alternating rounds.
#      Run-to-run differences of a few us per graph make this a noisy figure: the quartiles say
#      how noisy;
#    - after-compute cost: the library's own counter (OPSCOPE_STATS=1: walk_ns_per_record, the
#      record building after each scheduler compute, outside the graph call);
#    total per record = the two added. Per-round figures and their median are printed.
#    With one thread ggml makes no barriers, so the GOMP_barrier stamp costs nothing there.
set -euo pipefail
B=${OPSCOPE_BUILD:?run inside the root (scripts/in-root.sh)}
EXE=$(find "$B" -name capture_cost -type f -perm -u+x | head -1)
LIB=${OPSCOPE_PRELOAD:?libopscope-ggml.so not built}
N=${N:-2000}; REPS=${REPS:-300}; ROUNDS=${ROUNDS:-3}; THREADS=${THREADS:-1}; REAL_ROUNDS=${REAL_ROUNDS:-8}
MODEL=${MODEL:-${OPSCOPE_MODELS:-/models}/tiny-dense-f32.gguf}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "-- synthetic: $N ADD nodes, 1 thread, $REPS computes"
if [ -z "$EXE" ]; then
    echo "capture_cost not built (build target capture_cost)"
else
    # direct: the backend compute without a scheduler (full walk every time);
    # sched: through a scheduler, as llama.cpp computes (the cached plan from the 2nd compute)
    for mode in direct sched; do
    for r in $(seq "$ROUNDS"); do
        off=$("$EXE" "$N" "$REPS" "$mode" 2>/dev/null)
        on=$(GGML_PROFILE="$OUT/p.json" OPSCOPE_MAX_MB=4096 LD_PRELOAD="$LIB" "$EXE" "$N" "$REPS" "$mode" 2>/dev/null)
        echo "off: $off"
        echo "on:  $on"
        python3 - "$off" "$on" <<'PY'
import re, sys
m = lambda s, k: float(re.search(k + r"=([0-9.]+)", s).group(1))
off, on = sys.argv[1], sys.argv[2]
print("capture cost per record: median %.1f ns, best %.1f ns" % (
    m(on, "median_ns_per_node") - m(off, "median_ns_per_node"),
    m(on, "best_ns_per_node") - m(off, "best_ns_per_node")))
PY
    done
    done
fi

echo "-- real program: llama-bench -p 0 -n 512 -t $THREADS -r 1 on $(basename "$MODEL"), $REAL_ROUNDS rounds"
gcc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC "$HERE/../../tests/capture_e2e/nodecount.c" \
    -o "$OUT/nodecount.so" -ldl
bench() {  # bench MODE(off|on) REUSE(1|0) ROUND
    local env=(OPSCOPE_TEST_NODECOUNT="$OUT/counts-$1-$2-$3.txt")
    [ "$2" = 0 ] && env+=(LLAMA_GRAPH_REUSE_DISABLE=1)
    if [ "$1" = on ]; then
        env+=(LD_PRELOAD="$OUT/nodecount.so:$LIB" GGML_PROFILE="$OUT/p.json" OPSCOPE_STATS=1)
    else
        env+=(LD_PRELOAD="$OUT/nodecount.so")
    fi
    env "${env[@]}" llama-bench -m "$MODEL" -p 0 -n 512 -t "$THREADS" -r 1 > /dev/null 2> "$OUT/err-$1-$2-$3.txt"
}
for reuse in 1 0; do
    for r in $(seq "$REAL_ROUNDS"); do
        if [ $((r % 2)) = 1 ]; then bench off $reuse "$r"; bench on $reuse "$r"; else bench on $reuse "$r"; bench off $reuse "$r"; fi
    done
done
python3 - "$OUT" "$REAL_ROUNDS" <<'PY'
import re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])


def decode_walls(path):
    """Per scheduler compute of one token (nodecount's n_tokens == 1): the backend calls' wall."""
    agg, tok = {}, {}
    for line in open(path):
        seq, sched, _be, _n, _comp, tokens, t0, t1 = line.split()
        key = sched if int(sched) >= 0 else "c" + seq
        agg[key] = agg.get(key, 0) + int(t1) - int(t0)
        tok[key] = tok.get(key) or int(tokens)
    return [w for k, w in agg.items() if tok[k] == 1]


def low(walls):
    """The 10th percentile: the graphs least slowed by anything else on the machine; steadier
    from run to run than the median (each run is a new process: other load, cache layout)."""
    return sorted(walls)[len(walls) // 10]


for reuse in (1, 0):
    per_rec, walks, totals = [], [], []
    for r in range(1, rounds + 1):
        off = low(decode_walls(f"{out}/counts-off-{reuse}-{r}.txt"))
        on_walls = decode_walls(f"{out}/counts-on-{reuse}-{r}.txt")
        on = low(on_walls)
        st = re.search(r"opscope: stats: (.*)", open(f"{out}/err-on-{reuse}-{r}.txt").read())
        kv = dict(x.split("=", 1) for x in st.group(1).split()) if st else {}
        recs_per_graph = int(kv.get("records", 0)) / max(int(kv.get("graphs", 1)), 1)
        walk = float(kv.get("walk_ns_per_record", "nan"))
        inc = (on - off) / recs_per_graph if recs_per_graph else float("nan")
        per_rec.append(inc)
        walks.append(walk)
        totals.append(inc + walk)
        print(f"graph reuse {'on ' if reuse else 'off'} round {r}: decode graph wall p10 off {off / 1e3:.1f} us, "
              f"on {on / 1e3:.1f} us ({len(on_walls)} graphs, {recs_per_graph:.1f} records each): "
              f"in-compute {inc:.1f} ns/record, walk {walk:.1f} ns/record, total {inc + walk:.1f}")
    q = statistics.quantiles(per_rec, n=4) if len(per_rec) > 1 else per_rec * 3
    print(f"graph reuse {'on ' if reuse else 'off'}: median in-compute {statistics.median(per_rec):.1f} ns/record "
          f"(quartiles {q[0]:.0f}..{q[2]:.0f}: run-to-run noise), "
          f"walk {statistics.median(walks):.1f} ns/record, total {statistics.median(totals):.1f} ns/record (bar: <= 100)")
PY
