#!/usr/bin/env python3
"""Fails when a function of src/ is longer than its folder allows.

  lengths.py SRC_DIR [--list N]

A function runs from the first line of its definition (the return type at column 0) to its
closing brace at column 0, both counted: the brace heuristic of ggml-style C, where every
function body ends with a '}' alone at column 0 and nothing else at file scope does. Limits:
LIMITS by folder (the first match of the file's path), else DEFAULT; EXCEPTIONS names the
functions let through, with the reason. --list N prints the N
longest functions (the closing note's table). Exits 1 on any function over its limit, with
file:line, name and length.
"""
import os
import re
import sys

DEFAULT = 150
# path prefix under src/ -> the longest function allowed there
LIMITS = [("cli/", 100)]
# (file, function): over its limit today, and why it is let through. Pending ones shrink away.
EXCEPTIONS = {}

# a definition's first line: a type at column 0, then a name and "(" on this line or the next
START = re.compile(r"^(?!static\s+const\b[^(]*=)(?:[A-Za-z_][\w \t\*]*?)\b([A-Za-z_]\w*)\s*\(")
NOT_START = re.compile(r"^(typedef|struct|enum|union|#|extern\s+\"C\"|return\b|if\b|for\b|while\b)")


def functions(path):
    """(name, first line, length) of every function body in PATH."""
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        m = START.match(line)
        if not m or NOT_START.match(line) or line.rstrip().endswith(";"):
            i += 1
            continue
        # the signature ends at the first line holding "{" (a prototype ends with ";")
        j = i
        while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
            j += 1
        if j >= len(lines) or "{" not in lines[j] or "=" in lines[i].split("(")[0]:
            i = j + 1
            continue
        k = j
        if not lines[j].rstrip().endswith("}"):  # a one-line body closes on its own line
            k = j + 1
            while k < len(lines) and lines[k] != "}" and not lines[k].startswith("} "):
                k += 1
        out.append((m.group(1), i + 1, k - i + 1))
        i = k + 1
    return out


def limit_of(rel):
    for prefix, n in LIMITS:
        if rel.startswith(prefix):
            return n
    return DEFAULT


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src, show = args[0], 0
    if len(args) == 3 and args[1] == "--list":
        show = int(args[2])
    found, bad = [], 0
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            rel = os.path.relpath(os.path.join(root, f), src)
            for name, line, n in functions(os.path.join(root, f)):
                found.append((n, rel, line, name))
                if n > limit_of(rel) and (rel, name) not in EXCEPTIONS:
                    bad += 1
                    print(f"lengths: {rel}:{line} {name} is {n} lines (at most {limit_of(rel)} in "
                          f"{'src/' + rel.split('/')[0]})")
    found.sort(reverse=True)
    for n, rel, line, name in found[:show]:
        print(f"{n:5d}  {rel}:{line} {name}")
    print(f"lengths: {'VIOLATIONS' if bad else 'ok'} ({len(found)} functions; the longest "
          f"{found[0][0] if found else 0} lines; limits {DEFAULT}, "
          f"{', '.join(f'{n} in src/{p}' for p, n in LIMITS)})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
