#!/usr/bin/env python3
"""The GPU measurement's random-weight models, with scripts/make-models.py's writer:
    gen-models.py DIR [NAME...]  (NAME: tiny-f32, m1b-f32; default both)
                        ->  DIR/tiny-f32.gguf  (4 layers, n_embd 256, n_ff 512: the test model)
                            DIR/m1b-f32.gguf   (16 layers, n_embd 2048, 16 heads / 4 kv, n_ff 8192:
                                                the 1B class; vocabulary 256 tokens)
Quantizing to q4_0 is the caller's (llama-quantize runs with forky's loader there).
Needs numpy and gguf (PYTHONPATH=.dev for the bundled one)."""
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("make_models", os.path.join(here, "..", "make-models.py"))
mm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mm)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
M1B = dict(n_layer=16, n_embd=2048, n_head=16, n_head_kv=4, n_ff=8192, n_expert=0, n_expert_used=0)
want = set(sys.argv[2:]) or {"tiny-f32", "m1b-f32"}
for name, h in (("tiny-f32", mm.TINY), ("m1b-f32", M1B)):
    if name not in want:
        continue
    p = os.path.join(out, name + ".gguf")
    if not os.path.exists(p):
        mm.write_model(p, h, 1)
    print(p, os.path.getsize(p))
