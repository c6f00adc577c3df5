#!/usr/bin/env python3
"""Fails when a file of src/ spells its own open-addressing probe instead of util/hindex.h.

  probes.py SRC_DIR

A probe is the step of linear probing, `J = (J + 1) & MASK`, inside a loop whose condition
reads a table at J (`while (slots[J]...)`, `for (...; tab[J]...; J = (J + 1) & MASK)`): the
mark of a hand-rolled hash table. A ring buffer's step (`pos = (pos + 1) % N`, or an `&` step
whose loop reads no table at that index) is not one. The tree has one hash index,
util/hindex.h (one shared container in util/, not a copy per caller); its home is the
only place a probe belongs, except the rooms in ROOMS, and the files in PENDING until they
are converted. The files in KEPT keep theirs, each for the reason given there (capture code
runs inside the host program; the Vulkan layer links no util/ code). Prints each probe with
file and line and exits 1 on any; a PENDING or KEPT file without a probe left is printed as
a note (remove it from the list).
"""
import os
import re
import sys

# folder (under src/) -> why it may keep its own tables
ROOMS = {
    "util/": "the hash index itself (util/hindex.c, the slots it probes)",
}

# file -> why it keeps its own table (judged one by one: a new table elsewhere in capture/ or
# vklayer/ fails like any other)
KEPT = {
    "capture/hooks/cap_copy.c": "the copies seen in one graph compute, emptied per compute by "
                                "a generation bump (O(1) in the host's compute path)",
    "capture/timing/cap_cpu.c": "the CPU walk's use counts: scratch refilled per graph in place, "
                                "no allocation once warm, inside the host's compute",
    "capture/gpu/cupti_track.c": "fixed-size, lossy node ids filled on CUPTI's callback threads: "
                                 "no allocation there",
    "vklayer/vkl_map.c": "the Vulkan layer's handle tables: deletion (vkDestroy*), fixed arrays, "
                         "and the layer takes header-only util/hash.h only (tests/core/layers.py)",
    "model/ggml_vocab.c": "the op-name lookup: a static table filled once, hashed on the length "
                          "and three letters, which runs per record (a full-string hash costs more)",
}

# file -> why it still has one (to be converted to util/hindex.h)
PENDING = {
}

STEP = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*\(\s*\1\s*\+\s*1\s*\)\s*&")
LOOP = re.compile(r"\b(while|for)\s*\(")
LOOKBACK = 12  # lines: a probe's loop head is at most this far above its step


def strip_comments(text):
    """TEXT with comments blanked (newlines kept, so line numbers stay)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def probes(text):
    """[(line, source line)] of the probe steps in TEXT (C source)."""
    lines = strip_comments(text).split("\n")
    found = []
    for i, line in enumerate(lines):
        for m in STEP.finditer(line):
            at = re.compile(r"\[\s*" + re.escape(m.group(1)) + r"\s*\]")
            for head in lines[max(0, i - LOOKBACK):i + 1]:
                if LOOP.search(head) and at.search(head):
                    found.append((i + 1, line.strip()))
                    break
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 1
    src = sys.argv[1]
    bad = 0
    pending_left = set(PENDING)
    n_files = 0
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            if any(rel.startswith(r) for r in ROOMS):
                continue
            n_files += 1
            with open(path, encoding="utf-8") as fh:
                where = probes(fh.read())
            if rel in KEPT:
                if not where:
                    print(f"probes: note: {rel} is in KEPT but has no probe left: remove it")
                continue
            if rel in PENDING:
                if where:
                    pending_left.discard(rel)
                continue
            for line, code in where:
                bad = 1
                print(f"probes: {rel}:{line}: an open-addressing probe of its own "
                      f"(use util/hindex.h): {code}")
    for rel in sorted(pending_left):
        print(f"probes: note: {rel} is in PENDING but has no probe left: remove it")
    print(f"probes: {'VIOLATIONS' if bad else 'ok'} ({n_files} files outside "
          f"{', '.join(sorted(ROOMS))}; {len(PENDING) - len(pending_left)} pending)")
    return bad


if __name__ == "__main__":
    sys.exit(main())
