#!/usr/bin/env bash
# same-outputs.sh: the check that a change meant to change no output (files of src/ moved,
# helpers unified) kept every output of opscope byte-identical to the merge base's binary,
# version strings aside. Run it after building the working tree; it prints what differs.
#
# It builds the opscope CLI of a base revision and takes the working tree's build of it,
# runs both on every profile, trace, record log and job summary the repository holds (git's
# files under any folder, tests/ and bench/ in practice; files with the same bytes once) and
# on inputs made here (bench/'s generated ggml profiles and Kineto trace, RPC client and
# server profiles, files cut short, job summaries), and compares every output: report's
# console (stdout, stderr, exit status), --text, --json, --chrome-trace, --chrome-splits,
# --html-viewer, --sqlite (its SQL dump), --export-ops, --by-shape, --inefficiency,
# --top-ops, --peak (of a fixed peak file), --batch, --graphs, critical paths, jobs (report
# DIR, --job, summaries), view, diff (profiles, traces, several runs a side, jobs), merge,
# replay (against a scripted test-backend-ops, and the real one in its test mode where it is
# installed), the help texts and usage errors. The cases run on one worker per CPU.
#
# usage: scripts/same-outputs.sh [--base REV] [--old OLD_OPSCOPE] [--new NEW_OPSCOPE] [--keep DIR]
#   --base REV   the revision whose opscope is OLD (default: git merge-base HEAD main); built
#                in a temporary git worktree with -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=
#                RelWithDebInfo, the binary (and bench/'s generators, compiled against that
#                build's library) kept in build/same-outputs/base-SHA/, so the next run of the
#                same revision builds nothing. The generated inputs always come from REV's
#                generators, so they are the same whichever binaries are compared.
#   --old FILE   the old binary instead of REV's
#   --new FILE   the new binary (default: the working tree's build/, brought up to date first
#                with `cmake --build build --target opscope`)
#   --keep DIR   keep the inputs made and every output there: DIR/cases lists each case (ID,
#                its label, the arguments), DIR/res/ID/old and DIR/res/ID/new hold what the
#                two binaries wrote (stdout, stderr, status, out/), DIR/run/gen the inputs
#
# Masked: the binary's own version string where opscope writes it, each side with its own V:
# `"generator":"opscope V"` in the JSON of report --json, merge and diff --json (and in the
# diff page, which embeds that JSON), the SQLite export's meta row ('generator','opscope V'),
# and stdout's line `opscope V` (--version). Nothing else. Both binaries run each command in
# the same folder with the same relative names (one after the other, a fresh out/ each time),
# in the C locale and UTC, with HOME, TMPDIR and XDG_CACHE_HOME of their own, no OPSCOPE_*
# variable, and a stopped monotonic clock (an LD_PRELOAD shim built here), so that paths,
# environment and the one duration opscope prints (a job's "read in 0.00 s") are the same.
# Not compared: `record` beyond its help and usage errors (it runs programs under the capture
# library, found beside the binary) and `peak` beyond its help (it measures the machine).
#
# Prints a line per output that differs (its input, the command, the first differing file and
# line) and the summary `N outputs compared on M inputs: all identical` (exit 0) or `N outputs
# compared on M inputs: K differ` (exit 1); exit 2 when a binary cannot be built or found.
# Progress goes to stderr only when it is a terminal. The helpers (file kinds, RPC profiles,
# the scripted test-backend-ops, the comparison after the mask) are scripts/same-outputs.py.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

die() {
  echo "same-outputs: $*" >&2
  exit 2
}

base='' old='' new='' keep=''
while [ $# -gt 0 ]; do
  case $1 in
    --base) [ $# -ge 2 ] || die "--base needs a revision"; base=$2; shift 2 ;;
    --old) [ $# -ge 2 ] || die "--old needs a binary"; old=$2; shift 2 ;;
    --new) [ $# -ge 2 ] || die "--new needs a binary"; new=$2; shift 2 ;;
    --keep) [ $# -ge 2 ] || die "--keep needs a folder"; keep=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
helper=$root/scripts/same-outputs.py
py=/usr/bin/python3
[ -x "$py" ] || py=python3
cache=$root/build/same-outputs
jobs=$(nproc 2>/dev/null || echo 2)
workers=$jobs
tty=0
[ -t 2 ] && tty=1

abspath() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
[ -z "$old" ] || { [ -x "$old" ] || die "--old $old: not an executable"; old=$(abspath "$old"); }
[ -z "$new" ] || { [ -x "$new" ] || die "--new $new: not an executable"; new=$(abspath "$new"); }

# --- the work folder: W/run is where every command runs, W/res what each one wrote ---------
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  [ -z "$(ls -A "$keep")" ] || die "--keep $keep: the folder is not empty"
  W=$(cd "$keep" && pwd)
else
  W=$(mktemp -d "${TMPDIR:-/tmp}/same-outputs.XXXXXX")
fi
build_tmp=
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  if [ -n "$build_tmp" ] && [ -d "$build_tmp" ]; then
    git -C "$root" worktree remove --force "$build_tmp/src" 2>/dev/null || true
    rm -rf "$build_tmp"
    git -C "$root" worktree prune 2>/dev/null || true
  fi
  [ -n "$keep" ] || rm -rf "$W"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the base revision's binary and generators ----------------------------------------------
# The worktree and build folder are temporary; what the comparison needs is kept per commit.
build_base() {
  local sha=$1 dest=$cache/base-$1 log bin lib embed g
  [ -x "$dest/opscope" ] && return 0
  mkdir -p "$cache"
  build_tmp=$(mktemp -d "$cache/tmp.XXXXXX")
  log=$build_tmp/build.log
  [ $tty = 1 ] && printf 'same-outputs: building opscope of %s (log: %s)\n' "${sha:0:12}" "$log" >&2
  git -C "$root" worktree add --quiet --detach "$build_tmp/src" "$sha" > "$log" 2>&1 ||
    { cat "$log" >&2; die "cannot make a worktree of $sha"; }
  if ! { nice -n 10 cmake -S "$build_tmp/src" -B "$build_tmp/build" -DBUILD_TESTING=OFF \
           -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
         nice -n 10 cmake --build "$build_tmp/build" --target opscope -j "$jobs"; } >> "$log" 2>&1; then
    tail -n 40 "$log" >&2
    die "the build of $sha failed"
  fi
  bin=$(find "$build_tmp/build" -type f -name opscope -perm -u+x | head -n 1)
  [ -n "$bin" ] || die "the build of $sha made no opscope binary"
  mkdir "$build_tmp/keep"
  cp "$bin" "$build_tmp/keep/opscope"
  # bench/'s generators, linked to the core library the CLI was built with (a package build
  # has no targets for them)
  lib=$(find "$build_tmp/build" -type f -name libopscope.a | head -n 1)
  embed=$(find "$build_tmp/build" -type f -name libopscope_viewer_embed.a | head -n 1)
  for g in bench/report/gen_profile bench/viewer/gen_viewer; do
    if [ ! -f "$build_tmp/src/$g.c" ] || [ -z "$lib" ]; then continue; fi
    nice -n 10 cc -O2 -std=c11 -D_GNU_SOURCE -I"$build_tmp/src/include" -I"$build_tmp/src/src" \
      "$build_tmp/src/$g.c" -Wl,--start-group "$lib" ${embed:+"$embed"} -Wl,--end-group \
      -lz -lm -lpthread -o "$build_tmp/keep/${g##*/}" >> "$log" 2>&1 || rm -f "$build_tmp/keep/${g##*/}"
  done
  # ggml's op tables, for the scripted test-backend-ops's answers
  for g in ggml_ops.def ggml_sub_ops.def; do
    f=$(find "$build_tmp/src/src" -name "$g" | head -n 1)
    [ -z "$f" ] || cp "$f" "$build_tmp/keep/"
  done
  rm -rf "$dest"
  mv "$build_tmp/keep" "$dest"
  git -C "$root" worktree remove --force "$build_tmp/src" >> "$log" 2>&1 || true
  rm -rf "$build_tmp"
  build_tmp=
}

if [ -z "$base" ]; then
  base=$(git -C "$root" merge-base HEAD main 2>/dev/null) || die "no merge base of HEAD and main: give --base REV"
fi
sha=$(git -C "$root" rev-parse --verify --quiet "$base^{commit}") || die "--base $base: no such revision"
build_base "$sha"
tools=$cache/base-$sha
[ -n "$old" ] || old=$tools/opscope

if [ -z "$new" ]; then
  [ -f "$root/build/CMakeCache.txt" ] || die "no build/ in $root: build it (cmake -S . -B build && cmake --build build) or give --new"
  nice -n 10 cmake --build "$root/build" --target opscope -j "$jobs" > "$W/new-build.log" 2>&1 ||
    { tail -n 40 "$W/new-build.log" >&2; die "cmake --build build --target opscope failed"; }
  if [ -x "$root/build/src/opscope" ]; then
    new=$root/build/src/opscope
  else
    new=$(find "$root/build" -path "$cache" -prune -o -type f -name opscope -perm -u+x -print | head -n 1)
  fi
  [ -n "$new" ] || die "no opscope binary under $root/build"
fi

vold=$("$old" --version | sed -n 's/^opscope //p')
vnew=$("$new" --version | sed -n 's/^opscope //p')

# --- the run folders -----------------------------------------------------------------------
# W/run holds the inputs made here (gen/) and runs the old binary alone where it makes one;
# the cases run in W/run1..P, one worker each, a case's two sides in the same folder.
R=$W/run
mkdir -p "$R/gen" "$R/tmp" "$R/home" "$R/cache/opscope" "$W/res" "$W/status"
ln -s "$root" "$R/repo"
US=$'\x1f'
n_cases=0
declare -A seen_input=()

progress() {
  [ $tty = 1 ] || return 0
  local s="[$1/$n_cases] $2"
  printf '\r\033[K%s' "${s:0:$((${COLUMNS:-100} - 1))}" >&2
}

# A stopped monotonic clock for every run: the one duration opscope measures and prints (how
# long a job's traces took to read: "read in 0.00 s") is then the same for both binaries, as
# the paths are. The wall clock (CLOCK_REALTIME) runs as usual.
cat > "$W/stopclock.c" << 'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW || id == CLOCK_MONOTONIC_COARSE ||
        id == CLOCK_BOOTTIME) {
        ts->tv_sec = 1000000;
        ts->tv_nsec = 0;
        return 0;
    }
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    return real(id, ts);
}
EOF
cc -O2 -shared -fPIC -o "$W/stopclock.so" "$W/stopclock.c" -ldl || die "cannot build the stopped clock (cc)"

# The environment of every opscope run: the same for both binaries whoever runs the script.
clean_env() {
  local v
  for v in "${!OPSCOPE_@}"; do unset "$v"; done
  export LC_ALL=C TZ=UTC HOME="$R/home" TMPDIR="$R/tmp" XDG_CACHE_HOME="$R/cache" \
         LD_PRELOAD="$W/stopclock.so"
  unset LANG LANGUAGE COLUMNS
}

# One side of a case: ARGS run by BIN in R, with what it wrote moved to DEST.
run_side() {
  local bin=$1 dest=$2 stdin=$3 copy=$4 envs=$5 f
  shift 5
  mkdir "$R/out"
  [ -z "$copy" ] || cp "$R/$copy" "$R/out/"
  (
    cd "$R"
    clean_env
    for e in $envs; do export "${e?}"; done
    set +e
    timeout -k 10 300 "$bin" "$@" < "$stdin" > "$R/stdout" 2> "$R/stderr"
    echo $? > "$R/status"
  )
  # a file written beside the run's inputs, or left in TMPDIR, is an output too
  for f in "$R"/* "$R"/.[!.]*; do
    [ -e "$f" ] || continue
    case ${f##*/} in
      repo | gen | tmp | home | cache | out | stdout | stderr | status) ;;
      *) mkdir -p "$R/out/.stray" && mv "$f" "$R/out/.stray/" ;;
    esac
  done
  if compgen -G "$R/tmp/*" > /dev/null || compgen -G "$R/tmp/.[!.]*" > /dev/null; then
    mkdir -p "$R/out/.tmp-left"
    mv "$R"/tmp/* "$R"/tmp/.[!.]* "$R/out/.tmp-left/" 2> /dev/null || true
  fi
  mkdir -p "$dest"
  mv "$R/out" "$R/stdout" "$R/stderr" "$R/status" "$dest/"
}

# c INPUTS LABEL [--stdin FILE] [--copy FILE] [--env K=V] -- ARGS...
# Adds the case `opscope ARGS` to the batch that run_cases runs. INPUTS: the inputs it reads,
# comma-separated (they are counted); --stdin: FILE on stdin; --copy: FILE copied into out/
# first (for outputs named after their input); paths are relative to the run folder, where
# repo/ is the repository and gen/ the inputs made here. Sets case_id.
c() {
  local inputs=$1 label=$2 stdin=/dev/null copy='' envs='' i
  shift 2
  while [ "$1" != -- ]; do
    case $1 in
      --stdin) stdin=$2 ;;
      --copy) copy=$2 ;;
      --env) envs="$envs $2" ;;
    esac
    shift 2
  done
  shift
  n_cases=$((n_cases + 1))
  case_id=$n_cases
  IFS=, read -r -a ins <<< "$inputs"
  for i in "${ins[@]}"; do [ -z "$i" ] || seen_input[$i]=1; done
  printf '%s\t%s\t%s\n' "$case_id" "$label" "$*" >> "$W/cases"
  local IFS=$US
  printf '%s\n' "$case_id$US$stdin$US$copy$US$envs$US$label$US$*" >> "$W/batch"
}

# One worker: the cases of LIST, both sides each, in run folder R; a case whose outputs
# differ is listed in PENDING for the comparison after the mask.
run_list() {
  local list=$1 pending=$2 f id stdin copy envs label d
  R=$3
  mkdir -p "$R/tmp" "$R/home" "$R/cache"
  [ -e "$R/repo" ] || ln -s "$root" "$R/repo"
  [ -e "$R/gen" ] || ln -s "$W/run/gen" "$R/gen"
  cp -r "$W/run/cache/." "$R/cache/"
  while IFS=$US read -r -a f; do
    id=${f[0]} stdin=${f[1]} copy=${f[2]} envs=${f[3]} label=${f[4]}
    progress "$id" "$label"
    d=$W/res/$id
    run_side "$old" "$d/old" "$stdin" "$copy" "$envs" "${f[@]:5}"
    run_side "$new" "$d/new" "$stdin" "$copy" "$envs" "${f[@]:5}"
    if diff -rq "$d/old" "$d/new" > /dev/null 2>&1; then
      cp "$d/old/status" "$W/status/$id"
      [ -n "$keep" ] || rm -rf "$d"
    else
      cp "$d/old/status" "$W/status/$id"
      printf '%s\t%s\t%s\t%s\n' "$id" "$label" "$d/old" "$d/new" >> "$pending"
    fi
  done < "$list"
}

# Runs the batch of cases added since the last call on P workers (round robin), and waits.
run_cases() {
  local k pids=()
  [ -s "$W/batch" ] || return 0
  for k in $(seq 1 "$workers"); do
    awk -v k="$k" -v p="$workers" '(NR - 1) % p == k - 1' "$W/batch" > "$W/batch.$k"
    run_list "$W/batch.$k" "$W/pending.$k" "$W/run$k" &
    pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k" || die "a worker failed"; done
  rm -f "$W"/batch*
}

# The old binary's exit status in case ID (after run_cases).
old_status() { cat "$W/status/$1"; }

# The old binary alone, to make an input both then read.
make_input() { (cd "$R" && clean_env && "$old" "$@" > /dev/null 2>&1); }

note() { echo "same-outputs: note: $*" >&2; }

# --- inputs made here ---------------------------------------------------------------------
G=gen
gen_inputs=()
if [ -x "$tools/gen_profile" ]; then
  "$tools/gen_profile" --size 8M --version 3 --seed 1 -o "$R/$G/bench-v3.json" > /dev/null 2>&1
  "$tools/gen_profile" --size 8M --version 3 --seed 2 -o "$R/$G/bench-v3-seed2.json" > /dev/null 2>&1
  "$tools/gen_profile" --size 4M --version 2 -o "$R/$G/bench-v2.json" > /dev/null 2>&1
  gzip -9 -n -c "$R/$G/bench-v3.json" > "$R/$G/bench-v3.json.gz"
  head -c 100000 "$R/$G/bench-v3.json" > "$R/$G/cut-v3.json"  # cut inside a record
  head -c 400 "$R/$G/bench-v3.json" > "$R/$G/cut-head.json"   # before the first record
  head -c 60000 "$R/$G/bench-v3.json.gz" > "$R/$G/cut-v3.json.gz"
  gen_inputs+=("$G/bench-v3.json" "$G/bench-v3-seed2.json" "$G/bench-v2.json" "$G/bench-v3.json.gz"
               "$G/cut-v3.json" "$G/cut-head.json" "$G/cut-v3.json.gz")
else
  note "no bench/report/gen_profile in $sha: generated ggml profiles left out"
fi
if [ -x "$tools/gen_viewer" ]; then
  "$tools/gen_viewer" "$R/$G/viewer-gen.html" 40000 --json "$R/$G/viewer-decode.json" > /dev/null 2>&1
  rm -f "$R/$G/viewer-gen.html"
  gen_inputs+=("$G/viewer-decode.json")
fi
if [ -f "$root/bench/kineto/make_big.py" ]; then
  if "$py" "$root/bench/kineto/make_big.py" "$root/tests/kineto/traces" "$R/$G/kineto-big.json" 4 > /dev/null 2>&1; then
    gen_inputs+=("$G/kineto-big.json")
  else
    note "bench/kineto/make_big.py failed: no generated Kineto trace"
  fi
fi
"$py" "$helper" rpc "$R/$G/rpc"
make_input merge "$G/rpc/client.json" "$G/rpc/server.json" -o "$G/rpc/merged.json" -q &&
  gen_inputs+=("$G/rpc/merged.json")
make_input merge "$G/rpc/client2.json" "$G/rpc/server2-a.json" "$G/rpc/server2-b.json" \
  -o "$G/rpc/merged2.json" -q && gen_inputs+=("$G/rpc/merged2.json")
cat > "$R/$G/peak.json" << 'EOF'
{"format": "opscope-peak", "version": 1, "cpu": "same-outputs", "host": "same-outputs", "threads": 2,
 "memory": {"all_gbps": 20, "one_gbps": 15}, "cache": {"all_gbps": 100, "one_gbps": 60},
 "flops": {"all_gflops": 100, "one_gflops": 50}}
EOF
cp "$R/$G/peak.json" "$R/cache/opscope/peak-$(uname -n).json"
echo '{"format": "opscope-peak", "memory": {"all_gbps": -1}}' > "$R/$G/bad-peak.json"
"$py" "$helper" tbo "$R/$G/test-backend-ops" "$tools/ggml_ops.def" "$tools/ggml_sub_ops.def"
mkdir -p "$R/$G/empty"

# --- the repository's inputs, one path per content -----------------------------------------
repo_inputs=()
declare -A by_hash=()
while IFS= read -r -d '' f; do
  [ -f "$root/$f" ] || continue
  h=$(sha256sum < "$root/$f" | cut -c1-64)
  [ -z "${by_hash[$h]:-}" ] || continue
  by_hash[$h]=$f
  repo_inputs+=("repo/$f")
done < <(git -C "$root" ls-files -z --cached --others --exclude-standard -- \
           '*.json' '*.json.gz' '*.jsonl' '*.oplog' '*.gz' | sort -z -u)

declare -A kind=() ann=()
while IFS=$'\t' read -r f k a; do
  kind[${f#"$R/"}]=$k
  ann[${f#"$R/"}]=$a
done < <(cd "$R" && "$py" "$helper" sniff "${gen_inputs[@]/#/$R/}" "${repo_inputs[@]/#/$R/}")

# --- the command line itself ----------------------------------------------------------------
c "" "opscope (no command)" --
c "" "opscope --help" -- --help
c "" "opscope --version" -- --version
c "" "opscope nosuch" -- nosuch
for cmd in report view diff merge replay peak record; do
  c "" "$cmd --help" -- "$cmd" --help
  # peak without arguments measures this machine
  [ "$cmd" = peak ] || c "" "$cmd (no arguments)" -- "$cmd"
  c "" "$cmd --no-such-option" -- "$cmd" --no-such-option x
done
c "" "report --version" -- report --version
c "" "report of a missing file" -- report "$G/no-such.json"
c "" "view of a missing file" -- view "$G/no-such.json" -o out/v.html
c "$G/empty" "report of an empty folder" -- report "$G/empty"

# --- every input: report's console first; the rest where the old binary reads it ----------
declare -A console=()
for f in "${gen_inputs[@]}" "${repo_inputs[@]}"; do
  c "$f" "$f | report" -- report "$f"
  console[$f]=$case_id
done
run_cases
# the JSON parser's conformance files hold no records: their console is enough
accepted=()
for f in "${gen_inputs[@]}" "${repo_inputs[@]}"; do
  case $f in */jsontestsuite/*) continue ;; esac
  [ "$(old_status "${console[$f]}")" != 0 ] || accepted+=("$f")
done

ggml_like() { case ${kind[$1]:-} in ggml | oplog) return 0 ;; esac; return 1; }

for f in "${accepted[@]}"; do
  c "$f" "$f | report --by-shape" -- report "$f" --by-shape
  c "$f" "$f | report --inefficiency" -- report "$f" --inefficiency
  c "$f" "$f | report --top-ops 3 --top-kernels 20" -- report "$f" --top-ops 3 --top-kernels 20
  c "$f" "$f | report --text" -- report "$f" -q --text out/r.txt
  c "$f" "$f | report --by-shape --text" -- report "$f" -q --by-shape --text out/r.txt
  c "$f" "$f | report --json" -- report "$f" -q --json out/r.json
  c "$f" "$f | report --json -" -- report "$f" --json -
  c "$f" "$f | report --chrome-trace" -- report "$f" -q --chrome-trace out/r.trace.json
  c "$f" "$f | report --chrome-trace --chrome-splits" -- report "$f" -q --chrome-trace out/r.trace.json --chrome-splits
  c "$f" "$f | report --html-viewer" -- report "$f" -q --html-viewer out/r.html
  c "$f" "$f | report --html-viewer --html-max-records 100" -- report "$f" -q --html-viewer out/r.html --html-max-records 100
  c "$f" "$f | report --sqlite" -- report "$f" -q --sqlite out/r.db
  c "$f" "$f | report --export-ops" -- report "$f" -q --export-ops out/ops.txt
  c "$f" "$f | report --peak FILE --json --text --html-viewer" -- \
    report "$f" --peak "$G/peak.json" --json out/r.json --text out/r.txt --html-viewer out/r.html
  c "$f" "$f | report --peak cache --json" -- report "$f" -q --peak cache --json out/r.json
  c "$f" "$f | report, every export in one pass" -- report "$f" --text out/r.txt --json out/r.json \
    --chrome-trace out/r.trace.json --html-viewer out/r.html --sqlite out/r.db --export-ops out/ops.txt
  c "$f" "$f | report - (stdin)" --stdin "$f" -- report -
  case ${kind[$f]:-} in
    trace | summary)
      c "$f" "$f | report --job" -- report "$f" --job
      c "$f" "$f | report --job --json" -- report "$f" -q --job --json out/s.json
      ;;
  esac
  c "$f" "$f | view -o" -- view "$f" -o out/v.html
  c "$f" "$f | view -o - (stdout)" -- view "$f" -o -
  c "$f" "$f | view --max-records 100" -- view "$f" -o out/v.html --max-records 100
  c "$f" "$f | view --peak FILE" -- view "$f" -o out/v.html --peak "$G/peak.json"
  c "$f" "$f | view (default output name)" --copy "$f" -- view "out/${f##*/}"
  if ggml_like "$f"; then
    c "$f" "$f | report --batch 1 --json" -- report "$f" --batch 1 --json out/r.json
    c "$f" "$f | report --batch decode" -- report "$f" --batch decode
    c "$f" "$f | report --batch prefill --text" -- report "$f" --batch prefill --text out/r.txt
    c "$f" "$f | report --graphs 1- --json" -- report "$f" --graphs 1- --json out/r.json
    c "$f" "$f | report --graphs 2-3" -- report "$f" --graphs 2-3
    c "$f" "$f | view --batch 1" -- view "$f" -o out/v.html --batch 1
    c "$f" "$f | view --format ggml" -- view "$f" -o out/v.html --format ggml
    c "$f" "$f | replay (scripted test-backend-ops) --json" -- \
      replay "$f" --test-backend-ops "$G/test-backend-ops" --json out/replay.json --export-ops out/ops.txt
    c "$f" "$f | replay --batch 1 -q --json (scripted)" -- \
      replay "$f" --test-backend-ops "$G/test-backend-ops" --batch 1 -q --json out/replay.json
    c "$f" "$f | replay --mode test -b CPU (scripted)" -- \
      replay "$f" --test-backend-ops "$G/test-backend-ops" --mode test -b CPU --flag 1.5
  fi
  if [ "${kind[$f]:-}" = trace ]; then
    c "$f" "$f | view --format chrome" -- view "$f" -o out/v.html --format chrome
    c "$f" "$f | view --format kineto" -- view "$f" -o out/v.html --format kineto
    a=${ann[$f]:-}
    if [ -n "$a" ]; then
      c "$f" "$f | report --critical-path-annotation --json" -- \
        report "$f" --critical-path-annotation "$a" --json out/r.json
      c "$f" "$f | report --critical-path-annotation --critical-path-instance 0" -- \
        report "$f" --critical-path-annotation "$a" --critical-path-instance 0
      c "$f" "$f | report --critical-path-instance 1 --text" -- \
        report "$f" -q --critical-path-annotation "$a" --critical-path-instance 1 --text out/r.txt
      c "$f" "$f | view --critical-path-annotation --critical-path-instance 0" -- \
        view "$f" -o out/v.html --critical-path-annotation "$a" --critical-path-instance 0
    fi
    c "$f" "$f | report --critical-path-annotation (missing)" -- \
      report "$f" --critical-path-annotation "no such range"
  fi
done

# a real test-backend-ops times on the machine, so only its test mode (pass or fail) is stable
tbo=$(command -v test-backend-ops 2> /dev/null || true)
for p in /usr/libexec/*/llama.cpp-tests/test-backend-ops /usr/libexec/*/ggml/test-backend-ops; do
  [ -n "$tbo" ] || { [ -x "$p" ] && tbo=$p; }
done
if [ -n "$tbo" ]; then
  for f in repo/tests/read/data/seed_v3.json repo/tests/diff/data/ggml/cpu-f32-t1.json.gz; do
    [ -e "$R/$f" ] || continue
    c "$f" "$f | replay --mode test -b CPU (test-backend-ops)" -- \
      replay "$f" --test-backend-ops "$tbo" --mode test -b CPU -q --json out/replay.json
  done
else
  note "no test-backend-ops here: replay is compared against the scripted one only"
fi

# --- usage errors and bad outputs on one profile --------------------------------------------
P=repo/tests/diff/data/ggml/cpu-f32-t1.json.gz
c "$P" "$P | report --peak bad file" -- report "$P" -q --peak "$G/bad-peak.json"
c "$P" "$P | report --top-ops x" -- report "$P" --top-ops x
c "$P" "$P | report --batch x" -- report "$P" --batch x
c "$P" "$P | report --graphs 5-2" -- report "$P" --graphs 5-2
c "$P" "$P | report --sqlite -" -- report "$P" --sqlite -
c "$P" "$P | report --json into a missing folder" -- report "$P" -q --json out/no/such/r.json
c "$P" "$P | report --json over its input" --copy "$P" -- report "out/${P##*/}" --json "out/${P##*/}"
c "$P" "$P | report --critical-path-instance alone" -- report "$P" --critical-path-instance 0
c "$P" "$P | report --chrome-splits alone" -- report "$P" --chrome-splits
c "$P" "$P | view --format kineto" -- view "$P" -o out/v.html --format kineto
c "$P" "$P | replay, test-backend-ops missing" -- replay "$P" --test-backend-ops "$G/no-such-tbo"
c "$P" "$P | replay -b NoSuch (scripted)" -- replay "$P" --test-backend-ops "$G/test-backend-ops" -b NoSuch -q

# --- diff -----------------------------------------------------------------------------------
D=repo/tests/diff/data
V=repo/tests/viewer/data
K=repo/tests/kineto/traces
J=repo/tests/job/traces
diff4() { # A B [LABEL]: console, --json, --text, --html
  local a=$1 b=$2
  c "$a,$b" "$a $b | diff" -- diff "$a" "$b"
  c "$a,$b" "$a $b | diff --json" -- diff "$a" "$b" -q --json out/d.json
  c "$a,$b" "$a $b | diff --text" -- diff "$a" "$b" -q --text out/d.txt
  c "$a,$b" "$a $b | diff --html" -- diff "$a" "$b" -q --html out/d.html
}
pairs=(
  "$D/ggml/cpu-f32-t1.json.gz $D/ggml/cpu-f32-t2.json.gz"
  "$D/ggml/cpu-f32-t2.json.gz $D/ggml/cpu-q4_0-t2.json.gz"
  "$D/ggml/cpu-f32-t2.json.gz $D/ggml/cpu-f32-nofuse-t2.json.gz"
  "$D/ggml/cpu-f32-n4.json.gz $D/ggml/vk-f32-n4.json.gz"
  "$D/ggml/vk-f32-n4.json.gz $D/ggml/vk-ops-f32-n4.json.gz"
  "$V/blas-t1.json.gz $V/blas-t2.json.gz"
  "$D/noise/same-1.json.gz $D/noise/wide-1.json.gz"
  "$D/noise-loaded/same-1.json.gz $D/noise/same-1.json.gz"
  "$V/server-requests.json.gz $V/server-requests.json.gz"
  "repo/tests/read/data/seed_v3.json repo/tests/read/data/v2_small.json"
  "repo/tests/read/data/killed_run.oplog $D/ggml/cpu-f32-t1.json.gz"
  "repo/tests/merge/data/rpc-one-merged.json.gz $G/rpc/merged.json"
  "$K/a100_alexnet_fwd.json.gz $K/amd_mi250_minitoy_train.json.gz"
  "$D/kineto/hta_a100_step1.json.gz $D/kineto/hta_v100_step1.json.gz"
  "$V/torch_mlp_cpu.json.gz $K/cpu_only_rank34.json.gz"
  "$J/sampled_rank-0.json.gz $J/sampled_rank-1.json.gz"
  "$D/ggml/cpu-f32-t1.json.gz $K/a100_alexnet_fwd.json.gz"
)
[ ! -e "$R/$G/bench-v3.json" ] || pairs+=("$G/bench-v3.json $G/bench-v3-seed2.json" "$G/bench-v2.json $G/bench-v3.json")
for p in "${pairs[@]}"; do
  read -r a b <<< "$p"
  if [ ! -e "$R/$a" ] || [ ! -e "$R/$b" ]; then continue; fi
  diff4 "$a" "$b"
done
# every key and option on one pair of each kind
A=$D/ggml/cpu-f32-t1.json.gz B=$D/ggml/cpu-f32-t2.json.gz
for o in "--by kernel" "--by shape" "--by category" "--by layer" "--by phase" "--by phase,op" \
         "--by cpu-op" "--by test" "--by request" "--by nosuch" "--merge-backends" "--per graph" \
         "--per token" "--per none" "--per iteration" "--include-warmup" "--batch 1" \
         "--batch decode" "--graphs 1-" "--top 5 --min-share 0" "--alpha 0.01" \
         "--fail-on-regression 5" "--fail-on-regression 0.1 --min-share 0"; do
  # shellcheck disable=SC2086 # O is a list of options
  c "$A,$B" "$A $B | diff $o" -- diff "$A" "$B" $o
done
c "$A,$B" "$A $B | diff --json -" -- diff "$A" "$B" --json -
c "$A,$B" "$A $B | diff --html --html-max-records 50" -- diff "$A" "$B" -q --html out/d.html --html-max-records 50
c "$A,$B" "$A $B | diff --by layer,phase,category --json" -- diff "$A" "$B" --by layer,phase,category -q --json out/d.json
c "$A,$B" "$A $B | diff - B (stdin)" --stdin "$A" -- diff - "$B"
c "$A" "$A | diff with one input" -- diff "$A"
A=$D/ggml/cpu-f32-n4.json.gz B=$D/ggml/vk-f32-n4.json.gz
for o in "--by category" "--by kernel" "--by phase,op" "--merge-backends" "--by shape --merge-backends"; do
  # shellcheck disable=SC2086
  c "$A,$B" "$A $B | diff $o" -- diff "$A" "$B" $o
done
for p in "$K/a100_alexnet_fwd.json.gz $K/amd_mi250_minitoy_train.json.gz" \
         "$D/kineto/hta_a100_step1.json.gz $D/kineto/hta_v100_step1.json.gz"; do
  read -r A B <<< "$p"
  for o in "--by cpu-op" "--by kernel" "--by category" "--by layer" "--by phase" "--by shape" \
           "--per iteration" "--per none" "--include-warmup" "--merge-backends"; do
    # shellcheck disable=SC2086
    c "$A,$B" "$A $B | diff $o" -- diff "$A" "$B" $o
  done
  c "$A,$B" "$A $B | diff --by cpu-op --json" -- diff "$A" "$B" --by cpu-op -q --json out/d.json
done
if [ -e "$R/$G/bench-v3.json" ]; then
  A=$G/bench-v3.json B=$G/bench-v3-seed2.json
  for o in "--by layer,phase,category" "--by shape" "--include-warmup" "--per token"; do
    # shellcheck disable=SC2086
    c "$A,$B" "$A $B | diff $o" -- diff "$A" "$B" $o
  done
fi
# several runs a side
N=$D/noise
s3="$N/same-1.json.gz $N/same-2.json.gz $N/same-3.json.gz"
s6="$N/same-4.json.gz $N/same-5.json.gz $N/same-6.json.gz"
w3="$N/wide-1.json.gz $N/wide-2.json.gz $N/wide-3.json.gz"
l6="$D/noise-loaded/same-4.json.gz $D/noise-loaded/same-5.json.gz $D/noise-loaded/same-6.json.gz"
for p in "$s3|$s6" "$s3|$w3" "$s3|$l6"; do
  lhs=${p%|*} rhs=${p#*|}
  # shellcheck disable=SC2086 # lists of inputs
  {
    c "${lhs// /,},${rhs// /,}" "$lhs -- $rhs | diff" -- diff $lhs -- $rhs
    c "${lhs// /,},${rhs// /,}" "$lhs -- $rhs | diff --json --text" -- diff $lhs -- $rhs -q --json out/d.json --text out/d.txt
    c "${lhs// /,},${rhs// /,}" "$lhs -- $rhs | diff --fail-on-regression 5" -- diff $lhs -- $rhs --fail-on-regression 5
    c "${lhs// /,},${rhs// /,}" "$lhs -- $rhs | diff --html" -- diff $lhs -- $rhs -q --html out/d.html
  }
done

# --- jobs -----------------------------------------------------------------------------------
J0=$J/sampled_rank-0.json.gz J1=$J/sampled_rank-1.json.gz
gpu=("$J0" "$J1" "$K/a100_ddp_train_rank0.json.gz" "$K/amd_mi250_minitoy_train.json.gz")
mkdir -p "$R/$G/sums" "$R/$G/one"
sums=()
for i in "${!gpu[@]}"; do
  make_input report "${gpu[$i]}" --job --json "$G/sums/s$i.json" -q && sums+=("$G/sums/s$i.json")
done
make_input report "$J1" --job --json "$G/one/rank1.json" -q || true
gl=$(IFS=,; echo "${gpu[*]}")
c "$J" "$J | report (a job)" -- report "$J"
c "$J" "$J | report --json (a job)" -- report "$J" -q --json out/j.json
c "$J" "$J | report --job --json (a job)" -- report "$J" --job --json out/j.json
c "$J" "$J | report --threads 1 --json" -- report "$J" -q --threads 1 --json out/j.json
c "$J0,$J1" "$J0 $J1 | report (a job of a list)" -- report "$J0" "$J1"
c "$J0,$J1" "$J0 $J1 | report --json (a job of a list)" -- report "$J0" "$J1" -q --json out/j.json
c "$K" "$K | report (a job)" -- report "$K"
c "$K" "$K | report --json (a job)" -- report "$K" -q --json out/j.json
c "$gl" "4 GPU traces | report (a job)" -- report "${gpu[@]}"
c "$gl" "4 GPU traces | report --json (a job)" -- report "${gpu[@]}" -q --json out/j.json
c "$J0,$J1" "$J0 $J1 | report --job (usage error)" -- report "$J0" "$J1" --chrome-trace out/x.json
c "repo/tests/job/data" "repo/tests/job/data | report (a job)" -- report repo/tests/job/data
c "repo/tests/job/data" "repo/tests/job/data | report --json (a job)" -- report repo/tests/job/data -q --json out/j.json
if [ ${#sums[@]} = ${#gpu[@]} ]; then
  c "$G/sums" "$G/sums | report (summaries)" -- report "$G/sums"
  c "$G/sums" "$G/sums | report --json (summaries)" -- report "$G/sums" -q --json out/j.json
  c "${sums[0]},$gl" "a summary and traces | report" -- report "${sums[0]}" "${gpu[@]:1}"
  c "$J,$G/sums" "$J $G/sums | diff (jobs)" -- diff "$J" "$G/sums"
  c "$J,$G/sums" "$J $G/sums | diff --json (jobs)" -- diff "$J" "$G/sums" -q --json out/d.json
else
  note "the old binary could not make the job summaries: their cases left out"
fi
c "$J,$G/one" "$J $G/one | diff (jobs)" -- diff "$J" "$G/one"
c "$J,$G/one" "$J $G/one | diff --json (jobs)" -- diff "$J" "$G/one" -q --json out/d.json
c "$J,$G/one" "$J $G/one | diff --text (jobs: usage error)" -- diff "$J" "$G/one" --text out/d.txt
c "$J,$K" "$J $K | diff (jobs)" -- diff "$J" "$K"
c "$J" "$J | view (a job)" -- view "$J" -o out/j.html
c "$J" "$J | view --max-records 100 (a job)" -- view "$J" -o out/j.html --max-records 100
c "$J0,$J1" "$J0 $J1 | view (a job of a list)" -- view "$J0" "$J1" -o out/j.html
c "$K" "$K | view (a job)" -- view "$K" -o out/k.html
c "$gl" "4 GPU traces | view (a job)" -- view "${gpu[@]}" -o out/j.html

# --- merge ----------------------------------------------------------------------------------
M=$G/rpc
c "$M/client.json,$M/server.json" "client server | merge" -- merge "$M/client.json" "$M/server.json" -o out/m.json
c "$M/client.json,$M/server.json" "client server | merge -o -" -- merge "$M/client.json" "$M/server.json" -o -
c "$M/client.json,$M/server.json" "client server | merge -q" -- merge "$M/client.json" "$M/server.json" -q -o out/m.json
c "$M/client.json,$M/server.json" "client server | merge --label" -- \
  merge "$M/client.json" "$M/server.json" --label "srv=$M/server.json" --label "cli=$M/client.json" -o out/m.json
c "$M/client.json,$M/server.json" "client server | merge --offset" -- \
  merge "$M/client.json" "$M/server.json" --offset box/ggml-rpc-server=1000000000000 -o out/m.json
c "$M/client.json,$M/server.json" "client server | merge --offset (unknown label)" -- \
  merge "$M/client.json" "$M/server.json" --offset nosuch=5 -o out/m.json
c "$M/client.json,$M/server.json" "client server | merge, OPSCOPE_MERGE_DEBUG=1" --env OPSCOPE_MERGE_DEBUG=1 -- \
  merge "$M/client.json" "$M/server.json" -o out/m.json
c "$M/client2.json,$M/server2-a.json,$M/server2-b.json" "client two servers | merge" -- \
  merge "$M/client2.json" "$M/server2-a.json" "$M/server2-b.json" -o out/m.json
c "$M/client-same.json,$M/server-same.json" "one clock | merge" -- \
  merge "$M/client-same.json" "$M/server-same.json" -o out/m.json
c "$M/client.json" "client alone | merge" -- merge "$M/client.json" -o out/m.json
c "$M/client.json,$K/triton_example.json.gz" "client and a trace | merge" -- \
  merge "$M/client.json" "$K/triton_example.json.gz" -o out/m.json
c "$M/client.json,$M/server-same.json" "mismatched server | merge" -- \
  merge "$M/client.json" "$M/server-same.json" -o out/m.json

run_cases

# --- the comparison after the mask ----------------------------------------------------------
[ $tty = 0 ] || printf '\r\033[K' >&2
{ cat "$W"/pending.* 2> /dev/null || true; } | sort -n > "$W/pending"
"$py" "$helper" compare "$W/pending" "$vold" "$vnew" "$W/differ"
k=$(cat "$W/differ")
m=${#seen_input[@]}
if [ "$k" = 0 ]; then
  echo "$n_cases outputs compared on $m inputs: all identical"
  exit 0
fi
echo "$n_cases outputs compared on $m inputs: $k differ"
exit 1
