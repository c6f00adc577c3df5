#!/usr/bin/env python3
"""whisper-cli (whisper.cpp) under the capture library: output unchanged, every graph of its four
schedulers (conv, encoder, cross-attention, decoder) complete, copies recorded.

usage (inside the root): t_whisper.py [THREADS] [--timing] [-- WHISPER_CLI_ARGS...]
--timing also requires the sum of op durations within 5% of each graph compute's wall time;
arguments after -- go to whisper-cli (e.g. -bs 1 -bo 1 for greedy decoding, -nfa).

The model and the WAV come from scripts/make-whisper-model.py (the fixture). Expected values come
from whisper.cpp's source (its four schedulers, what it uploads and reads back), its own log
(buffer sizes), the model's header and nodecount.c, never from opscope.
"""
import os
import re
import subprocess
import sys

import e2e

argv = sys.argv[1:]
extra_args = argv[argv.index("--") + 1:] if "--" in argv else []
argv = argv[:argv.index("--")] if "--" in argv else argv
timing = "--timing" in argv
args = [a for a in argv if a != "--timing"]
threads = args[0] if args else "2"
N_VOCAB, N_MELS, N_AUDIO_CTX = 51864, 80, 1500  # scripts/make-whisper-model.py's header
e2e.need_preload()
model = os.path.join(e2e.MODELS, "tiny-whisper.bin")
wav = os.path.join(e2e.MODELS, "tiny-whisper-2s.wav")
for f in (model, wav):
    if not os.path.exists(f):
        e2e.skip(f"{f} missing (the fixture runs scripts/make-whisper-model.py)")
d = e2e.outdir("whisper")
nc = e2e.nodecount_lib(d)
# Beam search (whisper-cli's default: 5 beams, batched decoding); -nf: no temperature fallback,
# which would decode the random model's output 5 more times.
cmd = ["whisper-cli", "-m", model, "-f", wav, "-t", threads, "-nf"] + extra_args

rc0, out0, err0 = e2e.run(cmd, e2e.env_for([nc], counts=f"{d}/counts-plain.txt"))
e2e.check(rc0 == 0, f"whisper-cli without the preload exits 0 (got {rc0}; {err0[-300:]!r})")
prof, glog = f"{d}/profile.json", f"{d}/graphs.tsv"
rc1, out1, err1 = e2e.run(cmd, e2e.env_for([nc, e2e.PRELOAD], profile=prof, counts=f"{d}/counts.txt",
                                           extra={"OPSCOPE_GRAPH_LOG": glog}))
e2e.check(rc1 == rc0, f"whisper-cli with the preload exits as without it (got {rc1}; {err1[-300:]!r})")
open(f"{d}/stdout-plain.txt", "wb").write(out0)
open(f"{d}/stdout-preload.txt", "wb").write(out1)
open(f"{d}/stderr-preload.txt", "w").write(err1)
if out0 != out1:
    # Several threads: the sums' thread split can change near-ties of the random model's beams.
    e2e.note(f"note  {threads}-thread transcriptions differ with and without the preload (not checked)")
rc2, rc3, out2, out3 = e2e.one_thread_pair(cmd, threads, f"{d}/profile-1thread.json")
e2e.check(rc2 == 0 and rc3 == 0 and out2 == out3 and b"-->" in out3,
          f"1 thread: transcription byte-identical with and without the preload ({len(out2)}, {len(out3)} bytes)")

plain, counts = e2e.read_counts(f"{d}/counts-plain.txt"), e2e.read_counts(f"{d}/counts.txt")
e2e.check([c[2] for c in plain] == [c[2] for c in counts],
          f"the preload does not change the graphs ggml computes ({len(plain)} vs {len(counts)} computes)")
e2e.check(len(counts) >= 4, f"nodecount saw conv, encoder, cross and decoder computes ({len(counts)})")

p = e2e.load_checked(prof)
recs = p["records"]
names = {r["name"] for r in e2e.op_records(p)}
want = {"IM2COL", "MUL_MAT", "NORM", "GET_ROWS", "UNARY"}
e2e.check(want <= names, f"ops {sorted(want)} recorded (have {sorted(names)})")
e2e.check(not (names & e2e.EMPTY_OPS), "no records for empty ops (VIEW, RESHAPE, PERMUTE, TRANSPOSE, NONE)")


def again():
    prof2 = f"{d}/profile-again.json"
    rc, _o, err = e2e.run(cmd, e2e.env_for([nc, e2e.PRELOAD], profile=prof2, counts=f"{d}/counts-again.txt"))
    e2e.check(rc == 0, f"the second recording exits 0 (got {rc}; {err[-300:]!r})")
    return e2e.load_checked(prof2), e2e.read_counts(f"{d}/counts-again.txt")


e2e.check_graphs(p, counts, "whisper", timing=timing, retry=again)


# Schedulers. whisper.cpp computes every graph kind on its own scheduler (whisper_state's
# sched_conv, sched_encode, sched_cross, sched_decode), so the capture's scheduler id of each
# graph (OPSCOPE_GRAPH_LOG) must follow the graph's kind, told by its ops.
def kind(recs):
    ops = {r["name"] for r in recs}
    if "IM2COL" in ops:
        return "conv"
    if "GET_ROWS" in ops:
        return "decoder"
    if ops & {"FLASH_ATTN_EXT", "SOFT_MAX"}:
        return "encoder"
    return "cross"


graphs = e2e.graphs_of(p)
kinds = {gid: kind(rs) for gid, rs in graphs}
sched_of = {}
try:
    with open(glog) as f:
        next(f)
        for line in f:
            col = line.split("\t")
            sched_of.setdefault(int(col[0]), set()).add(int(col[3]))
except (OSError, ValueError, IndexError, StopIteration) as ex:
    e2e.check(False, f"graph log {glog} readable ({ex})")
per_kind = {}
for gid, k in kinds.items():
    per_kind.setdefault(k, set()).update(sched_of.get(gid, {-2}))
e2e.note(f"note  graphs per kind: { {k: sum(1 for v in kinds.values() if v == k) for k in per_kind} }, "
         f"scheduler ids per kind: { {k: sorted(v) for k, v in per_kind.items()} }")
e2e.check(sorted(per_kind) == ["conv", "cross", "decoder", "encoder"],
          f"conv, encoder, cross and decoder graphs recorded (have {sorted(per_kind)})")
ids = [next(iter(v)) for v in per_kind.values() if len(v) == 1]
e2e.check(ids and len(ids) == len(per_kind) and len(set(ids)) == len(ids) and min(ids) >= 0,
          "each graph kind comes from one scheduler of its own (4 schedulers)")
n_dec = sum(1 for v in kinds.values() if v == "decoder")
e2e.check([kinds[g] for g, _ in graphs[:3]] == ["conv", "encoder", "cross"] and n_dec == len(graphs) - 3,
          f"one conv, encoder and cross compute, then {n_dec} decoder computes")

# Copies. whisper.cpp (whisper_decode_internal) uploads each decoder input with tensor_set: the
# token ids "embd" (4 bytes a token, one call), the positions (4 bytes, one call per token), the
# mask; and reads each logits row back with its own tensor_get of n_vocab floats. The encoder
# uploads the mel spectrogram (n_mels x 2 n_audio_ctx floats).
copies = [r for r in recs if r.get("type") == 1]
sets = [r for r in copies if r.get("extra") == "tensor_set"]
gets = [r for r in copies if r.get("extra") == "tensor_get"]
n_tok = sum(1 for r in sets if r["bytes"] == 4)
row = N_VOCAB * 4
e2e.note(f"note  {len(copies)} copy records: {len(sets)} tensor_set, {len(gets)} tensor_get, "
         f"{n_tok} 4-byte sets (positions, 1-token ids)")
e2e.check(any(r["bytes"] == N_MELS * 2 * N_AUDIO_CTX * 4 for r in sets),
          f"the mel upload is recorded ({N_MELS * 2 * N_AUDIO_CTX * 4} bytes)")
e2e.check(gets and all(r["bytes"] == row for r in gets),
          f"every logits read is one row of n_vocab floats ({row} bytes; sizes seen "
          f"{sorted({r['bytes'] for r in gets})[:5]})")
e2e.check(n_dec <= len(gets) <= n_tok,
          f"at least one logits row per decoder compute, at most one per decoded token "
          f"({n_dec} <= {len(gets)} <= {n_tok})")
# Weights: whisper.cpp reads straight into host buffers, and tensor_sets the ones it placed in a
# buffer that is not host memory (here the CPU's AMX buffer); its log names every buffer's size.
sizes = {m.group(1): float(m.group(2)) for m in
         re.finditer(r"whisper_model_load:\s+(\S+) total size =\s+([0-9.]+) MB", err1)}
dev_mb = sum(v for k, v in sizes.items() if k != "CPU")
h2d = sum(r["bytes"] for r in sets if r["name"] == "copy_H2D")
e2e.check(sizes and abs(h2d / 1e6 - dev_mb) <= 0.01 * max(1, len(sizes) - 1),
          f"weight uploads (copy_H2D tensor_set: {h2d / 1e6:.2f} MB) = whisper's non-host weight buffers "
          f"({sizes} MB)")

e2e.check_report(prof, sorted(want))

# The CLI path: opscope record runs the program with the library preloaded.
rec = f"{d}/record.json"
if e2e.OPSCOPE:
    rc4, out4, err4 = e2e.run([e2e.OPSCOPE, "record", "-o", rec, "--"] + e2e.one_thread(cmd, threads), e2e.env_for([]))
    e2e.check(rc4 == 0 and out4 == out2, f"opscope record -- whisper-cli: exit 0 (got {rc4}; {err4[-200:]!r}), "
                                         f"transcription unchanged")
    try:
        r4 = e2e.load_profile(rec)
        g4 = e2e.graphs_of(r4)
        g3 = e2e.graphs_of(e2e.load_profile(f"{d}/profile-1thread.json"))
        e2e.check([e2e.covered(rs) for _, rs in g4] == [e2e.covered(rs) for _, rs in g3],
                  f"opscope record's profile has the graphs of the preloaded 1-thread run ({len(g4)}, {len(g3)})")
    except (OSError, ValueError) as ex:
        e2e.check(False, f"opscope record wrote {rec} ({ex})")
    r5 = subprocess.run([e2e.OPSCOPE, "report", rec], capture_output=True, timeout=120)
    e2e.check(r5.returncode == 0, f"opscope report reads opscope record's profile (exit {r5.returncode})")

# Chrome lanes by backend (one per split would give 34, most with one bar): a compute lane
# per backend that computed, a copies lane per backend that copied, and no more (a backend's
# splits take turns, so nothing overlaps); --chrome-splits gives one per split again.
if e2e.OPSCOPE:
    import json
    for per_split in (False, True):
        tr = f"{d}/trace-{int(per_split)}.json"
        r6 = subprocess.run([e2e.OPSCOPE, "report", prof, "--chrome-trace", tr, "-q"] +
                            (["--chrome-splits"] if per_split else []), capture_output=True, timeout=120)
        if r6.returncode != 0:
            e2e.check(False, f"report --chrome-trace (exit {r6.returncode}: {r6.stderr[-200:]!r})")
            continue
        evs = json.load(open(tr))["traceEvents"]
        names = [e for e in evs if e["ph"] == "M" and e["name"] == "thread_name"]
        # the CPU threads' tracks (per-thread work and wait) are no lanes of records
        lanes = [e for e in names if not e["args"]["name"].startswith("CPU thread")]
        want = len({(r["backend_id"], r["type"], r["split_id"] if per_split and r["type"] == 0 else 0)
                    for r in recs})
        n_thr = max((len(r.get("threads", [])) // 2 for r in recs), default=0)
        e2e.check(len(names) - len(lanes) == n_thr, f"Chrome trace: a track per CPU thread ({len(names) - len(lanes)}, "
                                                    f"{n_thr} threads in the records)")
        e2e.check(len(lanes) == want, f"Chrome trace{' --chrome-splits' if per_split else ''}: "
                                      f"{len(lanes)} lanes, one per backend{' and split' if per_split else ''} "
                                      f"and for copies ({want})")
e2e.finish()
