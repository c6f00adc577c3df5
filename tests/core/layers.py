#!/usr/bin/env python3
"""Fails when src/'s folders break the declared layering (ARCHITECTURE.md, "Layers").

  layers.py SRC_DIR [BUILD_DIR]

One node per folder of src/ (src/export/sqlite is export, src/capture/gpu is capture).
  includes  X -> Y when a file of X includes "Y/..."
  symbols   X -> Y when an object compiled from X uses a symbol an object of Y defines (`nm` of
            the objects CMake built in BUILD_DIR/src; folders whose objects are not built here,
            such as the Vulkan layer without Vulkan's headers, are checked by their includes)
  hashes    a hash constant (a mixer's multiplier, the FNV basis or prime) outside util/hash.h:
            the tree has one 64-bit mixer and one FNV
  rooms     inside capture/, analyze/ and export/, the same includes and symbols one node
            per room (capture/store, analyze/ggml, export/html...): each edge allowed by
            ROOMS, no circle, no file outside a room
  size      no folder of src/ holds more than MAX_FILES files directly
  formats   a folder other than export/ (and util/, which is the writer) that calls
            util/out.h's writers (opscope_out_str, _printf, _json_str...) writes a format
  vocabulary  ggml op names (model/ggml_ops.def's first column) spelled in a string literal
            of code (comments left out) that is an op name or a list of them joined by
            '|', '+' or ':' ("MUL_MAT", "CPY|CONT", "RMS_NORM+MUL", "UNARY:SILU"; a name less
            its trailing digits, "MAP_CUSTOM", counts too): at most 3 files spell them, the
            table among them; everything else uses the enum (model/ggml_vocab.h). Prose that
            mentions an op ("the widest MUL_MAT's rows") is not vocabulary. The sub-op names
            of model/ggml_sub_ops.def (UNARY's and GLU's functions: "SILU", "UNARY:SILU")
            count the same way: code names them by their enum (OPSCOPE_GGML_UNARY_OP_SILU)
Each edge must be allowed by LAYERS (a folder uses only those below it); the folder graph
must have no circle; only export/ writes a format. The few file-level exceptions are named
in EXCEPTIONS with the reason. Prints each violation with the files and symbols behind it,
or one line per check, and exits 1 on any violation.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "capture_unit"))
from cycles import cycles as scc_cycles  # noqa: E402  (one Tarjan for both checks)

# folder -> the folders it may use. include/ (the public model) is below every folder.
LAYERS = {
    "util": set(),
    "model": {"util"},
    "read": {"model", "util"},
    "analyze": {"read", "model", "util"},
    "export": {"analyze", "read", "model", "util"},
    "cli": {"export", "analyze", "read", "model", "util"},
    "py": {"export", "analyze", "read", "model", "util"},  # the Python package's entry points
    "capture": {"model", "util"},
    "vklayer": {"util"},  # header-only util/hash.h: no symbol crosses
    "viewer": set(),
}

# capture/'s sub-rooms -> the rooms each may use (ARCHITECTURE.md, "capture's rooms"). From the
# bottom: store (record buffers, tables, counters, the clock and the replay to records), life
# (start-up, configuration, signals, fork, the export), resolve (ggml found at run time: its
# functions, layout and devices), timing (timestamps to per-op records), gpu (device timing
# sources and their pure mapping), hooks (every entry point the host program calls).
CAPTURE_ROOMS = {
    "store": set(),
    "life": {"store"},
    "resolve": {"life", "store"},
    "timing": {"resolve", "life", "store"},
    "gpu": {"timing", "resolve", "life", "store"},
    "hooks": {"gpu", "timing", "resolve", "life", "store"},
}

# analyze/'s rooms (ARCHITECTURE.md, "analyze's rooms"). From the bottom: record (a record's
# derived values, names and shapes), intervals (unions of busy time), rpc (RPC calls, their
# cover, clock offsets), ggml (a profile's stats, graphs, warm-up, roofline, llama runs),
# kineto (a trace's analyses), job (several ranks), diff (two sides aligned), session (the
# one pass that every command configures); live (a running capture's figures, opscope top:
# a window of per-second buckets over records as they arrive) beside them, over record.
ANALYZE_ROOMS = {
    "record": set(),
    "intervals": set(),
    "rpc": set(),
    "threads": {"record"},
    "ggml": {"record", "intervals", "rpc"},
    "kineto": {"record", "intervals"},
    "job": {"kineto", "record", "intervals"},
    "session": {"ggml", "kineto", "rpc", "record", "intervals", "threads"},
    "diff": {"session", "ggml", "kineto", "record", "intervals", "rpc"},  # session: its tee
    "live": {"record"},
}

# export/'s rooms: one per format family, over the shared writers (fmt) and the analyses' own
# sections (sections: text and JSON of graphs, requests, runs, RPC, peaks; kineto: a trace's);
# top (opscope top's frame as text) stands alone.
EXPORT_ROOMS = {
    "fmt": set(),
    "capture": {"fmt"},
    "sections": {"fmt"},
    "kineto": {"fmt"},
    "console": {"sections", "kineto", "fmt"},
    "json": {"sections", "kineto", "fmt"},
    "chrome": {"sections", "fmt"},
    "html": {"sections", "kineto", "fmt"},
    "sqlite": {"sections", "fmt"},
    "outputs": {"console", "json", "chrome", "html", "sections", "kineto", "fmt"},
    "replay": {"outputs", "sections", "fmt"},
    "diff": {"console", "html", "sections", "kineto", "fmt"},
    "job": {"html", "sections", "kineto", "fmt"},
    "top": set(),
}

ROOMS = {"capture": CAPTURE_ROOMS, "analyze": ANALYZE_ROOMS, "export": EXPORT_ROOMS}

# files directly in one folder of src/, at most
MAX_FILES = 40

# (file, folder used): allowed although the folder's layer does not allow it, and why.
EXCEPTIONS = {
    ("capture/life/cap_write.c", "analyze"): "the capture's one writer hook: its records go "
                                        "through the same sinks as a report's",
    ("capture/life/cap_write.c", "export"): "the capture's one writer hook (JSON profile, text)",
    ("capture/life/cap_write.c", "read"): "the writer hook makes the profile from the record log "
                                     "the capture streamed, through the log's one reader",
    ("vklayer/*", "capture"): "the GPU source ABI, capture/gpu/gpu_source.h, and nothing else",
}
VKLAYER_ABI = "capture/gpu/gpu_source.h"

# util/out.h functions that put bytes of a format (opening, committing and aborting an output
# is how cli and capture hand a file to an exporter, not a format)
WRITERS = re.compile(r"^opscope_out_(write|str|char|u64|i64|fixed|double|ns_as_us|json_strn?|printf)$")
# (file, reason): writes a format outside export/ today
FORMAT_EXCEPTIONS = {
    "capture/life/cap_life.c": "the status files an `opscope record` run reads back (a protocol "
                          "between the capture and the CLI, not an output)",
}

# the multipliers of fmix64, splitmix64 and the golden ratio (64 and 32 bits: Knuth's
# multiplicative hash), FNV-1a's basis and prime
HASH_CONSTANTS = re.compile(r"(?i)0x(ff51afd7ed558ccd|c4ceb9fe1a85ec53|bf58476d1ce4e5b9|94d049bb133111eb|"
                            r"9e3779b97f4a7c15|9e3779b1|9e3779b9|cbf29ce484222325|100000001b3)\b|"
                            r"\b(14695981039346656037|1099511628211|2654435761|2654435769)u?\b")
HASH_HOME = "util/hash.h"

# ggml's vocabulary: the files that may spell op names (the bar: at most 3, the table first)
VOCAB_TABLE = "model/ggml_ops.def"
VOCAB_SUB_TABLE = "model/ggml_sub_ops.def"
VOCAB_FILES = {
    VOCAB_TABLE: "ggml's enum ggml_op with each op's category, FLOPs and traffic rule",
}
VOCAB_MAX_FILES = 3
# (file, literal): not an op name although spelled like one, and why
VOCAB_NOT_OPS = {
    ("capture/store/cap_convert.c", "SUB"): "the placeholder name of an unknown sub-op (SUB_7)",
}
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
VOCAB_LITERAL = re.compile(r"^[A-Z0-9_]+(?:[|+:][A-Z0-9_]+)*$")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/([^"]+)"', re.M)


def folder_of(rel):
    return rel.split("/", 1)[0]


def allowed(rel_file, target):
    src = folder_of(rel_file)
    if target == src or target in LAYERS.get(src, set()):
        return True
    return (rel_file, target) in EXCEPTIONS or (src + "/*", target) in EXCEPTIONS


def room_of(rel):
    """capture/store/cap_buf.c -> capture/store; a file straight in capture/ is in no room."""
    parts = rel.split("/")
    return f"{parts[0]}/{parts[1]}" if len(parts) > 2 else f"{parts[0]}/(no room)"


def room_allowed(rel_file, target):
    """TARGET (a room, capture/store) is the room of REL_FILE or one its room may use."""
    src = room_of(rel_file)
    top, room = src.split("/", 1)
    return target == src or target.split("/", 1)[1] in ROOMS.get(top, {}).get(room, set())


def room_nodes():
    return {f"{top}/{r}" for top, rooms in ROOMS.items() for r in rooms}


def include_edges(src):
    """Folder edges, and capture's room edges, from the includes."""
    edges, rooms = {}, {}  # (from, to) -> [(file:line "include", bad)]
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            text = open(path, encoding="utf-8").read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                if target not in LAYERS:
                    continue
                line = text.count("\n", 0, m.start()) + 1
                why = f"{rel}:{line} {m.group(1)}/{m.group(2)}"
                if target == folder_of(rel):
                    if target in ROOMS:
                        to = room_of(f"{target}/{m.group(2)}")
                        if to != room_of(rel):
                            rooms.setdefault((room_of(rel), to), []).append((why, not room_allowed(rel, to)))
                    continue
                bad = not allowed(rel, target)
                if (folder_of(rel) == "vklayer" and target == "capture"
                        and f"{m.group(1)}/{m.group(2)}" != VKLAYER_ABI):
                    bad = True
                edges.setdefault((folder_of(rel), target), []).append((why, bad))
    return edges, rooms


def loose_room_files(src):
    """The .c and .h files of a folder with rooms that are in none (capture/x.c)."""
    out = []
    for name in sorted(ROOMS):
        top = os.path.join(src, name)
        if os.path.isdir(top):
            out += [f"{name}/{f}" for f in sorted(os.listdir(top)) if f.endswith((".c", ".h"))]
    return out


def crowded_folders(src):
    """(folder, files) of every folder of src/ with more than MAX_FILES files directly in it."""
    out = []
    for root, _, files in os.walk(src):
        if len(files) > MAX_FILES:
            out.append((os.path.relpath(root, src), len(files)))
    return sorted(out)


def hash_copies(src):
    out = []
    for root, _, files in os.walk(src):
        for f in sorted(files):
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            if f.endswith((".c", ".h")) and rel != HASH_HOME:
                text = open(path, encoding="utf-8").read()
                for m in HASH_CONSTANTS.finditer(text):
                    out.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1} {m.group(0)}")
    return out


def code_only(text):
    """TEXT with its comments blanked (newlines kept, so line numbers hold); strings and
    character constants are skipped whole, so a "/*" inside one opens no comment."""
    out, i, n = [], 0, len(text)
    token = re.compile(r'/\*.*?(\*/|\Z)|//[^\n]*|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', re.S)
    for m in token.finditer(text):
        out.append(text[i:m.start()])
        t = m.group(0)
        out.append("\n" * t.count("\n") if t.startswith(("/*", "//")) else t)
        i = m.end()
    out.append(text[i:n])
    return "".join(out)


def vocab_spellings(src):
    """{file: [line: literal]} of the op-name literals in src/ (ops read from VOCAB_TABLE)."""
    table = open(os.path.join(src, VOCAB_TABLE), encoding="utf-8").read()
    ops = set(re.findall(r"^GGML_OP\(([A-Z0-9_]+),", table, re.M))
    sub_table = open(os.path.join(src, VOCAB_SUB_TABLE), encoding="utf-8").read()
    subs = set(re.findall(r"^GGML_(?:UNARY|GLU)_OP\(([A-Z0-9_]+)\)", sub_table, re.M))
    is_op = lambda w: w in ops or (w + "1") in ops or w in subs
    found = {VOCAB_TABLE: [f"{len(ops)} ops"]} if ops else {}
    for root, _, files in os.walk(src):
        for f in sorted(files):
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            if not f.endswith((".c", ".h", ".def")) or rel == VOCAB_TABLE:
                continue
            text = code_only(open(path, encoding="utf-8").read())
            for m in LITERAL.finditer(text):
                lit = m.group(1)
                if (VOCAB_LITERAL.match(lit) and (rel, lit) not in VOCAB_NOT_OPS
                        and any(is_op(w) for w in re.split(r"[|+:]", lit))):
                    found.setdefault(rel, []).append(f"{text.count(chr(10), 0, m.start()) + 1}: \"{lit}\"")
    return found


def check_vocab(src):
    found = vocab_spellings(src)
    bad = 0
    if VOCAB_TABLE not in found:
        bad = 1
        print(f"vocabulary: no op in {VOCAB_TABLE}")
    for rel, where in sorted(found.items()):
        if rel not in VOCAB_FILES:
            bad = 1
            more = f" (+{len(where) - 4} more)" if len(where) > 4 else ""
            print(f"vocabulary: {rel} spells ggml op or sub-op names (use model/ggml_vocab.h): "
                  f"{'; '.join(where[:4])}{more}")
    if len(VOCAB_FILES) > VOCAB_MAX_FILES:
        bad = 1
        print(f"vocabulary: {len(VOCAB_FILES)} files may spell op names, the bar is {VOCAB_MAX_FILES}")
    print(f"vocabulary: {'VIOLATIONS' if bad else 'ok'} (op names spelled in {len(found)} files: "
          f"{', '.join(sorted(found))})")
    return bad


def objects(src, build):
    """(object path, source path relative to src/) of every object CMake built from a file
    still in src/ (an object left over from a moved file is not the tree's)."""
    base = os.path.join(build, "src", "CMakeFiles")
    out = []
    for target in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        tdir = os.path.join(base, target)
        for root, _, files in os.walk(tdir):
            for f in files:
                if f.endswith(".c.o"):
                    rel = os.path.relpath(os.path.join(root, f[:-2]), tdir)
                    if folder_of(rel) in LAYERS and os.path.exists(os.path.join(src, rel)):
                        out.append((os.path.join(root, f), rel))
    return out


def interposed(src):
    """The names the capture library defines for another library (exports.map's globals but
    its own opscope_ ones: ggml_*, cblas_sgemm, _exit...): another folder calling _exit calls
    the C library's, not the capture, and the static library's call of ggml's
    ggml_backend_sched_split_graph is ggml's, not the shared library's interposer."""
    text = open(os.path.join(src, "capture", "exports.map"), encoding="utf-8").read()
    body = text.split("global:", 1)[1].split("local:", 1)[0]
    names = [n.strip() for n in body.split(";") if n.strip() and not n.strip().startswith("opscope_")]
    return re.compile("^(" + "|".join(re.escape(n).replace(r"\*", ".*") for n in names) + ")$")


def nm_symbols(objs):
    """({name: {source}} of the global definitions, [(source, name)] of the uses) of OBJS,
    (object, source) pairs; circles.py reads the same."""
    defs, uses = {}, []
    rel_of = dict(objs)
    # one nm for every object: -A prefixes each line with "object: "
    res = subprocess.run(["nm", "-P", "-A"] + [o for o, _ in objs],
                         capture_output=True, text=True, check=True)
    for line in res.stdout.splitlines():
        obj, _, rest = line.partition(": ")
        parts = rest.split()
        if len(parts) < 2 or obj not in rel_of:
            continue
        rel, (name, kind) = rel_of[obj], parts[:2]
        if kind in ("U", "w", "v"):
            uses.append((rel, name))
        elif kind.isupper():
            defs.setdefault(name, set()).add(rel)
    return defs, uses


def symbol_edges(objs, foreign=None):
    """Folder edges, capture's room edges and the format writers, from the objects' symbols."""
    defs, uses = nm_symbols(objs)
    edges, rooms, formats = {}, {}, {}
    for rel, name in uses:
        src = folder_of(rel)
        for d in {folder_of(r) for r in defs.get(name, ())}:
            if d == "capture" and src != "capture" and foreign and foreign.match(name):
                continue
            if d != src:
                edges.setdefault((src, d), []).append((f"{rel}: {name}", not allowed(rel, d)))
        if src in ROOMS and not (src == "capture" and foreign and foreign.match(name)):
            for d in {room_of(r) for r in defs.get(name, ()) if folder_of(r) == src}:
                if d != room_of(rel):
                    rooms.setdefault((room_of(rel), d), []).append((f"{rel}: {name}",
                                                                    not room_allowed(rel, d)))
        if WRITERS.match(name) and src not in ("export", "util") and rel not in FORMAT_EXCEPTIONS:
            formats.setdefault(rel, set()).add(name)
    return edges, rooms, formats


def cycles(nodes, edges):
    """Folder cycles among NODES: the capture check's Tarjan search (capture_unit/cycles.py)."""
    graph = {n: set() for n in nodes}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    return scc_cycles(graph)


def report(title, edges, nodes=LAYERS):
    bad = 0
    for (a, b), whys in sorted(edges.items()):
        wrong = [w for w, is_bad in whys if is_bad]
        if wrong:
            bad = 1
            more = f" (+{len(wrong) - 4} more)" if len(wrong) > 4 else ""
            print(f"{title}: {a} -> {b} is not allowed: {'; '.join(sorted(wrong)[:4])}{more}")
    for comp in cycles(nodes, edges):
        bad = 1
        print(f"{title}: CYCLE among {', '.join(comp)}")
    graph = ", ".join(f"{a}->{b}" for a, b in sorted(edges))
    print(f"{title}: {'VIOLATIONS' if bad else 'ok'} ({len(edges)} edges: {graph})")
    return bad


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    edges, rooms = include_edges(sys.argv[1])
    bad = report("includes", edges)
    bad |= report("rooms: includes", rooms, room_nodes())
    for f in loose_room_files(sys.argv[1]):
        bad = 1
        print(f"rooms: {f} is in no room (capture/store, analyze/ggml, export/html...)")
    crowded = crowded_folders(sys.argv[1])
    for folder, n in crowded:
        bad = 1
        print(f"size: src/{folder} holds {n} files directly, the bar is {MAX_FILES}: give it rooms")
    if not crowded:
        print(f"size: ok (no folder of src/ holds more than {MAX_FILES} files directly)")
    copies = hash_copies(sys.argv[1])
    for c in copies:
        print(f"hashes: a hash constant outside {HASH_HOME}: {c}")
    print(f"hashes: {'VIOLATIONS' if copies else 'ok'} (one mixer and one FNV, in {HASH_HOME})")
    bad |= 1 if copies else 0
    bad |= check_vocab(sys.argv[1])
    if len(sys.argv) == 3:
        objs = objects(sys.argv[1], sys.argv[2])
        if not objs:
            print(f"symbols: no objects under {sys.argv[2]}/src/CMakeFiles")
            return 1
        edges, rooms, formats = symbol_edges(objs, interposed(sys.argv[1]))
        bad |= report(f"symbols ({len(objs)} objects)", edges)
        bad |= report("rooms: symbols", rooms, room_nodes())
        for rel, names in sorted(formats.items()):
            bad = 1
            print(f"formats: {rel} writes a format outside export/: {', '.join(sorted(names))}")
        if not formats:
            print("formats: only export/ writes a format")
    return bad


if __name__ == "__main__":
    sys.exit(main())
