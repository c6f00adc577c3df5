#!/usr/bin/env python3
"""Fails when the modules of a folder of src/ depend on each other in a circle.

  circles.py SRC_DIR [BUILD_DIR]
  circles.py --self-test SRC_DIR      (an injected circle must be found and named)

A module is a source and its header: analyze/ggml/stats.c with analyze/ggml/stats.h is the
module analyze/ggml/stats (a header alone, or a .def table, is a module too). One graph per
top folder of src/ (analyze, export, cli, read, model, util, vklayer, viewer), its rooms
included; an edge A -> B when
  includes  a file of A includes "folder/.../B.h" (or B.def)
  symbols   A's object uses a symbol that B's object alone defines (`nm` of the objects CMake
            built in BUILD_DIR/src; a symbol defined by several modules names none of them)
capture/ is left to capture_unit/cycles.py, which reads it per link unit (the shared and the
static library define the same names). Folders are ordered by layers.py; this is the check
below them, where a folder's files use each other. Prints every circle with the edges that
make it (file -> file: the names used), or one line per folder, and exits 1 on a circle.
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "capture_unit"))
from cycles import cycles as scc_cycles  # noqa: E402  (one Tarjan for every check)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402  (one walk of the built objects, one nm reader)

SKIP = {"capture"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+/[A-Za-z0-9_/]+)\.(h|def)"', re.M)


def module_of(rel):
    """analyze/ggml/stats.c -> analyze/ggml/stats."""
    return os.path.splitext(rel)[0]


def top_of(rel):
    return rel.split("/", 1)[0]


def include_graph(src):
    """{module: {module: {why}}} from the includes, within each top folder."""
    graph = {}
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".def")):
                continue
            rel = os.path.relpath(os.path.join(root, f), src)
            if top_of(rel) in SKIP or "/" not in rel:
                continue
            node = module_of(rel)
            graph.setdefault(node, {})
            text = open(os.path.join(root, f), encoding="utf-8").read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                if target != node and top_of(target) == top_of(rel):
                    line = text.count("\n", 0, m.start()) + 1
                    graph[node].setdefault(target, set()).add(f"{rel}:{line} includes {target}.{m.group(2)}")
    return graph


def objects(src, build):
    """(object, module) of every object built from a file still in src/ (layers.py's walk)."""
    return [(o, module_of(rel)) for o, rel in layers.objects(src, build) if top_of(rel) not in SKIP]


def symbol_graph(objs):
    """{module: {module: {why}}} from the objects' symbols (layers.py's nm), within each top
    folder."""
    defs, uses = layers.nm_symbols(objs)
    graph = {m: {} for _, m in objs}
    for mod, name in uses:
        where = defs.get(name, set())
        if len(where) == 1:
            (d,) = where
            if d != mod and top_of(d) == top_of(mod):
                graph[mod].setdefault(d, set()).add(f"{mod} calls {name}")
    return graph


def merge(*graphs):
    out = {}
    for g in graphs:
        for a, tos in g.items():
            out.setdefault(a, {})
            for b, whys in tos.items():
                out[a].setdefault(b, set()).update(whys)
    return out


def report(graph):
    """Prints each folder's line and every circle; returns the number of circles."""
    found = 0
    for top in sorted({top_of(m) for m in graph}):
        sub = {a: {b: w for b, w in tos.items() if top_of(b) == top}
               for a, tos in graph.items() if top_of(a) == top}
        comps = scc_cycles(sub)
        edges = sum(len(t) for t in sub.values())
        if not comps:
            print(f"{top}: {len(sub)} modules, {edges} edges, no circle")
        for comp in comps:
            found += 1
            print(f"{top}: CIRCLE among {', '.join(comp)}")
            for a in comp:
                for b in sorted(sub.get(a, {})):
                    if b in comp:
                        why = sorted(sub[a][b])
                        more = f" (+{len(why) - 3} more)" if len(why) > 3 else ""
                        print(f"  {a} -> {b}: {'; '.join(why[:3])}{more}")
    return found


def self_test(src):
    """Injects a circle into a copy of SRC (its deepest include edge, reversed) and expects
    the include check to name both modules."""
    graph = include_graph(src)
    pick = next(((a, b) for a in sorted(graph) for b in sorted(graph[a])
                 if os.path.exists(os.path.join(src, a + ".h"))
                 and os.path.exists(os.path.join(src, b + ".h"))), None)
    if pick is None:
        print("self-test: no include edge between two headers to reverse")
        return 1
    a, b = pick
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "src")
        shutil.copytree(src, copy)
        with open(os.path.join(copy, b + ".h"), "a", encoding="utf-8") as f:
            f.write(f'\n#include "{a}.h"\n')
        graph = include_graph(copy)
        comps = [c for c in scc_cycles(graph) if a in c and b in c]
    if not comps:
        print(f"self-test: the injected circle {a} <-> {b} was NOT found")
        return 1
    print(f"self-test: the injected circle {b}.h -> {a}.h (beside {a} -> {b}) was found: "
          f"{', '.join(comps[0])}")
    return 0


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--self-test":
        return self_test(args[1])
    if len(args) not in (1, 2):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    graph = include_graph(args[0])
    if len(args) == 2:
        objs = objects(args[0], args[1])
        if not objs:
            print(f"symbols: no objects under {args[1]}/src/CMakeFiles")
            return 1
        graph = merge(graph, symbol_graph(objs))
    return 1 if report(graph) else 0


if __name__ == "__main__":
    sys.exit(main())
