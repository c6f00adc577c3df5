#!/usr/bin/python3
"""Helpers of scripts/same-outputs.sh (standard library only).

    same-outputs.py sniff FILE...            one line per FILE: FILE, kind, an annotation name
    same-outputs.py rpc DIR                  RPC client/server profiles for `opscope merge`
    same-outputs.py tbo PATH OPS_DEF SUB_DEF a scripted test-backend-ops for `opscope replay`
    same-outputs.py compare LIST VOLD VNEW COUNT_FILE
                                             the outputs that `diff -r` found different,
                                             compared again after the version mask

Kinds: ggml (a ggml profile), oplog (a record log), trace (Kineto / Chrome), summary (a job
summary), other. The kind only picks which kind-specific outputs the script adds; opscope's
own detection decides what each command does with the input.
"""
import gzip
import json
import os
import random
import re
import sqlite3
import sys


def read_head(path, n=1 << 16):
    with open(path, "rb") as f:
        b = f.read(n)
    if b[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as f:
                b = f.read(n)
        except (OSError, EOFError):
            return b""
    return b


def load_json(path):
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rb") as f:
        return json.loads(f.read())


def annotation(path):
    """The most frequent user_annotation name of a trace (ties: the first by name), or ''."""
    try:
        d = load_json(path)
    except (ValueError, OSError, EOFError):
        return ""
    ev = d.get("traceEvents", []) if isinstance(d, dict) else d if isinstance(d, list) else []
    counts = {}
    for e in ev:
        if isinstance(e, dict) and e.get("cat") == "user_annotation" and isinstance(e.get("name"), str):
            n = e["name"]
            if "\t" not in n and "\n" not in n:
                counts[n] = counts.get(n, 0) + 1
    if not counts:
        return ""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def sniff(paths):
    for p in paths:
        h = read_head(p)
        kind = "other"
        if h.startswith(b"\x89OPSLOG\n"):
            kind = "oplog"
        elif h.lstrip()[:1] in (b"{", b"["):
            if b'"traceEvents"' in h or b'"ph"' in h:
                kind = "trace"
            elif b'"records"' in h or b'"profiler"' in h:
                kind = "ggml"
            elif b'"summary"' in h and b'"job"' in h:
                kind = "summary"
        ann = annotation(p) if kind == "trace" and os.path.getsize(p) < (64 << 20) else ""
        print("%s\t%s\t%s" % (p, kind, ann))


def capture(program, pid, boot, time_ns):
    return {"host": "box", "program": program, "pid": pid, "clock": "CLOCK_MONOTONIC",
            "boot_id": boot, "time_ns": time_ns, "realtime_offset_ns": 1_700_000_000_000_000_000,
            "start_ns": 1000}


def rpc_run(offsets, tokens, seed, same_clock=False):
    """A client that sends each token's graph to every server in turn, and the servers' own
    profiles on clocks OFFSETS ahead of the client's: per call a tensor set, the remote graph
    (a GRAPH_SPLIT on the RPC backend), an asynchronous get and the SYNCHRONIZE that waits for
    it; the server computes the graph's ops inside that call and answers the get."""
    rnd = random.Random(seed)
    backends = [{"id": 0, "name": "CPU", "device": "Test CPU", "device_type": 0}]
    for s in range(len(offsets)):
        ep = "10.0.0.%d:50052" % (s + 2)
        backends.append({"id": 1 + s, "name": "RPC%d[%s]" % (s, ep), "device": ep, "device_type": 1})
    crec, srecs = [], [[] for _ in offsets]
    t = 4_000_000_000
    for k in range(tokens):
        for s, off in enumerate(offsets):
            b = 1 + s
            crec.append({"type": 1, "name": "copy_H2D", "backend_id": b, "split_id": -1, "start_ns": t,
                         "duration_ns": 15_000, "bytes": 2048, "extra": "tensor_copy"})
            c0 = t + 25_000
            crec.append({"type": 0, "name": "GRAPH_SPLIT", "backend_id": b, "split_id": 1, "start_ns": c0,
                         "duration_ns": 4_000, "bytes": 0, "extra": "24 nodes, no per-op timing",
                         "n_fused": 24, "graph_id": k})
            st = c0 + off + rnd.randint(50_000, 200_000)
            for i in range(12):
                d = rnd.randint(4_000, 30_000)
                srecs[s].append({"type": 0, "name": ("MUL_MAT", "ADD", "RMS_NORM")[i % 3], "backend_id": 0,
                                 "split_id": -1, "start_ns": st, "duration_ns": d, "bytes": 4096,
                                 "n_fused": 2, "graph_id": k, "node_index": i})
                st += d
            get = st + rnd.randint(1_000, 4_000)
            srecs[s].append({"type": 1, "name": "copy_H2H", "backend_id": 0, "split_id": -1, "start_ns": get,
                             "duration_ns": 400, "bytes": 2048, "extra": "tensor_get"})
            ga = c0 + 8_000
            crec.append({"type": 1, "name": "copy_D2H", "backend_id": b, "split_id": -1, "start_ns": ga,
                         "duration_ns": 2_500, "bytes": 2048, "extra": "tensor_get_async"})
            s0 = ga + 4_000
            s1 = get + 400 - off + rnd.randint(20_000, 50_000)
            crec.append({"type": 0, "name": "SYNCHRONIZE", "backend_id": b, "split_id": -1, "start_ns": s0,
                         "duration_ns": s1 - s0, "bytes": 0})
            t = s1 + rnd.randint(100_000, 900_000)
        crec.append({"type": 0, "name": "GET_ROWS", "backend_id": 0, "split_id": 0, "start_ns": t,
                     "duration_ns": 9_000, "bytes": 2048, "graph_id": 5000 + k})
        t += 50_000
    client = {"profiler": "opscope", "version": 3, "backends": backends,
              "records": sorted(crec, key=lambda r: r["start_ns"]),
              "capture": capture("llama-cli", 100, "b00t", 4026531834)}
    servers = []
    for s, recs in enumerate(srecs):
        boot, ns = ("b00t", 4026531834) if same_clock else ("srv%d" % s, 4026532000 + s)
        servers.append({"profiler": "opscope", "version": 3,
                        "backends": [{"id": 0, "name": "CPU", "device": "Server CPU", "device_type": 0}],
                        "records": sorted(recs, key=lambda r: r["start_ns"]),
                        "capture": capture("ggml-rpc-server", 200 + s, boot, ns)})
    return client, servers


def rpc(outdir):
    os.makedirs(outdir, exist_ok=True)

    def dump(name, obj):
        with open(os.path.join(outdir, name), "w") as f:
            json.dump(obj, f, separators=(",", ":"))

    c, (s,) = rpc_run([1_000_000_000_000], 30, 1)
    dump("client.json", c)
    dump("server.json", s)
    c, (s0, s1) = rpc_run([1_000_000_000_000, 2_500_000_000_000], 20, 2)
    dump("client2.json", c)
    dump("server2-a.json", s0)
    dump("server2-b.json", s1)
    c, (s,) = rpc_run([0], 10, 3, same_clock=True)
    dump("client-same.json", c)
    dump("server-same.json", s)


TBO = r'''#!/usr/bin/python3
# A scripted test-backend-ops for `opscope replay`: answers every line of --test-file with an
# `--output sql` row whose figures follow from the line's bytes alone (no timing), so two
# opscope binaries given it must print the same tables.
import sys, zlib
OPS = %(ops)r
UNARY = %(unary)r
GLU = %(glu)r
a = sys.argv
mode, path, backend = a[1], a[a.index("--test-file") + 1], a[a.index("-b") + 1]
cols = ("test_time, build_commit, backend_name, op_name, op_params, test_mode, supported, passed, "
        "error_message, time_us, flops, bandwidth_gb_s, memory_kb, n_runs, device_description, "
        "backend_reg_name")
print("CREATE TABLE IF NOT EXISTS test_backend_ops (")
for ln in open(path):
    v = ln.split()
    if not v:
        continue
    try:
        op = OPS[int(v[0])]
        if op == "UNARY":
            op = UNARY[int(v[7])]
        elif op == "GLU":
            op = GLU[int(v[7])]
    except (ValueError, IndexError):
        op = "?"
    h = zlib.crc32((backend + ln).encode())
    sup = "0" if h %% 7 == 0 else "1"
    ok = sup == "1" and h %% 11 != 0
    t = "%%.3f" %% (1 + (h %% 5000) / 100.0) if ok and mode == "perf" else "0"
    vals = ["2026-01-01T00:00:00Z", "unknown", backend, op, "name=%%s" %% v[-1], mode, sup,
            "1" if ok else "0", "" if ok else ("not supported" if sup == "0" else "scripted failure"),
            t, "0", "1.0", "1", "100" if ok else "0", "scripted", backend]
    print("INSERT INTO test_backend_ops (%%s) VALUES (%%s);" %% (cols, ", ".join("'%%s'" %% x for x in vals)))
'''


def def_names(path, macro):
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        return re.findall(r"^%s\(\s*([A-Z0-9_]+)" % macro, f.read(), re.M)


def tbo(path, ops_def, sub_def):
    src = TBO % {"ops": def_names(ops_def, "GGML_OP"), "unary": def_names(sub_def, "GGML_UNARY_OP"),
                 "glu": def_names(sub_def, "GGML_GLU_OP")}
    with open(path, "w") as f:
        f.write(src)
    os.chmod(path, 0o755)


# --- comparison ---------------------------------------------------------------------------

def is_sqlite(path):
    with open(path, "rb") as f:
        return f.read(16) == b"SQLite format 3\x00"


def sqlite_dump(path):
    """The database as SQL text: its page size and user version, then iterdump()."""
    c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        lines = ["PRAGMA page_size=%d;" % c.execute("PRAGMA page_size").fetchone()[0],
                 "PRAGMA user_version=%d;" % c.execute("PRAGMA user_version").fetchone()[0]]
        lines += list(c.iterdump())
    finally:
        c.close()
    return ("\n".join(lines) + "\n").encode()


def masked(path, version, rel):
    """PATH's bytes with the binary's own version string masked (the only allowed difference):
    `"generator":"opscope V"` (report --json, merge, diff --json and the diff page that embeds
    it), the SQLite export's meta row ('generator','opscope V'), and stdout's whole line
    `opscope V` (--version)."""
    if is_sqlite(path):
        b = sqlite_dump(path)
    else:
        with open(path, "rb") as f:
            b = f.read()
    if not version:
        return b
    v = version.encode()
    b = b.replace(b'"generator":"opscope ' + v + b'"', b'"generator":"opscope VERSION"')
    b = b.replace(b"'generator','opscope " + v + b"'", b"'generator','opscope VERSION'")
    if rel == "stdout":
        b = re.sub(rb"(?m)^opscope " + re.escape(v) + rb"$", b"opscope VERSION", b)
    return b


def snippet(b, at):
    ls = b.rfind(b"\n", 0, at) + 1
    le = b.find(b"\n", at)
    le = len(b) if le < 0 else le
    lo, hi = max(ls, at - 50), min(le, at + 50)
    s = b[lo:hi].decode("utf-8", "replace")
    return ("..." if lo > ls else "") + s + ("..." if hi < le else "")


def first_difference(a, b):
    n = min(len(a), len(b))
    i = 0
    while i + 65536 <= n and a[i:i + 65536] == b[i:i + 65536]:
        i += 65536
    i = next((k for k in range(i, n) if a[k] != b[k]), n)
    line = a.count(b"\n", 0, i) + 1
    col = i - (a.rfind(b"\n", 0, i) + 1) + 1
    return "line %d col %d (byte %d): old '%s' new '%s'" % (line, col, i + 1, snippet(a, i), snippet(b, i))


def compare(listfile, vold, vnew, countfile):
    """LIST: lines `ID<TAB>LABEL<TAB>OLD_DIR<TAB>NEW_DIR`. Prints a line per case whose outputs
    differ after the mask, with the first differing file and line; writes the count."""
    bad = 0
    with open(listfile) as f:
        rows = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
    for cid, label, od, nd in rows:
        files = set()
        for base in (od, nd):
            for dp, _, fs in os.walk(base):
                files.update(os.path.relpath(os.path.join(dp, x), base) for x in fs)
        why = []
        for rel in sorted(files, key=lambda r: (r not in ("status", "stdout", "stderr"), r)):
            po, pn = os.path.join(od, rel), os.path.join(nd, rel)
            if not os.path.exists(po) or not os.path.exists(pn):
                why.append("%s: only written by %s" % (rel, "new" if os.path.exists(pn) else "old"))
                continue
            a, b = masked(po, vold, rel), masked(pn, vnew, rel)
            if a != b:
                if rel == "status":
                    why.append("exit status: old %s new %s" % (a.decode().strip(), b.decode().strip()))
                else:
                    why.append("%s: %s" % (rel, first_difference(a, b)))
        if why:
            bad += 1
            more = " (and %d more)" % (len(why) - 1) if len(why) > 1 else ""
            print("DIFFERS  %s  [%s]  %s%s" % (label, cid, why[0], more), flush=True)
    with open(countfile, "w") as f:
        f.write("%d\n" % bad)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "sniff":
        sniff(args)
    elif cmd == "rpc":
        rpc(args[0])
    elif cmd == "tbo":
        tbo(*args)
    elif cmd == "compare":
        compare(*args)
    else:
        sys.exit("same-outputs.py: unknown helper " + cmd)


if __name__ == "__main__":
    main()
