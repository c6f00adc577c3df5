#!/usr/bin/env bash
# What a device call sends, in bytes, as the device tool counts it: the checkout's tracked and
# untracked-not-ignored files plus the carried paths (each a file or folder under the checkout).
# Prints one line per part and the total; exits 1 past MAX_MIB (default 60; the tool's limit is
# 64 MiB), 2 when a carried path is missing.
#
#   scripts/device/carry-size.sh [CARRIED_PATH...]     (from anywhere; paths relative to the checkout)
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
MAX_MIB=${MAX_MIB:-60}
cd "$REPO"
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# files only (a submodule or a deleted-but-tracked path counts nothing)
tree=$(git ls-files -z --cached --others --exclude-standard |
       while IFS= read -r -d '' f; do [ -f "$f" ] && [ ! -L "$f" ] && printf '%s\0' "$f"; done |
       du -cb --files0-from=- 2> /dev/null | tail -1 | cut -f1)
total=$tree
printf '%-16s %10d bytes  %6.1f MiB\n' checkout "$tree" "$(mib "$tree")"
for p in "$@"; do
    [ -e "$p" ] || { echo "carry-size: $p is missing" >&2; exit 2; }
    b=$(du -sb "$p" | cut -f1)
    total=$((total + b))
    printf '%-16s %10d bytes  %6.1f MiB\n' "$p" "$b" "$(mib "$b")"
done
printf '%-16s %10d bytes  %6.1f MiB (the device tool takes 64 MiB)\n' total "$total" "$(mib "$total")"
if [ "$total" -gt $((MAX_MIB * 1048576)) ]; then
    echo "carry-size: ${total} bytes is past ${MAX_MIB} MiB" >&2
    exit 1
fi
