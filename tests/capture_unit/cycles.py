#!/usr/bin/env python3
"""Fails when the capture library's files depend on each other in a circle.

  cycles.py SRC_DIR [BUILD_DIR]

Two graphs, one node per file stem (cap_cpu.c and cap_cpu.h are the node cap_cpu):
  includes  X -> Y when a file of X includes "capture/ROOM/Y.h" (src/capture and its sub-rooms)
  symbols   X -> Y when X's object uses a symbol Y's object defines (`nm` of the objects CMake
            built in BUILD_DIR), per link unit: the shared library (opscope-ggml with the
            capture core and gpu_map) and the static one (opscope_static_part and its copy
            object, same core); a unit whose objects are not built (no ggml headers) is skipped
Prints every edge of every circle (strongly connected component) found, or "no cycle", and
exits 1 when there is one.
"""
import os
import re
import subprocess
import sys


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def include_graph(src):
    graph = {}
    inc = re.compile(r'^\s*#\s*include\s+"capture/(?:[a-z]+/)?([A-Za-z0-9_]+)\.h"', re.M)
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            node = stem(f)
            text = open(os.path.join(root, f), encoding="utf-8").read()
            for m in inc.finditer(text):
                if m.group(1) != node:
                    graph.setdefault(node, {}).setdefault(m.group(1), set()).add(f)
            graph.setdefault(node, {})
    return graph


# link units: CMake target object folders (under BUILD/src/CMakeFiles) whose objects link together
UNITS = {
    "libopscope-ggml.so": ["opscope-ggml.dir", "opscope_capture_core.dir", "opscope_gpu_map.dir"],
    "libopscope-ggml-static.a": ["opscope_static_part.dir", "opscope_static_copy.dir",
                                 "opscope_capture_core.dir", "opscope_gpu_map.dir"],
}


def objects(build, dirs):
    out = []
    for d in dirs:
        base = os.path.join(build, "src", "CMakeFiles", d)
        for root, _, files in os.walk(base):
            out += [os.path.join(root, f) for f in files if f.endswith(".o")]
    return out


def symbol_graph(objs):
    defs, uses = {}, {}
    for o in objs:
        node = stem(stem(o))  # cap_cpu.c.o -> cap_cpu
        res = subprocess.run(["nm", "-P", o], capture_output=True, text=True, check=True)
        for line in res.stdout.splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            name, kind = parts[0], parts[1]
            if kind in ("U", "w", "v"):
                uses.setdefault(node, set()).add(name)
            elif kind.isupper():  # global definitions (T, D, B, R, V, W, ...)
                defs.setdefault(name, set()).add(node)
        uses.setdefault(node, set())
    graph = {}
    for node, names in uses.items():
        graph.setdefault(node, {})
        for name in names:
            for d in defs.get(name, ()):
                if d != node:
                    graph[node].setdefault(d, set()).add(name)
    return graph


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def report(title, graph):
    found = cycles(graph)
    edges = sum(len(t) for t in graph.values())
    if not found:
        print(f"{title}: {len(graph)} files, {edges} edges, no cycle")
        return 0
    for comp in found:
        print(f"{title}: CYCLE among {', '.join(comp)}")
        for a in comp:
            for b in sorted(graph.get(a, {})):
                if b in comp:
                    why = sorted(graph[a][b])
                    more = f" (+{len(why) - 3} more)" if len(why) > 3 else ""
                    print(f"  {a} -> {b}: {', '.join(why[:3])}{more}")
    return 1


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bad = report("includes", include_graph(sys.argv[1]))
    if len(sys.argv) == 3:
        for unit, dirs in UNITS.items():
            objs = objects(sys.argv[2], dirs)
            own = objects(sys.argv[2], dirs[:1])
            if not own:
                print(f"symbols of {unit}: not built here, skipped")
                continue
            bad |= report(f"symbols of {unit} ({len(objs)} objects)", symbol_graph(objs))
    return bad


if __name__ == "__main__":
    sys.exit(main())
