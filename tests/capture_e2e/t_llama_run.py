#!/usr/bin/env python3
"""What ran, against the programs' own accounts and an independent GGUF reader.

usage (inside the root): t_llama_run.py bench|completion|openblas

bench: llama-bench with two models, -p 16 -n 16 -r 2 -o json, under `opscope record`:
  `report --json` has one test per llama-bench test (4), each with its model path and
  n_prompt / n_gen equal to llama-bench's own JSON of the same run and tokens/s within 10% of
  its avg_ts; the capture names the BLAS library the alternatives link resolves to (the root's
  default: netlib's reference BLAS) and the report's first screen says so.
completion: llama-completion's profile has its command line, and per model file the
  architecture, file type, parameter count (python3-gguf's GGUFReader: the tensors' elements
  summed) and size (os.stat) of the GGUF file.
openblas: llama-completion on the BLAS backend with Debian's OpenBLAS selected for this run
  alone (LD_LIBRARY_PATH to its libblas.so.3 folder; ldd says the BLAS backend then resolves
  there, the root's alternative stays netlib's) and OPENBLAS_NUM_THREADS=2, a 48-word prompt
  so the prefill's MUL_MATs run on BLAS: the first screen names OpenBLAS, the library ldd
  found and 2 threads, and has no reference-BLAS warning.
"""
import json
import os
import subprocess
import sys

import e2e

mode = sys.argv[1] if len(sys.argv) > 1 else "bench"
e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("the opscope CLI is not built in the root")
ENV = e2e.env_for([], extra={"OPSCOPE_LIB": e2e.PRELOAD})


def report(prof, json_out):
    r = subprocess.run([e2e.OPSCOPE, "report", prof, "--json", json_out], capture_output=True, text=True,
                       errors="replace", timeout=300)
    e2e.check(r.returncode == 0, f"opscope report exits 0 ({r.stderr.strip()[:200]})")
    return r.stdout, (json.load(open(json_out)) if r.returncode == 0 else {})


def first_screen(text):
    """The console summary's header block: up to the second line of '=' after the title."""
    lines = text.splitlines()
    seps = [i for i, l in enumerate(lines) if l.startswith("=====")]
    return "\n".join(lines[: seps[2] + 1]) if len(seps) >= 3 else text


def bench():
    a, b = e2e.model("tiny-dense-q8_0"), e2e.model("tiny-dense-f32")
    d = e2e.outdir("llama-run-bench")
    prof = f"{d}/bench.json"
    cmd = ["llama-bench", "-m", f"{a},{b}", "-p", "16", "-n", "16", "-r", "2", "-t", "2", "-o", "json"]
    for attempt in range(2):
        rc, out, err = e2e.run([e2e.OPSCOPE, "record", "-o", prof, "--"] + cmd, ENV, timeout=600)
        if not e2e.check(rc == 0, f"opscope record -- llama-bench exits 0 ({rc}; {err[-300:]!r})"):
            return
        own = json.loads(out)
        text, rep = report(prof, f"{d}/report.json")
        tests = rep.get("summary", {}).get("tests", [])
        want = [(t["model_filename"], t["n_prompt"], t["n_gen"]) for t in own]
        got = [(t["model"], t["n_prompt"], t["n_gen"]) for t in tests]
        ratios = [t["avg_ts"] / o["avg_ts"] for t, o in zip(tests, own)]
        close = len(tests) == len(own) and all(0.9 <= r <= 1.1 for r in ratios)
        if close or attempt == 1:
            break
        # one stall on this shared 2-core machine inside a repetition moves llama-bench's clock
        # and ours alike, but a stall between its clear and its first decode only ours
        e2e.note(f"note  tokens/s ratios {ratios}: recording again")
    e2e.check(len(own) == 4 and len(tests) == 4, f"4 tests in llama-bench's JSON ({len(own)}) and the report ({len(tests)})")
    e2e.check(got == want, f"tests' model, n_prompt, n_gen equal llama-bench's: {got} vs {want}")
    e2e.check(close, "tokens/s within 10% of llama-bench's avg_ts: " +
              ", ".join(f"{t['avg_ts']:.1f} vs {o['avg_ts']:.1f}" for t, o in zip(tests, own)))
    e2e.check(all(t["n_threads"] == o["n_threads"] for t, o in zip(tests, own)),
              f"threads equal llama-bench's ({[t['n_threads'] for t in tests]})")
    e2e.check(all(t["reps"] == 2 and t["warmup_graphs"] >= 1 for t in tests),
              f"2 repetitions and a warm-up per test ({[(t['reps'], t['warmup_graphs']) for t in tests]})")
    cap = rep.get("capture", {})
    e2e.check(cap.get("argv") == cmd, f"capture.argv is the command ({cap.get('argv')})")
    real = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    blas = cap.get("blas", {})
    e2e.check(blas.get("path") == real and blas.get("name") == "reference" and "/blas/" in real,
              f"capture.blas is the alternative's library, netlib's reference ({blas} vs {real})")
    head = first_screen(text)
    e2e.check("BLAS:          reference (netlib)" in head and "Slow setup:    the BLAS library is netlib's reference BLAS" in head,
              f"the first screen names the reference BLAS:\n{head}")
    e2e.check("--- Tests" in text and "pp16" in text and "tg16" in text, "the console has the tests table")


def completion():
    import gguf
    m = e2e.model("tiny-dense-q4_0")
    d = e2e.outdir("llama-run-completion")
    prof = f"{d}/completion.json"
    cmd = ["llama-completion", "-m", m, "-p", "Hello", "-n", "4", "--temp", "0", "-t", "2", "-no-cnv",
           "--no-warmup"]
    rc, _, err = e2e.run([e2e.OPSCOPE, "record", "-o", prof, "--"] + cmd, ENV)
    if not e2e.check(rc == 0, f"opscope record -- llama-completion exits 0 ({rc}; {err[-300:]!r})"):
        return
    cap = e2e.load_profile(prof).get("capture", {})
    e2e.check(cap.get("argv") == cmd, f"capture.argv is the command line ({cap.get('argv')})")
    r = gguf.GGUFReader(m)
    field = r.fields["general.architecture"]
    arch = bytes(field.parts[field.data[0]]).decode()
    ft = r.fields["general.file_type"]
    ftype = int(ft.parts[ft.data[0]][0])
    n_params = sum(int(t.n_elements) for t in r.tensors)
    models = cap.get("models", [])
    got = [(x.get("path"), x.get("architecture"), x.get("n_params"), x.get("file_type"), x.get("size")) for x in models]
    e2e.check(got == [(m, arch, n_params, ftype, os.path.getsize(m))],
              f"capture.models is the GGUF header's: {got} vs {[(m, arch, n_params, ftype, os.path.getsize(m))]}")
    text, rep = report(prof, f"{d}/report.json")
    e2e.check(rep.get("capture", {}).get("models") == models, "report --json keeps capture.models")
    e2e.check(f"{m}: {arch}," in first_screen(text), "the first screen names the model and its architecture")


def openblas():
    lib = "/usr/lib/x86_64-linux-gnu"
    folder = f"{lib}/openblas-pthread"
    if not os.path.exists(f"{folder}/libblas.so.3"):
        e2e.skip("Debian's libopenblas0-pthread is not in the root (scripts/forky-root.sh installs it)")
    backend = next((f"{r}/{f}" for r, _, fs in os.walk(f"{lib}/ggml") for f in fs if f.startswith("libggml-blas")),
                   None)
    if not e2e.check(backend is not None, "Debian's ggml BLAS backend is in the root"):
        return
    extra = {"OPSCOPE_LIB": e2e.PRELOAD, "LD_LIBRARY_PATH": folder, "OPENBLAS_NUM_THREADS": "2"}
    env = e2e.env_for([], extra=extra)
    # what the dynamic linker resolves, told by ldd (not by opscope): OpenBLAS with the path set,
    # netlib's reference without it (the root's alternative is left alone)
    deps = subprocess.run(["ldd", backend], env=env, capture_output=True, text=True).stdout
    plain = subprocess.run(["ldd", backend], env=e2e.env_for([]), capture_output=True, text=True).stdout
    libopenblas = next((ln.split("=>")[1].split("(")[0].strip() for ln in deps.splitlines()
                        if "libopenblas.so" in ln and "=>" in ln), "")
    e2e.check(libopenblas.startswith(folder) and "openblas" not in plain,
              f"ldd: the backend loads {libopenblas or 'no OpenBLAS'} with the path, the reference BLAS without")
    d = e2e.outdir("llama-run-openblas")
    prof = f"{d}/openblas.json"
    # a prompt of 48 words: ggml-blas takes MUL_MATs of 32 rows or more, so the prefill runs there
    cmd = ["llama-completion", "-m", e2e.model("tiny-dense-f32"), "-p", " ".join(["Hello"] * 48), "-n", "4",
           "--temp", "0", "-t", "2", "-no-cnv", "--no-warmup"]
    rc, _, err = e2e.run([e2e.OPSCOPE, "record", "-o", prof, "--"] + cmd, env)
    if not e2e.check(rc == 0, f"opscope record -- llama-completion with OpenBLAS exits 0 ({rc}; {err[-300:]!r})"):
        return
    text, rep = report(prof, f"{d}/report.json")
    blas = rep.get("capture", {}).get("blas", {})
    real = os.path.realpath(libopenblas) if libopenblas else None
    e2e.check(blas.get("name") == "OpenBLAS" and blas.get("path") == real and blas.get("threads") == 2,
              f"capture.blas is OpenBLAS at ldd's library ({real}) with OPENBLAS_NUM_THREADS's 2 threads ({blas})")
    p = e2e.load_profile(prof)
    blas_ids = [b.get("id") for b in p.get("backends", []) if b.get("name") == "BLAS"]
    on_blas = sum(1 for r in p.get("records", []) if r.get("name") == "MUL_MAT" and r.get("backend_id") in blas_ids)
    e2e.check(on_blas > 0, f"the prefill's MUL_MATs ran on the BLAS backend ({on_blas} records)")
    head = first_screen(text)
    e2e.check(f"BLAS:          OpenBLAS, {real}, 2 threads" in head,
              f"the first screen names OpenBLAS, its library and its 2 threads:\n{head}")
    e2e.check("reference" not in head and "Slow setup:    the BLAS" not in head,
              "the first screen has no reference-BLAS warning")


{"bench": bench, "completion": completion, "openblas": openblas}[mode]()
e2e.finish()
