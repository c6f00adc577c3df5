#!/usr/bin/env python3
"""`opscope diff` end to end, against numbers this script computes itself from the inputs.

usage: check_diff.py OPSCOPE DATA_DIR WORK_DIR [--browser NODE_BROWSER_SCRIPT]

Pairs: real ggml profiles captured in the forky root (tests/diff/capture-pairs.sh: 1 against
2 threads, f32 against q4_0, fused against unfused, CPU against Vulkan, 16 against 4 tokens),
real Kineto traces (self, A100 against MI250, a trace against a copy with slower GEMMs, two
profiler steps against one) and synthetic profiles with known injected deltas.

For every pair and key, the per-group base/new counts and totals must equal this script's
own computation exactly (integer ns; Kineto timestamps converted from their decimal text),
the deltas, ratios and normalisation to 1e-9, Welch's p-value to 1e-6 (computed here by
numerical integration of Student's t density, not by the incomplete beta the C code uses),
the totals, graph/token/step counts and fusion differences exactly. Also: self-diffs are
zero with exit 0, --fail-on-regression exits 3 on a 20% slower run and 0 under its bar,
gzip and stdin inputs give the same results, bad inputs exit 2 with FILE:LINE:COL and leave
no output file (an existing one untouched), usage errors exit 1, --help works.
Standard library only.
"""
import decimal
import gzip
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys

D = decimal.Decimal
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402
from json_ref import load_json as load  # noqa: E402


# ------------------------------------------------------------------------------------------
# ggml profiles: the documented rules (docs/diff.md), implemented independently.

GGML_CAT = {  # the ops that occur in the test profiles, by hand from the docs' table
    "MUL_MAT": "gemm", "MUL_MAT_ID": "moe_gemm", "RMS_NORM": "norm", "NORM": "norm",
    "ADD": "elementwise", "MUL": "elementwise", "ROPE": "elementwise", "GLU": "elementwise",
    "UNARY": "elementwise", "SCALE": "elementwise", "GET_ROWS": "memory", "SET_ROWS": "memory",
    "CPY": "memory", "CONT": "memory", "SOFT_MAX": "reduce", "ARGSORT": "reduce",
    "GRAPH_SPLIT": "other", "GELU_FAKE": "other",
}
TYPE_NAMES = {0: "f32", 1: "f16", 2: "q4_0", 3: "q4_1", 6: "q5_0", 7: "q5_1", 8: "q8_0", 10: "q2_K",
              11: "q3_K", 12: "q4_K", 13: "q5_K", 14: "q6_K", 26: "i32", 27: "i64"}


def ggml_display(r):
    s = r.get("name", "unknown")
    if r.get("sub_op"):
        s += "(%s)" % r["sub_op"]
    if r.get("extra") is not None:
        s += (" (via %s)" if r.get("type", 0) == 1 else " [fused: %s]") % r["extra"]
    return s


def ggml_category(r):
    if r.get("type", 0) == 1:
        return "memory"
    n = r.get("name", "unknown")
    if n == "FLASH_ATTN_EXT":
        return "attention_decode" if r["ne_src"][0][1] == 1 else "attention_prefill"
    return GGML_CAT[n]


def dims_text(ne):
    d = [int(x) for x in ne if int(x) > 0]
    while len(d) > 1 and d[-1] == 1:
        d.pop()
    return "[" + ", ".join(str(x) for x in d) + "]" if d else ""


def shape_text(r):
    parts = []
    n = r.get("n_src", len(r.get("ne_src", [])))
    for i in range(n):
        t = dims_text(r["ne_src"][i])
        if not t:
            continue
        ty = r.get("type_src", [-1] * n)[i]
        parts.append("src%d %s%s" % (i, t, " " + TYPE_NAMES[ty] if ty >= 0 else ""))
    return ", ".join(parts)


def layer_of(name):
    """(layer or None, inherit)"""
    if not name:
        return None, True
    n = name.split(" (", 1)[0]
    if re.fullmatch(r"node_\d+", n):
        return None, True
    m = re.search(r"(-|_l)(\d{1,6})$", n)
    return (int(m.group(2)) if m else None), False


class GgmlRun:
    """Everything the diff needs from one ggml profile, per record in file order."""

    def __init__(self, path, keep=None):
        """KEEP: a function of the records giving those to keep (all when None)."""
        p = load(path)
        self.backends = {b["id"]: b.get("name", "unknown") for b in p.get("backends", [])}
        self.recs = keep(p["records"]) if keep else p["records"]
        self.graphs, self.tokens, self.prefill, self.decode = 0, 0, 0, 0
        gq, gtok, seen = {}, {}, []
        for r in self.recs:  # a graph's tokens: its first MUL_MAT; its phase: its attention's
            g = r.get("graph_id")  # queries per sequence (else the tokens)
            if g is None:
                continue
            if g not in gtok:
                gtok[g] = gq[g] = None
                seen.append(g)
            if gtok[g] is None and r.get("type", 0) == 0 and r["name"] == "MUL_MAT" and r.get("n_src", 0) >= 2:
                gtok[g] = max(1, int(r["ne_src"][1][1]))
            if gq[g] is None and r.get("type", 0) == 0 and r["name"] == "FLASH_ATTN_EXT" and r.get("n_src", 0) >= 1:
                gq[g] = int(r["ne_src"][0][1])
        self.graphs = len(seen)
        self.gphase = {}
        for g in seen:
            if gtok[g] is not None:
                self.tokens += gtok[g]
            q = gq[g] if gq[g] is not None else gtok[g]
            self.gphase[g] = "none" if q is None else "prefill" if q > 1 else "decode"
            self.prefill += self.gphase[g] == "prefill"
            self.decode += self.gphase[g] == "decode"
        self.layer = []
        cur, carry = None, None
        for r in self.recs:
            l, inherit = layer_of(r.get("tensor_name"))
            g = r.get("graph_id")
            if g is not None:
                if g != cur:
                    cur, carry = g, None
                if inherit:
                    l = carry
                else:
                    carry = l
            self.layer.append(l)
        ends = [int(r["start_ns"]) + int(r["duration_ns"]) for r in self.recs]
        self.wall = max(ends) - min(int(r["start_ns"]) for r in self.recs) if self.recs else 0
        self.op_ns = sum(int(r["duration_ns"]) for r in self.recs if r.get("type", 0) == 0)
        self.copy_ns = sum(int(r["duration_ns"]) for r in self.recs if r.get("type", 0) == 1)

    def bname(self, r):
        return self.backends.get(r.get("backend_id", 0)) or "backend %d" % r.get("backend_id", 0)

    def key(self, i, keys, merged):
        r = self.recs[i]
        k = {}
        if keys & {"op", "kernel", "shape"}:
            k["op"] = ggml_display(r)
            if not merged:
                k["backend"] = self.bname(r)
        if "shape" in keys:
            k["shape"] = shape_text(r)
        if "category" in keys:
            k["category"] = ggml_category(r)
        if "cpu-op" in keys:
            k["cpu_op"] = ggml_display(r)
        if "layer" in keys:
            l = self.layer[i]
            k["layer"] = "(no layer)" if l is None else "layer %d" % l
        if "phase" in keys:
            g = r.get("graph_id")
            k["phase"] = "none" if g is None else self.gphase[g]
        return tuple(sorted(k.items()))

    def groups(self, keys, merged):
        """key -> atom (op, type, backend id, source shapes: the strata of the noise test) -> durations"""
        out = {}
        for i, r in enumerate(self.recs):
            n_src = r.get("n_src", len(r.get("ne_src", [])))
            shape = tuple((tuple(int(x) for x in r["ne_src"][j]) + (0,) * (4 - len(r["ne_src"][j])),
                           r.get("type_src", [-1] * n_src)[j]) for j in range(n_src))
            atom = (ggml_display(r), r.get("type", 0), r.get("backend_id", 0), shape)
            out.setdefault(self.key(i, keys, merged), {}).setdefault(atom, []).append(
                (r.get("graph_id"), int(r["duration_ns"])))
        return out

    def runs(self, names):
        """Consecutive unfused OP records NAMES on one (backend, split, thread) of a graph."""
        lanes = {}
        count, total = 0, 0
        for r in self.recs:
            if r.get("type", 0) != 0 or r.get("graph_id") is None:
                continue
            lk = (r.get("backend_id", 0), r.get("split_id", 0), r.get("thread_id", -1))
            w = lanes.get(lk)
            if w is None or w[0] != r["graph_id"] or r.get("extra") is not None:
                w = lanes[lk] = [r["graph_id"], []]
                if r.get("extra") is not None:
                    continue
            w[1] = (w[1] + [(r["name"], int(r["duration_ns"]))])[-8:]
            if len(w[1]) >= len(names) and [n for n, _ in w[1][-len(names):]] == names:
                count += 1
                total += sum(d for _, d in w[1][-len(names):])
        return count, total


# ------------------------------------------------------------------------------------------
# Kineto traces: GPU activities, categories (kernel_rules.def read as data), CPU op links.

GPU_KERNEL = {"kernel", "Kernel", "mtia_ccp_events"}
GPU_MEMSET = {"gpu_memset", "Memset"}
GPU_COPY = {"gpu_memcpy", "Memcpy"}
RUNTIME = {"cuda_runtime", "cuda_driver", "Runtime", "Driver", "mtia_runtime",
           "mtia_cmd_runtime", "privateuse1_runtime", "privateuse1_driver", "xpu_runtime"}
FLOW = {"ac2g", "async_gpu", "async_cpu_to_gpu"}
CPU_OP = {"cpu_op", "Operator"}


def ns(v):
    if v is None:
        return 0
    return int((D(str(v)) * 1000).quantize(D(1), rounding=decimal.ROUND_HALF_UP))


def as_int(v):
    if isinstance(v, bool) or v is None:
        return -1
    try:
        x = int(v) if not isinstance(v, str) else int(v, 0)
    except (ValueError, TypeError):
        return -1
    return x if x >= 0 else -1


def kernel_rules(src_dir):
    rules = []
    for line in open(os.path.join(src_dir, "src", "read", "kernel_rules.def")):
        m = re.match(r'\s*RULE\((\w+),\s*"(.*)"\)', line)
        if m:
            rules.append((m.group(1), m.group(2)))
    names = {"GEMM": "gemm", "ATTN_PREFILL": "attention_prefill", "ATTN_DECODE": "attention_decode",
             "MOE_ROUTING": "moe_routing", "MOE_GEMM": "moe_gemm", "NORM": "norm",
             "ELEMENTWISE": "elementwise", "REDUCE": "reduce", "MEMORY": "memory",
             "COMM": "communication", "OTHER": "other"}
    return [(names[c], p) for c, p in rules]


def classify(rules, name):
    low = name.lower()
    for c, p in rules:
        if p in low:
            return c
    return "other"


def copy_dir(name, args):
    src = args.get("kind") or args.get("direction") or name
    src = str(src)
    for d in ("HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "DtoA", "AtoD"):
        if d in src:
            return d
    for word, d in (("DEVICE_TO_HOST", "DtoH"), ("HOST_TO_DEVICE", "HtoD"), ("DEVICE_TO_DEVICE", "DtoD")):
        if word in src:
            return d
    return None


class KinetoRun:
    def __init__(self, path, rules):
        d = load(path)
        ev = d["traceEvents"] if isinstance(d, dict) else d
        self.acts = []  # (name, display, category, dur, start, corr, ext, is_kernel, is_copy)
        cpu, ext_name, runtime, flows = {}, {}, {}, {}
        self.iterations = 0
        for e in ev:
            if not isinstance(e, dict):
                continue
            cat, args = e.get("cat"), e.get("args") or {}
            if e.get("ph") == "s" and cat in FLOW:
                i = as_int(e.get("id"))
                if i >= 0 and i not in flows:
                    flows[i] = ((e.get("pid"), e.get("tid")), ns(e.get("ts")), -1)
            if e.get("ph") != "X":
                continue
            name, start, dur = e.get("name", ""), ns(e.get("ts")), max(ns(e.get("dur")), 0)
            if cat in GPU_KERNEL or cat in GPU_MEMSET or cat in GPU_COPY:
                is_copy = cat in GPU_COPY
                disp = name
                if is_copy:
                    dr = copy_dir(name, args)
                    if dr:
                        disp += "(%s)" % dr
                catg = "memory" if cat not in GPU_KERNEL else classify(rules, name)
                self.acts.append((name, disp, catg, dur, start, as_int(args.get("correlation")),
                                  as_int(args.get("External id", args.get("external id"))),
                                  cat in GPU_KERNEL, is_copy, e.get("pid")))
            elif cat in CPU_OP:
                cpu.setdefault((e.get("pid"), e.get("tid")), []).append(
                    (start, start + dur, name, input_dims_text(args.get("Input Dims"))))
                x = as_int(args.get("External id", args.get("external id")))
                if x >= 0:
                    ext_name[x] = name
            elif cat in RUNTIME:
                c = as_int(args.get("correlation"))
                if c >= 0 and c not in runtime:
                    runtime[c] = ((e.get("pid"), e.get("tid")), start,
                                  as_int(args.get("External id", args.get("external id"))))
            elif cat == "user_annotation" and str(name).startswith("ProfilerStep#"):
                self.iterations += 1
        for k in cpu:
            cpu[k].sort(key=lambda x: (x[0], -x[1]))
        self.cpu_of = []
        self.dims_of = []  # input dims of the enclosing CPU op (not of one found by External id)
        for a in self.acts:
            corr, ext = a[5], a[6]
            launch = (runtime.get(corr) or flows.get(corr)) if corr >= 0 else None
            op = None
            if launch:
                thr, t, rext = launch
                best = bdims = None
                for s, e2, n, dm in cpu.get(thr, []):  # innermost: latest start, then shortest
                    if s <= t <= e2:
                        best, bdims = n, dm
                op = best
                if op is None and rext >= 0:
                    op = ext_name.get(rext)
            if op is None and ext >= 0:
                op = ext_name.get(ext)
            self.cpu_of.append(op)
            self.dims_of.append(bdims if launch and best is not None else None)
        self.op_ns = sum(a[3] for a in self.acts if not a[8])
        self.copy_ns = sum(a[3] for a in self.acts if a[8])
        ends = [a[4] + a[3] for a in self.acts]
        self.wall = max(ends) - min(a[4] for a in self.acts) if self.acts else 0

    def work(self, i):
        """What launched activity I (docs/diff.md, work pairs): 'op [dims]', the CPU op
        alone, or '(no CPU op) CATEGORY'."""
        op = self.cpu_of[i]
        if op is None:
            return "(no CPU op) " + self.acts[i][2]
        return op + " " + self.dims_of[i] if self.dims_of[i] else op

    def groups(self, keys, backend_prefix=None):
        """key -> atom (kernel, category, copy or not, device) -> durations. BACKEND_PREFIX
        ("CUDA"): op keys per backend, named as docs/kineto.md says (CUDA<device>)."""
        out = {}
        for i, a in enumerate(self.acts):
            k = {}
            if keys & {"op", "kernel", "shape"}:
                k["op"] = self.work(i) if keys & {"op", "shape"} and "kernel" not in keys else a[1]
                if backend_prefix:
                    k["backend"] = "%s%d" % (backend_prefix, a[9])
            if "shape" in keys and "kernel" not in keys and " [" in k["op"]:
                # the launching call's input dims, apart from its CPU op
                k["op"], k["shape"] = k["op"].split(" [", 1)
                k["shape"] = "[" + k["shape"]
            elif "shape" in keys:
                k["shape"] = ""
            if "category" in keys:
                k["category"] = a[2]
            if "cpu-op" in keys:
                k["cpu_op"] = self.cpu_of[i] if self.cpu_of[i] is not None else "(no CPU op)"
            atom = (a[1], a[2], a[8], a[9])
            out.setdefault(tuple(sorted(k.items())), {}).setdefault(atom, []).append(a[3])
        return out


def input_dims_text(dims):
    """args["Input Dims"] as opscope writes it: each input's dims, scalars ([]) left out,
    joined by 'x' ("[4096,768]x[768,50257]"); None when there is none."""
    def one(v):
        if isinstance(v, list):
            return "[" + ",".join(one(x) for x in v) + "]"
        return str(v) if isinstance(v, (int, D)) and not isinstance(v, bool) else "?"
    if not isinstance(dims, list):
        return None
    t = "x".join(one(v) for v in dims if not (isinstance(v, list) and not v))
    return t or None


def coarse(key):
    """The key with its op cut at ' [' (the CPU op without its dims)."""
    d = dict(key)
    if " [" in d.get("op", ""):
        d["op"] = d["op"][:d["op"].index(" [")]
    return tuple(sorted(d.items()))


def work_pairs(gb, gn):
    """Python's pairing of work groups (docs/diff.md): an exact 'op [dims]' key kept when both
    runs have it, else the CPU op alone; a CPU op whose unpaired shapes are on one side only
    is kept whole on both sides."""
    rb = {coarse(k) for k in gb if k not in gn}
    rn = {coarse(k) for k in gn if k not in gb}
    lumped = rb ^ rn
    out = []
    for g, other in ((gb, gn), (gn, gb)):
        o = {}
        for k, atoms in g.items():
            c = coarse(k)
            k2 = k if k in other and c not in lumped else c
            for atom, durs in atoms.items():
                o.setdefault(k2, {}).setdefault(atom, []).extend(durs)
        out.append(o)
    return out


# ------------------------------------------------------------------------------------------
# Welch's test, independently: Student's t tail by numerical integration of its density.

def t_two_sided(t, df):
    t = abs(t)
    if t == 0:
        return 1.0
    lc = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def f(x):
        return math.exp(lc - (df + 1) / 2 * math.log1p(x * x / df))
    # P(|T| < t) = 2 * integral_0^t f; composite Simpson with a step well under the density's width
    n = max(2000, int(t * 400))
    n += n % 2
    h = t / n
    s = f(0) + f(t) + sum((4 if k % 2 else 2) * f(k * h) for k in range(1, n))
    return max(0.0, 1.0 - 2 * s * h / 3)


def dur(x):
    """a call's duration: ggml atoms hold (graph id, duration), trace atoms durations"""
    return x[1] if isinstance(x, tuple) else x


def graph_sums(xs):
    """an atom's per-graph sums: its calls of one graph compute in a row make one sample"""
    out, cur = [], None
    for x in xs:
        if not isinstance(x, tuple) or x[0] is None:
            continue
        if out and x[0] == cur:
            out[-1] += x[1]
        else:
            out.append(x[1])
            cur = x[0]
    return out


def n_var(xs):
    """n times the sample variance, or None under 2 values"""
    n = len(xs)
    if n < 2:
        return None
    m = sum(xs) / n
    return n * sum((x - m) ** 2 for x in xs) / (n - 1)


def strata_var(atoms):
    """(variance of the total, Welch-Satterthwaite denominator, samples tested) over atoms:
    per atom the larger of the per-call and the per-graph estimate, a single call's square
    (docs/diff.md)"""
    var = den = 0.0
    tested = 0
    for xs in atoms.values():
        calls, graphs = [dur(x) for x in xs], graph_sums(xs)
        if len(calls) == 1:  # one call: its own size as its standard deviation, 1 degree of freedom
            var += calls[0] ** 2
            den += calls[0] ** 4
            tested += 1
            continue
        vc, vg = n_var(calls), n_var(graphs)
        if vc is None and vg is None:
            continue
        if vg is not None and (vc is None or vg >= vc):
            v, n = vg, len(graphs)
        else:
            v, n = vc, len(calls)
        var += v
        den += v * v / (n - 1)
        tested += n
    return var, den, tested


def welch_sum_p(delta, atoms_a, atoms_b, ua, ub):
    va, da, ta = strata_var(atoms_a)
    vb, db, tb = strata_var(atoms_b)
    if not ta or not tb:
        return None
    va, da, vb, db = va / ua ** 2, da / ua ** 4, vb / ub ** 2, db / ub ** 4
    se2 = va + vb
    if se2 == 0:
        return 1.0 if delta == 0 else 0.0
    t = delta / math.sqrt(se2)
    df = se2 * se2 / (da + db) if da + db > 0 else 1.0
    return t_two_sided(t, df)


def margin_p(atoms_a, atoms_b, f):
    """one-sided p-value that B's total exceeds F times A's (the regression test)"""
    va, da, _ = strata_var(atoms_a)
    vb, db, _ = strata_var(atoms_b)
    ta = sum(dur(x) for xs in atoms_a.values() for x in xs)
    tb = sum(dur(x) for xs in atoms_b.values() for x in xs)
    se2 = vb + f * f * va
    t = (tb - f * ta) / math.sqrt(se2)
    df = se2 * se2 / (db + f ** 4 * da)
    two = t_two_sided(t, df)
    return two / 2 if t > 0 else 1 - two / 2


# ------------------------------------------------------------------------------------------

OPSCOPE = None
WORK = None


def run(args, stdin=None, expect=0):
    p = subprocess.run([OPSCOPE, "diff"] + args, input=stdin, capture_output=True)
    check(p.returncode == expect,
          "exit %d (wanted %d) for diff %s: %s" % (p.returncode, expect, " ".join(args), p.stderr[-400:]))
    return p


def diff_json(base, new, extra=(), stdin=None, expect=0, warmup=True):
    """WARMUP: compare every record (--include-warmup), as the sums computed here do; the
    steady state alone has its own checks (warmup_apart)."""
    out = os.path.join(WORK, "d.json")
    if os.path.exists(out):
        os.remove(out)
    p = run([base, new, "--json", out, "-q"] + (["--include-warmup"] if warmup else []) + list(extra),
            stdin=stdin, expect=expect)
    if not os.path.exists(out):
        check(False, "no JSON for %s %s %s" % (base, new, extra))
        return None, p
    return json.load(open(out)), p


def key_of(g):
    return tuple(sorted(g["key"].items()))


def compare(label, doc, exp_base, exp_new, units=(1, 1), alpha=0.05, p_checks=True):
    """Groups of DOC against Python's groups (key tuple -> durations)."""
    if doc is None:
        return
    got = {key_of(g): g for g in doc["groups"]}
    want_keys = set(exp_base) | set(exp_new)
    check(set(got) == want_keys, "%s: group keys differ: only opscope %s, only python %s" % (
        label, sorted(set(got) - want_keys)[:3], sorted(want_keys - set(got))[:3]))
    bad = 0
    worst_p = 0.0
    for k in want_keys & set(got):
        g, ab, an = got[k], exp_base.get(k, {}), exp_new.get(k, {})
        b = [dur(x) for xs in ab.values() for x in xs]
        n = [dur(x) for xs in an.values() for x in xs]
        ok = (g["base_count"], g["base_total_ns"], g["new_count"], g["new_total_ns"]) == \
            (len(b), sum(b), len(n), sum(n))
        ok &= (g["base_min_ns"], g["base_max_ns"]) == ((min(b), max(b)) if b else (0, 0))
        ok &= (g["new_min_ns"], g["new_max_ns"]) == ((min(n), max(n)) if n else (0, 0))
        bn, nn = sum(b) / units[0], sum(n) / units[1]
        ok &= math.isclose(g["base_norm_ns"], bn, rel_tol=1e-9, abs_tol=1e-9)
        ok &= math.isclose(g["new_norm_ns"], nn, rel_tol=1e-9, abs_tol=1e-9)
        ok &= math.isclose(g["delta_ns"], nn - bn, rel_tol=1e-9, abs_tol=1e-6)
        status = "both" if b and n else "only_base" if b else "only_new"
        ok &= g["status"] == status
        if b and n:
            ok &= (g["ratio"] is None and bn == 0) or math.isclose(g["ratio"], nn / bn, rel_tol=1e-9)
        # the noise test (docs/diff.md): no change is never significant; a change in the
        # calls per unit always is; else Welch over the group's ops
        same_rate = b and n and len(b) * units[1] == len(n) * units[0]
        delta = sum(n) / units[1] - sum(b) / units[0]
        if p_checks and b and n and delta == 0:
            ok &= not g["significant"]
        elif p_checks and same_rate:
            p = welch_sum_p(delta, ab, an, units[0], units[1])
            if p is None:
                ok &= g["p_value"] is None and g["significant"]
            else:
                ok &= g["p_value"] is not None and abs(g["p_value"] - p) < 1e-6
                worst_p = max(worst_p, abs((g["p_value"] or 0) - p))
                ok &= g["significant"] == (g["p_value"] < alpha)
        elif p_checks:
            ok &= g["p_value"] is None and g["significant"]
        if not ok:
            bad += 1
            if bad <= 3:
                print("   mismatch %s %s: opscope %s / python base %d %d new %d %d" % (
                    label, k, {x: g[x] for x in ("base_count", "base_total_ns", "new_count", "new_total_ns",
                                                 "delta_ns", "p_value", "status")},
                    len(b), sum(b), len(n), sum(n)))
    check(bad == 0, "%s: %d groups differ from the Python computation" % (label, bad))
    print("ok    %s: %d groups equal (p-values within %.1e)" % (label, len(got), worst_p))


def check_totals(label, doc, b, n, units=(1, 1)):
    t = doc["totals"]
    want = {"wall": (b.wall, n.wall), "op": (b.op_ns, n.op_ns), "copy": (b.copy_ns, n.copy_ns),
            "total": (b.op_ns + b.copy_ns, n.op_ns + n.copy_ns)}
    ok = all(math.isclose(t[k]["base_ns"], v[0] / units[0], rel_tol=1e-12, abs_tol=1e-9) and
             math.isclose(t[k]["new_ns"], v[1] / units[1], rel_tol=1e-12, abs_tol=1e-9) for k, v in want.items())
    check(ok, "%s: totals %s != python %s" % (label, t, want))


# ------------------------------------------------------------------------------------------

def ggml_pairs(data):
    g = lambda n: os.path.join(data, "ggml", n + ".json.gz")
    runs = {n: GgmlRun(g(n)) for n in ("cpu-f32-t2", "cpu-f32-t1", "cpu-q4_0-t2", "cpu-f32-nofuse-t2",
                                       "cpu-f32-n4", "vk-f32-n4", "vk-ops-f32-n4")}
    r = runs["cpu-f32-t2"]
    check(r.graphs == 16 and r.tokens == 30 + 15 and r.prefill == 1 and r.decode == 15,
          "the reference capture has 16 graphs, 45 tokens (%d, %d)" % (r.graphs, r.tokens))
    pairs = [("cpu-f32-t1", "cpu-f32-t2", ["op"]), ("cpu-f32-t2", "cpu-q4_0-t2", ["op"]),
             ("cpu-f32-t2", "cpu-q4_0-t2", ["shape"]), ("cpu-f32-t2", "cpu-q4_0-t2", ["category"]),
             ("cpu-f32-t2", "cpu-f32-nofuse-t2", ["op"]), ("cpu-f32-t2", "cpu-f32-t1", ["layer"]),
             ("cpu-f32-t2", "cpu-f32-t1", ["phase", "op"]), ("cpu-f32-t2", "cpu-f32-t1", ["layer", "phase"]),
             ("cpu-f32-t2", "cpu-f32-t1", ["cpu-op"]),
             ("cpu-f32-n4", "vk-f32-n4", ["op"]), ("cpu-f32-n4", "vk-f32-n4", ["category"]),
             ("cpu-f32-t2", "cpu-f32-n4", ["op"]), ("cpu-f32-t2", "cpu-f32-n4", ["phase"])]
    for bn, nn, keys in pairs:
        b, n = runs[bn], runs[nn]
        ks = set(keys)
        # backends are merged when the runs' backend names differ (a CPU run against one that
        # also used Vulkan0: per backend, every Vulkan0 row would be "only in NEW")
        merged = {b.bname(x) for x in b.recs} != {n.bname(x) for x in n.recs}
        doc, _ = diff_json(g(bn), g(nn), ["--by", ",".join(keys), "--min-share", "0"])
        if doc is None:
            continue
        # --per auto: the first of tokens, steps, graphs that both runs have, when they differ in it
        units, unit = (1, 1), "none"
        for name, ub, un in (("token", b.tokens, n.tokens), ("iteration", 0, 0), ("graph", b.graphs, n.graphs)):
            if ub and un:
                if ub != un:
                    units, unit = (ub, un), name
                break
        check(doc["normalization"]["unit"] == unit, "%s/%s: per %s" % (bn, nn, unit))
        check(doc["base"]["graphs"] == b.graphs and doc["base"]["tokens"] == b.tokens and
              doc["new"]["graphs"] == n.graphs and doc["new"]["tokens"] == n.tokens and
              doc["base"]["prefill_graphs"] == b.prefill and doc["new"]["decode_graphs"] == n.decode,
              "%s/%s: graph and token counts" % (bn, nn))
        check(doc["merged_backends"] == merged, "%s/%s: backends merged %s" % (bn, nn, merged))
        compare("%s vs %s by %s" % (bn, nn, ",".join(keys)), doc, b.groups(ks, merged), n.groups(ks, merged), units)
        check_totals("%s vs %s" % (bn, nn), doc, b, n, units)

    # CPU against Vulkan with the defaults: the fused group aligns, one vocabulary
    doc, _ = diff_json(g("cpu-f32-n4"), g("vk-ops-f32-n4"), ["--min-share", "0"])
    fr = [r for r in (doc["groups"] if doc else []) if "RMS_NORM+MUL" in r["key"].get("op", "")]
    want = (sum(x.get("extra") == "RMS_NORM+MUL" for x in runs["cpu-f32-n4"].recs),
            sum(x.get("extra") in ("RMS_NORM+MUL", "RMS_NORM_MUL") for x in runs["vk-ops-f32-n4"].recs))
    check(doc is not None and doc["merged_backends"] and len(fr) == 1 and fr[0]["status"] == "both" and
          (fr[0]["base_count"], fr[0]["new_count"]) == want,
          "cpu-f32-n4 vs vk-ops-f32-n4 (defaults): RMS_NORM+MUL in both, %s calls (%s)" % (want, fr))

    # fusion: RMS_NORM+MUL fused on one side, separate records on the other
    doc, _ = diff_json(g("cpu-f32-t2"), g("cpu-f32-nofuse-t2"))
    f = [x for x in doc["fusion"] if x["name"] == "RMS_NORM+MUL"]
    fused = [x for x in runs["cpu-f32-t2"].recs if x.get("extra") == "RMS_NORM+MUL"]
    cnt, tot = runs["cpu-f32-nofuse-t2"].runs(["RMS_NORM", "MUL"])
    check(len(f) == 1 and f[0]["kind"] == "ggml" and f[0]["base_calls"] == len(fused) == 144 and
          f[0]["base_ns"] == sum(int(x["duration_ns"]) for x in fused) and
          f[0]["new_calls"] == cnt == 144 and f[0]["new_kernels"] == 2 * cnt and f[0]["new_ns"] == tot,
          "fusion RMS_NORM+MUL: %s vs python fused %d runs %d %d" % (f, len(fused), cnt, tot))
    print("ok    fusion RMS_NORM+MUL: 144 fused calls against %d runs of RMS_NORM, MUL" % cnt)

    # self-diffs: zero deltas, nothing significant, exit 0 even with a zero tolerance
    for name in runs:
        doc, _ = diff_json(g(name), g(name), ["--by", "op,layer,phase", "--fail-on-regression", "0"])
        check(doc and all(x["delta_ns"] == 0 and x["status"] == "both" and not x["significant"] and
                          x["base_count"] == x["new_count"] for x in doc["groups"]) and
              doc["totals"]["total"]["delta_ns"] == 0 and not doc["failed"] and not doc["fusion"],
              "self diff of %s is not all zero" % name)
    print("ok    self-diffs of %d real profiles: zero deltas, exit 0" % len(runs))
    return runs


def warm_classes(recs):
    """Warm-up apart, computed here from the records: graph id -> 'warmup' (the
    lowest id of each topology, the multiset of its op records' name and backend; with weights,
    a graph with a GRAPH_SPLIT record never is), 'outlier' (a steady graph over 10x its (batch,
    phase) group's median wall, when at most a quarter of the group's steady graphs are) or
    'steady'; and the load: the records before the first record with a graph id."""
    graphs = {}
    for r in recs:
        if "graph_id" in r:
            graphs.setdefault(r["graph_id"], []).append(r)
    weighted = any("weight" in r for r in recs)
    cls, seen = {}, set()
    for gid in sorted(graphs):
        rs = graphs[gid]
        topo = {}
        for r in rs:
            if r.get("type", 0) == 0:
                topo[(r["name"], r["backend_id"])] = topo.get((r["name"], r["backend_id"]), 0) + 1
        t = frozenset(topo.items())
        untimed = weighted and any(r.get("type", 0) == 0 and r["name"] == "GRAPH_SPLIT" for r in rs)
        cls[gid] = "warmup" if not untimed and t not in seen else "steady"
        if not untimed:
            seen.add(t)

    def wall(rs):
        total, cs, ce = 0, None, None
        for a, b in sorted((int(r["start_ns"]), int(r["start_ns"]) + int(r["duration_ns"])) for r in rs):
            if ce is None or a > ce:
                total += (ce - cs) if ce is not None else 0
                cs, ce = a, b
            else:
                ce = max(ce, b)
        return total + ((ce - cs) if ce is not None else 0)

    def batch(rs):
        b = 0
        for r in rs:
            if r.get("type", 0) == 0 and r.get("n_src", 0) >= 2 and r["name"] in ("MUL_MAT", "MUL_MAT_ID"):
                b = max(b, r["ne_src"][1][1 if r["name"] == "MUL_MAT" else 2])
        q = max([r["ne_src"][0][1] for r in rs if r.get("type", 0) == 0 and r["name"] == "FLASH_ATTN_EXT"
                 and r.get("n_src", 0) >= 1] or [0])
        t = q or b
        return b, "prefill" if t > 1 else "decode" if t == 1 else "none"

    groups = {}
    for gid, rs in graphs.items():
        groups.setdefault(batch(rs), []).append(gid)
    for ids in groups.values():
        walls = {i: wall(graphs[i]) for i in ids}
        med = sorted(walls.values())[(len(ids) - 1) // 2]
        steady = [i for i in ids if cls[i] == "steady"]
        over = [i for i in steady if walls[i] > 10 * med]
        if over and 4 * len(over) <= len(steady):
            for i in over:
                cls[i] = "outlier"
    load_n = 0
    while load_n < len(recs) and "graph_id" not in recs[load_n]:
        load_n += 1
    return cls, load_n


def warmup_apart(data):
    """diff's default leaves the warm-up, the outliers and the load out: its groups equal
    Python's sums over the other records (written to a profile of their own and read by the
    same GgmlRun as every pair above), and its 'warmup' member counts what was left out."""
    g = lambda d, n: os.path.join(data, d, n + ".json.gz")
    cases = [(("ggml", "cpu-f32-t1"), ("ggml", "cpu-f32-t2"), "op"), (("ggml", "cpu-f32-n4"), ("ggml", "vk-f32-n4"), "op"),
             (("noise-loaded", "same-1"), ("noise-loaded", "same-4"), "category")]
    outliers_seen = 0
    for (db, nb), (dn, nn), key in cases:
        runs, want_apart = [], []
        for d, n in ((db, nb), (dn, nn)):
            p = load(g(d, n))
            recs = p["records"]
            cls, load_n = warm_classes(recs)
            keep = lambda rs, cls=cls, load_n=load_n: [r for i, r in enumerate(rs) if i >= load_n and  # noqa: E731
                                                        cls.get(r.get("graph_id"), "steady") == "steady"]
            part = {k: [r for r in recs if "graph_id" in r and cls[r["graph_id"]] == k] for k in ("warmup", "outlier")}
            part["load"] = recs[:load_n]
            want_apart.append({**{k + "_records": len(v) for k, v in part.items()},
                               **{k + "_ns": sum(int(r["duration_ns"]) for r in v) for k, v in part.items()},
                               "warmup_graphs": sum(c == "warmup" for c in cls.values()),
                               "outlier_graphs": sum(c == "outlier" for c in cls.values()), "load_graphs": 0})
            outliers_seen += want_apart[-1]["outlier_graphs"]
            runs.append(GgmlRun(g(d, n), keep))
        b, n = runs
        label = "warm-up apart: %s vs %s" % (nb, nn)
        doc, _ = diff_json(g(db, nb), g(dn, nn), ["--min-share", "0", "--by", key], warmup=False)
        if doc is None:
            continue
        merged = {b.bname(x) for x in b.recs} != {n.bname(x) for x in n.recs}
        units = (b.tokens, n.tokens) if b.tokens and n.tokens and b.tokens != n.tokens else (1, 1)
        if not (b.tokens and n.tokens) and b.graphs and n.graphs and b.graphs != n.graphs:
            units = (b.graphs, n.graphs)
        w = doc.get("warmup", {})
        check(w.get("apart") is True and w.get("base") == want_apart[0] and w.get("new") == want_apart[1],
              "%s: what was left out %s == python %s" % (label, w, want_apart))
        check(doc["base"]["graphs"] == b.graphs and doc["new"]["graphs"] == n.graphs and
              doc["base"]["tokens"] == b.tokens and doc["new"]["tokens"] == n.tokens,
              "%s: the steady graphs and tokens (%d, %d)" % (label, b.graphs, n.graphs))
        compare(label, doc, b.groups({key}, merged), n.groups({key}, merged), units)
        check_totals(label, doc, b, n, units)
        print("ok    %s: the steady state's groups (left out: %s / %s)" % (label, want_apart[0], want_apart[1]))
    check(outliers_seen > 0, "the cases hold an outlier graph left out (%d)" % outliers_seen)
    # --include-warmup: every record, the member says so
    doc, _ = diff_json(g("ggml", "cpu-f32-t1"), g("ggml", "cpu-f32-t2"))
    check(doc and doc["warmup"]["apart"] is False and doc["base"]["records"] == len(load(g("ggml", "cpu-f32-t1"))["records"]),
          "--include-warmup: every record compared")


def noise_runs(data):
    """Real captures (capture-noise.sh). On the idle machine (noise/): no pair of the ten
    identical runs fails the check, every pair of a run and one with 3x wider feed-forward
    matrices does, single runs and three against three. On the loaded machine
    (noise-loaded/, ten identical runs whose MUL_MAT totals differ up to 6x): no pair fails."""
    g = lambda d, n: os.path.join(data, d, n + ".json.gz")
    status = lambda args: subprocess.run([OPSCOPE, "diff"] + args, capture_output=True).returncode
    for d in ("noise", "noise-loaded"):
        fails = [(i, j) for i in range(1, 11) for j in range(1, 11) if i != j and
                 status([g(d, "same-%d" % i), g(d, "same-%d" % j), "--fail-on-regression", "10", "-q"]) != 0]
        check(not fails, "%s: identical commands, 90 ordered pairs of single runs: no failure (%s)" % (d, fails))
        print("ok    %s: identical commands, 90 ordered pairs of single runs: --fail-on-regression 10 exits 0" % d)
    missed = [(i, j) for i in range(1, 11) for j in range(1, 4) if
              status([g("noise", "same-%d" % i), g("noise", "wide-%d" % j), "--fail-on-regression", "10", "-q"]) != 3]
    check(not missed, "wider matrices exit 3 in each of the 30 single-run pairs (missed: %s)" % missed)
    p = run([g("noise", "same-1"), g("noise", "wide-1"), "--fail-on-regression", "10"], expect=3)
    check(b"MUL_MAT @CPU  REGRESSION" in p.stdout, "same-1 vs wide-1 names MUL_MAT")
    run([g("noise", "same-%d" % i) for i in range(1, 6)] + ["--"] + [g("noise", "same-%d" % i) for i in range(6, 11)] +
        ["--fail-on-regression", "10", "-q"], expect=0)
    run([g("noise-loaded", "same-%d" % i) for i in range(1, 6)] + ["--"] +
        [g("noise-loaded", "same-%d" % i) for i in range(6, 11)] + ["--fail-on-regression", "10", "-q"], expect=0)
    for k in (0, 3, 6):
        run([g("noise", "same-%d" % (k + i)) for i in (1, 2, 3)] + ["--"] + [g("noise", "wide-%d" % i) for i in (1, 2, 3)] +
            ["--fail-on-regression", "10", "-q"], expect=3)
    print("ok    wider matrices exit 3 in 30 of 30 single-run pairs and 3 of 3 three-against-three; "
          "5 against 5 identical runs exit 0 (idle and loaded)")


def write_profile(path, recs, backends=((0, "CPU"),), gz=False):
    doc = {"profiler": "ggml", "version": 3,
           "backends": [{"id": i, "name": n, "device": "test", "device_type": 0} for i, n in backends],
           "records": recs}
    data = json.dumps(doc).encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if gz else data)


def synthetic():
    """Known injected deltas, exact numbers written here, not computed by any model."""
    def rec(name, d, t, graph, node, sub=None, src1_tokens=1, tensor=None):
        r = {"type": 0, "name": name, "backend_id": 0, "split_id": 0, "start_ns": t, "duration_ns": d,
             "bytes": 0, "extra": None, "n_src": 2, "ne_src": [[64, 64, 1, 1], [64, src1_tokens, 1, 1]],
             "type_src": [0, 0], "graph_id": graph, "node_index": node, "tensor_name": tensor or name.lower()}
        if sub:
            r["sub_op"] = sub
        return r

    def build(scale_mm, with_softmax, with_gelu, factor=1.0, graphs=10):
        recs, t = [], 1000
        for gi in range(graphs):
            for k in range(10):
                j = 10 if (gi * 10 + k) % 2 else -10  # jitter: per-call durations vary
                d = int(round((1000 * scale_mm + j) * factor))
                recs.append(rec("MUL_MAT", d, t, gi, 2 * k))
                t += d + 5
                d2 = int(round((200 + j / 10) * factor))
                recs.append(rec("ADD", d2, t, gi, 2 * k + 1))
                t += d2 + 5
            if with_softmax:
                recs.append(rec("SOFT_MAX", 300, t, gi, 30))
                t += 305
            if with_gelu:
                recs.append(rec("UNARY", 150, t, gi, 31, sub="GELU"))
                t += 155
        return recs

    base = os.path.join(WORK, "syn-base.json")
    new = os.path.join(WORK, "syn-new.json")
    slow = os.path.join(WORK, "syn-slow.json")
    write_profile(base, build(1.0, False, True))
    write_profile(new, build(1.2, True, False))
    write_profile(slow, build(1.0, False, True, factor=1.2))
    doc, _ = diff_json(base, new, ["--min-share", "0"])
    g = {x["name"]: x for x in doc["groups"]}
    # MUL_MAT: 100 calls of 990/1010 ns -> 1190/1210 ns: +20,000 ns exactly
    check(g["MUL_MAT @CPU"]["base_total_ns"] == 100000 and g["MUL_MAT @CPU"]["new_total_ns"] == 120000 and
          g["MUL_MAT @CPU"]["delta_ns"] == 20000 and g["MUL_MAT @CPU"]["significant"] and
          g["MUL_MAT @CPU"]["ratio"] == 1.2, "synthetic MUL_MAT: %s" % g["MUL_MAT @CPU"])
    check(g["ADD @CPU"]["delta_ns"] == 0 and g["ADD @CPU"]["base_total_ns"] == 20000 and
          not g["ADD @CPU"]["significant"] and g["ADD @CPU"]["p_value"] == 1,
          "synthetic ADD: unchanged and within noise: %s" % g["ADD @CPU"])
    check(g["SOFT_MAX @CPU"]["status"] == "only_new" and g["SOFT_MAX @CPU"]["delta_ns"] == 3000 and
          g["SOFT_MAX @CPU"]["new_count"] == 10, "synthetic SOFT_MAX only in NEW")
    check(g["UNARY(GELU) @CPU"]["status"] == "only_base" and g["UNARY(GELU) @CPU"]["delta_ns"] == -1500,
          "synthetic UNARY(GELU) only in BASE")
    check([x["name"] for x in doc["groups"]] == ["MUL_MAT @CPU", "SOFT_MAX @CPU", "UNARY(GELU) @CPU", "ADD @CPU"],
          "rows sorted by |delta|: %s" % [x["name"] for x in doc["groups"]])
    check(doc["totals"]["total"]["delta_ns"] == 20000 + 3000 - 1500, "synthetic total delta")
    print("ok    synthetic pair: injected +20000, +3000, -1500, 0 ns found exactly")

    # --fail-on-regression on a run that is 20% slower everywhere: with one run a side that is
    # what a busier machine does too, so it passes and says the total was not checked; with
    # three runs a side (their totals 1% apart) it fails
    p = run([base, slow, "--fail-on-regression", "10"], expect=0)
    check(b"the total is not checked" in p.stdout and b"REGRESSION" not in p.stdout,
          "one run a side: a uniform slowdown is not called a regression")
    runs_b, runs_s = [], []
    for i, f in enumerate((1.0, 1.01, 0.99)):
        runs_b.append(os.path.join(WORK, "syn-base-%d.json" % i))
        runs_s.append(os.path.join(WORK, "syn-slow-%d.json" % i))
        write_profile(runs_b[-1], build(1.0, False, True, factor=f))
        write_profile(runs_s[-1], build(1.0, False, True, factor=1.2 * f))
    p = run(runs_b + ["--", *runs_s, "--fail-on-regression", "10", "-q"], expect=3)
    p = run(runs_b + ["--", *runs_s, "--fail-on-regression", "10"], expect=3)
    check(b"FAILED" in p.stdout and b"REGRESSION" in p.stdout and b"per-run totals of 3 BASE and 3 NEW" in p.stdout,
          "the console names the regression and the test")
    run(runs_b + ["--", *runs_s, "--fail-on-regression", "25", "-q"], expect=0)
    run(runs_b + ["--", *runs_b, "--fail-on-regression", "0", "-q"], expect=0)
    run([base, base, "--fail-on-regression", "0", "-q"], expect=0)
    out = os.path.join(WORK, "d.json")
    run(runs_b + ["--", *runs_s, "--fail-on-regression", "10", "--json", out, "-q", "--include-warmup"], expect=3)
    doc = json.load(open(out))
    check(doc["failed"] and doc["totals"]["total_regression"] and doc["summary"]["regressions"] == 2 and
          doc["noise"]["test"] == "welch_t_runs" and doc["base"]["runs"] == 3 and
          doc["normalization"]["unit"] == "none" and doc["normalization"]["base_units"] == 3,
          "JSON of the failed check: %s %s" % (doc["summary"], doc["noise"]))
    # per run: the mean of the runs' totals (independently: sum of durations / 3)
    mm = [x for x in doc["groups"] if x["name"] == "MUL_MAT @CPU"][0]
    want = sum(int(r["duration_ns"]) for f in runs_b for r in json.load(open(f))["records"]
               if r["name"] == "MUL_MAT") / 3
    check(math.isclose(mm["base_norm_ns"], want, rel_tol=1e-12), "per-run mean %s != %s" % (mm["base_norm_ns"], want))
    print("ok    --fail-on-regression: 20% slower everywhere exits 3 at 10% over 3 runs a side, 0 at 25%, "
          "0 with one run a side")

    # a huge delta keeps its column ("+31797.5%" is wider than it); --by keeps its order
    huge_b, huge_n = os.path.join(WORK, "syn-huge-b.json"), os.path.join(WORK, "syn-huge-n.json")
    write_profile(huge_b, [rec("ADD", 1000, 100, 0, 0)])
    write_profile(huge_n, [rec("ADD", 318975, 100, 0, 0)])
    p = run([huge_b, huge_n, "--by", "phase,op"])
    out = p.stdout.decode()
    hdr = [l for l in out.splitlines() if "Delta%" in l][0]
    row = [l for l in out.splitlines() if l.rstrip().endswith("ADD @CPU")][0]
    check("+31798%" in row and "319x" in row and row.index("+31798%") + 7 == hdr.index("Delta%") + 6,
          "Delta%% fits its column:\n%s\n%s" % (hdr, row))
    check("Aligned by phase,op " in out, "the header says the keys in the order given")
    doc, _ = diff_json(huge_b, huge_n, ["--by", "phase,op"])
    check(doc["by"] == "phase,op", "JSON by: %s" % doc["by"])

    # one op twice as slow, one run a side: a regression against the rest of the run
    slow_mm = os.path.join(WORK, "syn-slow-mm.json")
    write_profile(slow_mm, build(2.0, False, True))
    doc, _ = diff_json(base, slow_mm, ["--fail-on-regression", "10"], expect=3)
    rg = [x["name"] for x in doc["groups"] if x["regression"]]
    check(rg == ["MUL_MAT @CPU"] and not doc["totals"]["total_regression"], "MUL_MAT 2x: %s" % rg)
    print("ok    one op 2x slower, one run a side: exit 3, that op named")

    # per-graph normalisation: 10 graphs against 5 graphs of the same work (no token counts
    # differ: every graph has 1 token, so tokens normalise)
    short = os.path.join(WORK, "syn-short.json")
    write_profile(short, build(1.0, False, True, graphs=5))
    doc, _ = diff_json(base, short)
    check(doc["normalization"]["unit"] == "token" and doc["normalization"]["base_units"] == 10 and
          doc["normalization"]["new_units"] == 5 and all(x["delta_ns"] == 0 for x in doc["groups"]),
          "per token: 10 graphs against 5 of the same work give zero deltas")
    doc, _ = diff_json(base, short, ["--per", "graph"])
    check(doc["normalization"]["unit"] == "graph" and all(x["delta_ns"] == 0 for x in doc["groups"]),
          "--per graph")
    doc, _ = diff_json(base, short, ["--per", "none"])
    check(doc["normalization"]["unit"] == "none" and doc["totals"]["total"]["delta_ns"] < 0, "--per none")
    print("ok    normalisation: a half-length run compares equal per token and per graph")

    # gz and stdin: the same document
    gzp = os.path.join(WORK, "syn-new.json.gz")
    write_profile(gzp, build(1.2, True, False), gz=True)
    ref, _ = diff_json(base, new)
    a, _ = diff_json(base, gzp)
    b, _ = diff_json("-", gzp, stdin=open(base, "rb").read())
    c, _ = diff_json(base, "-", stdin=open(gzp, "rb").read())
    strip = lambda d: json.dumps([d["groups"], d["totals"], d["fusion"]], sort_keys=True)
    check(strip(a) == strip(ref) and strip(b) == strip(ref) and strip(c) == strip(ref),
          "gzip and stdin inputs give the same comparison")
    print("ok    gzip file, plain stdin and gzip stdin inputs: identical results")
    return base, new


def kineto_pairs(data, src):
    rules = kernel_rules(src)
    k = lambda n: os.path.join(data, "kineto", n + ".json.gz")
    a100 = KinetoRun(k("a100_alexnet_fwd"), rules)
    mi250 = KinetoRun(k("amd_mi250_minitoy_train"), rules)
    for keys in (["op"], ["kernel"], ["category"], ["cpu-op"], ["kernel", "cpu-op"], ["shape"]):
        doc, _ = diff_json(k("a100_alexnet_fwd"), k("amd_mi250_minitoy_train"),
                           ["--by", ",".join(keys), "--min-share", "0"])
        gb, gn = a100.groups(set(keys)), mi250.groups(set(keys))
        if keys == ["op"]:
            gb, gn = work_pairs(gb, gn)
        compare("A100 vs MI250 by %s" % ",".join(keys), doc, gb, gn)
        check_totals("A100 vs MI250", doc, a100, mi250)
        check(doc["merged_backends"], "A100 against MI250: no common backend name, merged")
    doc, _ = diff_json(k("a100_alexnet_fwd"), k("a100_alexnet_fwd"), ["--by", "kernel,cpu-op"])
    check(all(x["delta_ns"] == 0 for x in doc["groups"]) and not doc["fusion"], "A100 self diff")

    # a copy of the A100 trace with every GEMM kernel 1.5x longer (ts/dur text rewritten)
    d = load(k("a100_alexnet_fwd"))
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel" and classify(rules, e["name"]) == "gemm":
            e["dur"] = D(str(e["dur"])) * D("1.5")
    slow = os.path.join(WORK, "a100-slow-gemm.json")
    with open(slow, "w") as f:
        json.dump(d, f, default=str)
    # default=str would quote Decimals: write them as numbers
    txt = re.sub(r'"dur": "([0-9.]+)"', r'"dur": \1', open(slow).read())
    txt = re.sub(r'"ts": "([0-9.]+)"', r'"ts": \1', txt)
    open(slow, "w").write(txt)
    slow_run = KinetoRun(slow, rules)
    doc, _ = diff_json(k("a100_alexnet_fwd"), slow, ["--by", "category"])
    compare("A100 vs A100 with 1.5x GEMMs by category", doc, a100.groups({"category"}), slow_run.groups({"category"}))
    gm = [x for x in doc["groups"] if x["key"]["category"] == "gemm"][0]
    check(gm["significant"] and abs(gm["ratio"] - 1.5) < 1e-3, "GEMMs 1.5x slower: significant %s" % gm["ratio"])
    # the regression test is one-sided against the margin, at alpha over the checks (the
    # shown groups on both sides; one trace a side: the total is not one): 22 GEMM calls
    # whose durations spread as much as their mean make 1.5x significant, but not certainly
    # more than PCT% slower at that level
    ab, an = a100.groups({"category"}), slow_run.groups({"category"})
    gk = (("category", "gemm"),)
    m = sum(1 for x in doc["groups"] if x["shown"] and x["status"] == "both")
    for pct in (0, 10, 20):
        p = margin_p(ab[gk], an[gk], 1 + pct / 100)
        want = p < 0.05 / m
        doc, _ = diff_json(k("a100_alexnet_fwd"), slow, ["--by", "category", "--fail-on-regression", str(pct)],
                           expect=3 if want else 0)
        gm = [x for x in doc["groups"] if x["key"]["category"] == "gemm"][0]
        check(gm["regression"] == want and doc["noise"]["alpha_per_check"] == 0.05 / m,
              "GEMMs 1.5x slower at %d%%: regression %s, python p %.4f over %d checks" % (pct, want, p, m))
    check(all(x["delta_ns"] == 0 for x in doc["groups"] if x["key"]["category"] != "gemm"),
          "only the GEMM category changed")
    doc, _ = diff_json(k("a100_alexnet_fwd"), slow, ["--by", "kernel", "--min-share", "0"])
    compare("A100 vs A100 with 1.5x GEMMs by kernel", doc, a100.groups({"kernel"}, "CUDA"),
            slow_run.groups({"kernel"}, "CUDA"))
    # the default on traces: work pairs, each with the kernels it ran on each side
    doc, _ = diff_json(k("a100_alexnet_fwd"), slow, ["--min-share", "0"])
    compare("A100 vs A100 with 1.5x GEMMs by op (work pairs)", doc, a100.groups({"op"}, "CUDA"),
            slow_run.groups({"op"}, "CUDA"))
    check(doc["by"] == "op" and all(g["status"] == "both" for g in doc["groups"]),
          "work pairs of a trace against itself: every group on both sides")
    mdoc, _ = diff_json(k("amd_mi250_minitoy_train"), k("amd_mi250_minitoy_train"), ["--min-share", "0"])
    compare("MI250 self diff by op (work pairs)", mdoc, mi250.groups({"op"}, "ROCm"), mi250.groups({"op"}, "ROCm"))
    check(any(" [" in g["key"]["op"] for g in mdoc["groups"]), "work pairs carry the input dims")
    for g in doc["groups"]:
        for sd in ("base", "new"):
            ks = g.get(sd + "_kernels", [])
            check(sum(x["count"] for x in ks) == g[sd + "_count"] and
                  sum(x["total_ns"] for x in ks) == g[sd + "_total_ns"],
                  "%s: the %s kernels of a work pair add up to it" % (g["name"], sd))

    # two profiler steps against one: the recsys trace cut before its second step
    full = load(k("recsys_sampled_rank0"))
    steps = sorted(D(str(e["ts"])) for e in full["traceEvents"]
                   if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#"))
    cut = dict(full)
    cut["traceEvents"] = [e for e in full["traceEvents"] if "ts" not in e or D(str(e["ts"])) < steps[1]]
    one = os.path.join(WORK, "recsys-one-step.json")
    txt = json.dumps(cut, default=str)
    txt = re.sub(r'"(ts|dur)": "(-?[0-9.]+)"', r'"\1": \2', txt)
    open(one, "w").write(txt)
    r2, r1 = KinetoRun(k("recsys_sampled_rank0"), rules), KinetoRun(one, rules)
    check((r2.iterations, r1.iterations) == (2, 1), "profiler steps 2 and 1 (%d, %d)" % (r2.iterations, r1.iterations))
    for keys in (["kernel"], ["cpu-op"]):
        doc, _ = diff_json(k("recsys_sampled_rank0"), one, ["--by", ",".join(keys), "--min-share", "0"])
        check(doc["normalization"]["unit"] == "iteration", "recsys: per iteration")
        compare("recsys 2 steps vs 1 step by %s, per iteration" % ",".join(keys), doc,
                r2.groups(set(keys), "CUDA"), r1.groups(set(keys), "CUDA"), units=(2, 1))
        check_totals("recsys per iteration", doc, r2, r1, units=(2, 1))
    # each side carries its CPU side (steps, GPU busy/idle, top-level CPU time), the same as
    # the report's (checked against Python by tests/kineto/check_kineto.py)
    doc, _ = diff_json(k("recsys_sampled_rank0"), one, ["--min-share", "0"])
    for sd, path in (("base", k("recsys_sampled_rank0")), ("new", one)):
        rj = os.path.join(WORK, "cpu-side-%s.json" % sd)
        subprocess.run([OPSCOPE, "report", "-q", "--json", rj, path], check=True)
        want = json.load(open(rj))["summary"]["kineto"]
        cs = doc[sd].get("cpu_side", {})
        check(cs and all(cs[x] == want[x] for x in ("steps", "window_start_ns", "window_ns", "gpu_busy",
                                                     "cpu_top_level_ns", "cpu_bound")),
              "diff JSON %s cpu_side %s != report's" % (sd, str(cs)[:200]))
    check(len(doc["base"]["cpu_side"]["steps"]) == 2 and len(doc["new"]["cpu_side"]["steps"]) == 1,
          "per-step durations: 2 steps against 1")
    # --per token is refused on traces: exit 2, no output
    out = os.path.join(WORK, "never.json")
    p = run([k("recsys_sampled_rank0"), one, "--per", "token", "--json", out], expect=2)
    check(b"no token counts" in p.stderr and not os.path.exists(out), "--per token on traces: %s" % p.stderr)


def kineto_layers_phases():
    """A trace written here: vLLM-style phase annotations, one launch per kernel (eager), so
    layers are found by the attention-anchored rule; the NEW copy's decode kernels take twice
    as long. By phase, by layer and by CPU op against this script's own attribution."""
    names = [("flash_fwd_kernel", "aten::_flash_attention_forward", True, False),
             ("ampere_sgemm_128x64_nn", "aten::linear", False, True),
             ("vectorized_elementwise_kernel<silu>", "aten::silu", False, False),
             ("ampere_sgemm_64x32_tn", "aten::linear", False, True)]

    def build(decode_factor):
        ev, t, corr = [], 1000.0, 1
        kern = []  # (phase, layer or None, cpu op, dur ns)
        layer = -1
        for step, (ann, phase, layers) in enumerate((("execute_context_1(16)_generation_0(0)", "prefill", 2),
                                                     ("execute_context_0(0)_generation_1(1)", "decode", 2),
                                                     ("execute_context_0(0)_generation_1(1)", "decode", 2))):
            a0 = t
            layer = -1  # layers fold over steps: each forward pass counts from layer 0
            for li in range(layers):
                layer += 1
                for kname, op, attn, gemm in names:
                    dur = (8 if attn else 5) * (decode_factor if phase == "decode" else 1)
                    ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 100, "tid": 100,
                               "ts": t, "dur": 3, "args": {"External id": corr}})
                    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100,
                               "tid": 100, "ts": t + 1, "dur": 1, "args": {"correlation": corr}})
                    ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7,
                               "ts": t + 2, "dur": dur, "args": {"correlation": corr, "External id": corr}})
                    kern.append((phase, layer, op, int(dur * 1000)))
                    corr += 1
                    t += 20
            ev.append({"ph": "X", "cat": "user_annotation", "name": ann, "pid": 100, "tid": 100,
                       "ts": a0 - 1, "dur": t - a0 + 1})
            ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step, "pid": 100,
                       "tid": 100, "ts": a0 - 2, "dur": t - a0 + 3})
            t += 50
        return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB",
                                                          "computeMajor": 8, "computeMinor": 0}],
                "traceEvents": ev}, kern

    paths, kerns = [], []
    for i, f in enumerate((1, 2)):
        doc, kern = build(f)
        pth = os.path.join(WORK, "phases-%d.json" % i)
        json.dump(doc, open(pth, "w"))
        paths.append(pth)
        kerns.append(kern)

    def groups(kern, keys):
        out = {}
        for phase, layer, op, d in kern:
            k = {}
            if "phase" in keys:
                k["phase"] = phase
            if "layer" in keys:
                k["layer"] = "layer %d" % layer
            if "cpu-op" in keys:
                k["cpu_op"] = op
            out.setdefault(tuple(sorted(k.items())), {}).setdefault(op + str(d), []).append(d)
        return out
    for keys in (["phase"], ["layer"], ["layer", "phase"], ["cpu-op", "phase"]):
        doc, _ = diff_json(paths[0], paths[1], ["--by", ",".join(keys), "--min-share", "0"])
        exp = [groups(kerns[0], set(keys)), groups(kerns[1], set(keys))]
        got = {key_of(g): g for g in doc["groups"]}
        ok = set(got) == set(exp[0]) | set(exp[1])
        for k in got:
            b = [x for xs in exp[0].get(k, {}).values() for x in xs]
            n = [x for xs in exp[1].get(k, {}).values() for x in xs]
            ok &= (got[k]["base_count"], got[k]["base_total_ns"], got[k]["new_count"], got[k]["new_total_ns"]) == \
                (len(b), sum(b), len(n), sum(n))
        check(ok, "synthetic trace by %s: %s" % (",".join(keys), sorted((k, g["base_total_ns"], g["new_total_ns"])
                                                                      for k, g in got.items())[:4]))
        if keys == ["phase"]:
            ph = {g["key"]["phase"]: g for g in doc["groups"]}
            check(ph["prefill"]["delta_ns"] == 0 and ph["decode"]["delta_ns"] == sum(
                d for p, _, _, d in kerns[0] if p == "decode"), "only decode changed")
    doc, _ = diff_json(paths[0], paths[1], ["--by", "cpu-op"])
    lin = [g for g in doc["groups"] if g["key"]["cpu_op"] == "aten::linear"][0]
    check(lin["base_calls"] == 12 and lin["base_count"] == 12, "CPU op calls counted once each")
    print("ok    synthetic trace: phases, attention-anchored layers and CPU ops attributed as written")


def bad_inputs(base, new):
    outs = [os.path.join(WORK, n) for n in ("bad.json", "bad.txt", "bad.html")]
    keep = os.path.join(WORK, "keep.json")
    open(keep, "w").write("previous content")
    trunc = os.path.join(WORK, "truncated.json")
    data = open(new, "rb").read()
    open(trunc, "wb").write(data[:len(data) // 2])
    notjson = os.path.join(WORK, "notjson.json")
    open(notjson, "w").write('{"records": [ {"type": 0, "name": "X", "duration_ns": -5} ]}')
    # a profile cut short (a crash while it was written) is read up to its cut, with one warning
    for b, n in ((trunc, base), (base, trunc)):
        p = run([b, n, "-q"])
        err = p.stderr.decode()
        check(err.count("\n") == 1 and err.startswith("opscope: warning: " + trunc + " is cut short at byte"),
              "a truncated input: one warning naming it: %r" % err)
    for b, n in ((base, notjson), (base, os.path.join(WORK, "missing.json"))):
        for o in outs:
            if os.path.exists(o):
                os.remove(o)
        p = run([b, n, "--json", outs[0], "--text", outs[1], "--html", outs[2]], expect=2)
        line = p.stderr.decode().strip().splitlines()
        bad = b if b != base else n
        check(len(line) == 1 and line[0].startswith(bad + ":") and "error" in line[0],
              "one positioned error line: %r" % line)
        if "missing" not in bad:
            check(re.match(re.escape(bad) + r":\d+:\d+: error: ", line[0]) is not None, "FILE:LINE:COL: %r" % line)
        check(not any(os.path.exists(o) for o in outs), "no output file after a bad input")
        check(not [f for f in os.listdir(WORK) if ".tmp." in f], "no temporary file left")
        p = run([b, n, "--json", keep], expect=2)
        check(open(keep).read() == "previous content", "an existing output file is left untouched")
    print("ok    bad inputs: exit 2, FILE:LINE:COL, no output written; a truncated one read with a warning")
    for args, what in (([base], "missing NEW"), ([base, new, "--by", "nope"], "unknown key"),
                       (["-", "-"], "two stdin"), ([base, new, "--json", "x", "--text", "x"], "same output"),
                       ([base, new, "--fail-on-regression", "abc"], "bad percentage"),
                       ([base, new, "--per", "week"], "bad unit"), ([base, new, "--bogus"], "unknown option"),
                       ([base, new, "--json", base], "overwrite the input")):
        p = run(args, expect=1)
        check(b"Try 'opscope diff --help'" in p.stderr, "usage error (%s) says how to get help" % what)
    p = run(["--help"], expect=0)
    check(b"usage: opscope diff BASE NEW" in p.stdout and b"--fail-on-regression" in p.stdout, "--help")
    print("ok    usage errors exit 1; --help")


def outputs(base, new, browser):
    """--text and --html carry the same groups as --json; the page passes the browser check."""
    j, t, h = (os.path.join(WORK, n) for n in ("o.json", "o.txt", "o.html"))
    run([base, new, "--json", j, "--text", t, "--html", h, "--min-share", "0", "-q"])
    doc = json.load(open(j))
    text = open(t).read()
    check(all(g["name"] in text for g in doc["groups"]), "--text lists every group")
    page = open(h, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="opscope-diff">(.*?)</script>', page, re.S)
    check(m and json.loads(m.group(1))["groups"] == doc["groups"], "--html embeds the same comparison")
    check('id="opscope-data-base"' in page and 'id="opscope-data-new"' in page, "--html has both timelines")
    check("Content-Security-Policy" in page and "http://" not in page.replace("http-equiv", ""),
          "--html is self-contained")
    # a hostile op name reaches the page only escaped inside JSON
    evil = '</script><img src=x onerror=alert(1)>'
    recs = [{"type": 0, "name": evil, "backend_id": 0, "split_id": 0, "start_ns": 10 * i, "duration_ns": 5 + i,
             "bytes": 0, "extra": None, "n_src": 0, "ne_src": []} for i in range(3)]
    ea, eb = os.path.join(WORK, "evil-a.json"), os.path.join(WORK, "evil-b.json")
    write_profile(ea, recs, backends=((0, evil),))
    write_profile(eb, recs[:2], backends=((0, evil),))
    eh = os.path.join(WORK, "evil.html")
    run([ea, eb, "--html", eh, "-q"])
    page = open(eh, encoding="utf-8").read()
    check("<img" not in page and page.count("</script>") == page.count("<script"),
          "--html: data cannot close its script element")
    if browser:
        # the timelines draw every record of the runs, warm-up and load included (the tables
        # compare the steady state)
        n0, n1 = (len(load(x)["records"]) for x in (base, new))
        p = subprocess.run(["node", browser, h, str(len(doc["groups"])), str(n0), str(n1)],
                           capture_output=True, text=True)
        sys.stdout.write(p.stdout)
        check(p.returncode == 0, "browser check of the diff page: %s" % p.stderr[-500:])
    print("ok    outputs: text, JSON and HTML agree")


def doc_table(src):
    """docs/diff.md lists the ggml op categories of model/ggml_ops.def, row by row (each
    category's ops in enum order)."""
    ops = {}
    for line in open(os.path.join(src, "src", "model", "ggml_ops.def")):
        m = re.match(r'\s*GGML_OP\((\w+),\s*(\w+),', line)
        if m and m.group(2) != "NONE":
            ops.setdefault(m.group(2), []).append(m.group(1))
    names = {"GEMM": "gemm", "MOE_GEMM": "moe_gemm", "ATTN_PREFILL": "attention_prefill", "NORM": "norm",
             "REDUCE": "reduce", "MEMORY": "memory", "ELEMENTWISE": "elementwise"}
    text = open(os.path.join(src, "docs", "diff.md")).read()
    rows = {m.group(1): re.findall(r"`(\w+)`", m.group(2))
            for m in re.finditer(r"^\| `(\w+)` \| (`.*)\|$", text.split("### ggml op categories")[1].split("##")[0], re.M)}
    check(rows == {names[c]: v for c, v in ops.items()}, "docs/diff.md op category table differs from the .def")
    print("ok    docs/diff.md shows model/ggml_ops.def's categories (%d ops)" % sum(len(v) for v in ops.values()))


def kineto_bar(data, src):
    """The pairing bar on a real pair of different GPUs and kernel libraries (HTA's A100 and
    V100 runs of one training step, tests/diff/data/README.md): at least 80% of BASE's GPU
    time in --by op groups with both sides, groups and totals equal to Python's own reading
    of the traces (every GPU activity's duration, summed)."""
    rules = kernel_rules(src)
    k = lambda n: os.path.join(data, "kineto", n + ".json.gz")
    a, v = KinetoRun(k("hta_a100_step1"), rules), KinetoRun(k("hta_v100_step1"), rules)
    doc, _ = diff_json(k("hta_a100_step1"), k("hta_v100_step1"), ["--min-share", "0"])
    gb, gn = work_pairs(a.groups({"op"}), v.groups({"op"}))
    # pairing and sums here; the noise test is checked on the other pairs
    compare("HTA A100 vs V100 by op (work pairs)", doc, gb, gn, p_checks=False)
    check_totals("HTA A100 vs V100", doc, a, v)
    both = sum(g["base_total_ns"] for g in doc["groups"] if g["status"] == "both")
    total = sum(g["base_total_ns"] for g in doc["groups"])
    check(total == a.op_ns + a.copy_ns and both >= 0.8 * total,
          "HTA A100 vs V100: %.1f%% of BASE's GPU time paired (bar 80%%)" % (100.0 * both / total))
    print("ok    HTA A100 vs V100 by op: %.1f%% of BASE's GPU time in pairs (bar 80%%)" % (100.0 * both / total))
    # training phases: backward ops and optimizer steps around each launch, else forward
    doc, _ = diff_json(k("hta_a100_step1"), k("hta_v100_step1"), ["--by", "phase", "--min-share", "0"])
    got = {g["key"]["phase"]: (g["base_count"], g["base_total_ns"], g["new_count"], g["new_total_ns"])
           for g in doc["groups"]}
    pb, pn = training_phases(k("hta_a100_step1")), training_phases(k("hta_v100_step1"))
    want = {p: (len(pb.get(p, [])), sum(pb.get(p, [])), len(pn.get(p, [])), sum(pn.get(p, [])))
            for p in set(pb) | set(pn)}
    check(got == want and set(got) == {"forward", "backward", "optimizer"},
          "HTA by phase: opscope %s, python %s" % (got, want))
    print("ok    HTA by phase: forward, backward and optimizer as Python finds them")
    # the console lists each side's kernels under a pair whose sides ran different ones
    out = run([k("hta_a100_step1"), k("hta_v100_step1")]).stdout.decode()
    mm = out.split("  aten::mm\n", 1)[-1].splitlines()[:2]
    check(len(mm) == 2 and "BASE kernels: " in mm[0] and "cutlass" in mm[0] and
          "NEW  kernels: " in mm[1] and "volta_sgemm" in mm[1], "aten::mm pair's kernels: %s" % mm)
    # kernels that share a short form carry a tag of their full name: the same in the diff
    # as in each run's report, whatever the order of either table
    p = run([k("hta_a100_step1"), k("hta_v100_step1"), "--by", "kernel", "--min-share", "0", "--top", "1000"])
    tagged = set(re.findall(r"(\S+ #[0-9a-f]{4})\b", p.stdout.decode()))
    legend = {}
    for n in ("hta_a100_step1", "hta_v100_step1"):
        tp = os.path.join(WORK, n + ".report.txt")
        subprocess.run([OPSCOPE, "report", "-q", "--top-ops", "1000", "--text", tp, k(n)], check=True)
        txt = open(tp, encoding="utf-8").read()
        legend.update(re.findall(r"^\s+.*?(\S+ #[0-9a-f]{4})\n\s+(.*)$", txt, re.M))
    check(len(tagged) >= 5 and tagged <= set(legend),
          "diff's tagged kernels %d, %s not in the reports' legends" % (len(tagged), sorted(tagged - set(legend))[:3]))
    print("ok    %d kernels sharing a short form: one tag each in the diff and the reports" % len(tagged))
    # the kernels under a pair carry the same tags
    lines = [l for l in out.splitlines() if " kernels: " in l]
    sub = {m for l in lines for m in re.findall(r"#([0-9a-f]{4})\b", l)}
    rep = {x.rsplit("#", 1)[1] for x in legend}
    check(len(sub & rep) >= 3 and (sub & set(x.rsplit("#", 1)[1] for x in tagged)) <= rep,
          "tags under pairs: %d, %d also in the reports' legends" % (len(sub), len(sub & rep)))


def training_phases(path):
    """Python's training phase of every GPU activity (docs/kineto.md, "Phases"): the innermost
    backward CPU op ('autograd::engine::evaluate_function...', '...Backward...') or
    'Optimizer.step#' annotation around its launch on the launching thread, else forward.
    Returns {phase: [durations]}."""
    ev = load(path)["traceEvents"]
    marks, runtime, acts = {}, {}, []
    for e in ev:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat, name, args = e.get("cat"), str(e.get("name", "")), e.get("args") or {}
        thr, t0 = (e.get("pid"), e.get("tid")), ns(e.get("ts"))
        ph = None
        if cat in CPU_OP and (name.startswith("autograd::engine::evaluate_function") or "Backward" in name):
            ph = "backward"
        elif cat == "user_annotation" and name.startswith("Optimizer.step#"):
            ph = "optimizer"
        if ph:
            marks.setdefault(thr, []).append((t0, t0 + max(ns(e.get("dur")), 0), ph))
        if cat in RUNTIME and as_int(args.get("correlation")) >= 0:
            runtime.setdefault(as_int(args.get("correlation")), (thr, t0))
        if cat in GPU_KERNEL | GPU_MEMSET | GPU_COPY:
            acts.append((as_int(args.get("correlation")), max(ns(e.get("dur")), 0)))
    out = {}
    for corr, d in acts:
        ph = "forward"
        if corr in runtime:
            thr, t = runtime[corr]
            inside = [m for m in marks.get(thr, []) if m[0] <= t <= m[1]]
            if inside:  # innermost: the latest start, then the shortest
                ph = sorted(inside, key=lambda m: (-m[0], m[1]))[0][2]
        out.setdefault(ph, []).append(d)
    return out


def kineto_training_layers():
    """Layers fold over steps and passes: an eager trace written here of 2 training steps of a
    3-layer model (forward: attention then GEMM per layer; backward, under autograd ops, from
    the last layer: GEMM then attention; one optimizer kernel) gives --by layer 3 layers, not
    12. Attention-anchored layers run from one attention kernel to the next; a step's forward
    ones count from 0, its backward ones from the last."""
    ev, t, corr, kern = [], 1000.0, 1, []  # kern: (segment in its step, phase, dur ns)

    def launch(op, kname, dur, thread, ann_phase):
        nonlocal t, corr
        ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": thread, "ts": t, "dur": 4,
                   "args": {"External id": corr}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": thread,
                   "ts": t + 1, "dur": 1, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": t + 2, "dur": dur,
                   "args": {"correlation": corr, "External id": corr}})
        kern.append((kname, ann_phase, dur * 1000))
        corr += 1
        t += 20
    for step in range(2):
        s0 = t
        for layer in range(3):
            launch("aten::_flash_attention_forward", "flash_fwd_kernel", 8 + layer, 10, "forward")
            launch("aten::mm", "ampere_sgemm_128x64_nn", 5, 10, "forward")
        b0 = t
        for layer in (2, 1, 0):
            launch("aten::mm", "ampere_sgemm_64x32_tn", 6, 11, "backward")
            launch("aten::_flash_attention_backward", "flash_bwd_kernel", 9 + layer, 11, "backward")
        ev.append({"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MmBackward0",
                   "pid": 1, "tid": 11, "ts": b0 - 1, "dur": t - b0 + 1})
        o0 = t
        launch("aten::_foreach_add_", "multi_tensor_apply_kernel", 3, 10, "optimizer")
        ev.append({"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step", "pid": 1, "tid": 10,
                   "ts": o0 - 1, "dur": t - o0 + 1})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step, "pid": 1, "tid": 10,
                   "ts": s0 - 2, "dur": t - s0 + 3})
        t += 50
    pth = os.path.join(WORK, "training-layers.json")
    json.dump({"schemaVersion": 1, "traceEvents": ev}, open(pth, "w"))
    # Python's layers: segments from each attention kernel to the next; per step, forward
    # segments (by their first kernel's phase) 0, 1, 2, backward ones numbered from the last
    want, per_step, n_found = {}, len(kern) // 2, 0
    for st in range(2):
        ks = kern[st * per_step:(st + 1) * per_step]
        segs = []
        for kname, ph, d in ks:
            if "flash" in kname:
                segs.append([ph, []])
            if segs:
                segs[-1][1].append((ph, d))
        segs = [x for x in segs if any(d == 5000 or d == 6000 for _, d in x[1])]  # a layer holds a GEMM
        n_found += len(segs)
        fw = [x for x in segs if x[0] == "forward"]
        bw = [x for x in segs if x[0] == "backward"]
        for i, sg in enumerate(fw):
            for ph, d in sg[1]:
                want.setdefault(("layer %d" % i, ph), []).append(d)
        for i, sg in enumerate(bw):
            for ph, d in sg[1]:
                want.setdefault(("layer %d" % (len(bw) - 1 - i), ph), []).append(d)
    doc, _ = diff_json(pth, pth, ["--by", "layer,phase", "--min-share", "0"])
    got = {(g["key"]["layer"], g["key"]["phase"]): (g["base_count"], g["base_total_ns"])
           for g in doc["groups"] if g["key"]["layer"] != "(no layer)"}
    exp = {k: (len(v), sum(v)) for k, v in want.items()}
    layers = {k[0] for k in got}
    check(got == exp and layers == {"layer 0", "layer 1", "layer 2"},
          "training layers folded: opscope %s, python %s" % (sorted(got.items()), sorted(exp.items())))
    rj = os.path.join(WORK, "training-layers.report.json")
    subprocess.run([OPSCOPE, "report", "-q", "--json", rj, pth], check=True)
    ly = json.load(open(rj))["summary"]["kineto"]["layers"]
    check((ly["count"], ly["folded"]) == (n_found, 3), "report's layers: %s, python %d passes" % (ly, n_found))
    print("ok    2 training steps of a 3-layer model: 3 layers (folded from %d), as Python numbers them" % n_found)


def kineto_fusion_credit():
    """A CPU op whose kernels were renamed (fp32 sgemm -> bf16 nvjet) and lost a small split-K
    reduction on some calls: the fusion line credits the reduction kernels' own time, not the
    whole speed-up of the op (which would credit -113.8 ms to a kernel worth 0.23 ms)."""
    def build(kernels):
        ev, t, corr = [], 1000.0, 1
        for call in kernels:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100,
                       "ts": t, "dur": 4, "args": {"External id": corr}})
            kt = t + 10
            for kname, dur in call:
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100,
                           "tid": 100, "ts": t + 1, "dur": 1, "args": {"correlation": corr}})
                ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7,
                           "ts": kt, "dur": dur, "args": {"correlation": corr, "External id": corr}})
                kt += dur + 1
                corr += 1
            t += 400
        return {"schemaVersion": 1, "traceEvents": ev}
    # BASE: 10 calls of a 100 us sgemm, 3 of them followed by a 2 us split-K reduction;
    # NEW: 10 calls of a 40 us nvjet kernel
    base = [[("ampere_sgemm_128x64_nn", 100)] + ([("void cublasLt::splitKreduce_kernel<float>", 2)]
                                                 if i < 3 else []) for i in range(10)]
    new = [[("nvjet_tst_128x64_64x4_bf16", 40)] for _ in range(10)]
    paths = []
    for i, calls in enumerate((base, new)):
        pth = os.path.join(WORK, "fusion-credit-%d.json" % i)
        json.dump(build(calls), open(pth, "w"))
        paths.append(pth)
    doc, _ = diff_json(paths[0], paths[1], ["--min-share", "0"])
    f = [x for x in doc["fusion"] if x["name"] == "aten::mm"]
    gone = sum(d for c in base for k, d in c if "splitK" in k) * 1000
    check(len(f) == 1 and f[0]["base_kernels"] == 13 and f[0]["new_kernels"] == 10 and
          f[0]["delta_ns"] == -gone and "splitKreduce" in f[0].get("kernel", ""),
          "fusion credit of aten::mm: the gone split-K kernels' %d ns, got %s" % (gone, f))
    op = [g for g in doc["groups"] if g["key"]["op"] == "aten::mm"]
    check(len(op) == 1 and op[0]["delta_ns"] == (400 - 1006) * 1000, "aten::mm pair: %s" % op)
    print("ok    fusion credit: a kernel that disappears is credited its own time only")


def main():
    global OPSCOPE, WORK
    args = sys.argv[1:]
    browser = None
    if "--browser" in args:
        i = args.index("--browser")
        browser = args[i + 1]
        del args[i:i + 2]
    OPSCOPE, data, WORK = args[0], args[1], args[2]
    src = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    random.seed(7)
    doc_table(src)
    base, new = synthetic()
    ggml_pairs(data)
    warmup_apart(data)
    noise_runs(data)
    kineto_pairs(data, src)
    kineto_layers_phases()
    kineto_fusion_credit()
    kineto_training_layers()
    kineto_bar(data, src)
    bad_inputs(base, new)
    outputs(os.path.join(data, "ggml", "cpu-f32-t2.json.gz"),
            os.path.join(data, "ggml", "cpu-f32-nofuse-t2.json.gz"), browser)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all diff checks passed")


if __name__ == "__main__":
    main()
