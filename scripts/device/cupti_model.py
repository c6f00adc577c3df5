#!/usr/bin/env python3
"""Writes a random-weight 1B-class llama model in q4_0 for the CUPTI device check, with the
standard library alone (the GPU machine's python may lack numpy and gguf): GGUF v3, the
architecture and byte-level vocabulary of scripts/make-models.py, 16 layers, n_embd 2048,
32 heads / 8 kv, n_ff 8192 (0.97 G parameters); matrices q4_0 with random quants and a small
scale, norms f32 ones.

    cupti_model.py OUT.gguf [n_layer n_embd n_ff]
"""
import os
import struct
import sys

U32, I32, F32, BOOL, STR, ARR = 4, 5, 6, 7, 8, 9
GGML_F32, GGML_Q4_0 = 0, 2


def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, typ, val):
    out = s(key) + struct.pack("<I", typ)
    if typ == STR:
        return out + s(val)
    if typ == ARR:
        et, items = val
        out += struct.pack("<IQ", et, len(items))
        return out + b"".join(s(i) if et == STR else struct.pack("<i", i) for i in items)
    fmt = {U32: "<I", I32: "<i", F32: "<f", BOOL: "<?"}[typ]
    return out + struct.pack(fmt, val)


def byte_tokens():
    """GPT-2's byte-to-unicode table (as scripts/make-models.py)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xa1, 0xac + 1)) + list(range(0xae, 0xff + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    table = dict(zip(bs, cs))
    return [chr(table[b]) for b in range(256)]


def q4_0(n):
    """N values in q4_0: blocks of 32, an f16 scale of 0.01 then 16 bytes of random quants."""
    nb = n // 32
    data = bytearray(os.urandom(nb * 18))
    lo, hi = struct.pack("<e", 0.01)
    data[0::18] = bytes([lo]) * nb
    data[1::18] = bytes([hi]) * nb
    return bytes(data)


def main():
    path = sys.argv[1]
    L, e, f = (int(x) for x in sys.argv[2:5]) if len(sys.argv) >= 5 else (16, 2048, 8192)
    nh, nkv, v = e // 64, e // 256, 256
    kvd = 64 * nkv
    toks = byte_tokens()
    sp = toks[ord(" ")]
    meta = [
        kv("general.architecture", STR, "llama"), kv("general.name", STR, "cupti-check-1b"),
        kv("general.alignment", U32, 32), kv("general.file_type", U32, 2),
        kv("llama.context_length", U32, 4096), kv("llama.embedding_length", U32, e),
        kv("llama.block_count", U32, L), kv("llama.feed_forward_length", U32, f),
        kv("llama.attention.head_count", U32, nh), kv("llama.attention.head_count_kv", U32, nkv),
        kv("llama.rope.dimension_count", U32, 64), kv("llama.rope.freq_base", F32, 10000.0),
        kv("llama.attention.layer_norm_rms_epsilon", F32, 1e-5), kv("llama.vocab_size", U32, v),
        kv("tokenizer.ggml.model", STR, "gpt2"), kv("tokenizer.ggml.pre", STR, "default"),
        kv("tokenizer.ggml.tokens", ARR, (STR, toks)), kv("tokenizer.ggml.token_type", ARR, (I32, [1] * v)),
        kv("tokenizer.ggml.merges", ARR, (STR, [f"{sp} t", "t h", "h e", f"{sp} a"])),
        kv("tokenizer.ggml.bos_token_id", U32, ord("\n")), kv("tokenizer.ggml.eos_token_id", U32, ord("\n")),
        kv("tokenizer.ggml.add_bos_token", BOOL, False),
    ]
    tensors = [("token_embd.weight", [e, v], GGML_Q4_0)]
    for i in range(L):
        p = f"blk.{i}."
        tensors += [(p + "attn_norm.weight", [e], GGML_F32), (p + "attn_q.weight", [e, e], GGML_Q4_0),
                    (p + "attn_k.weight", [e, kvd], GGML_Q4_0), (p + "attn_v.weight", [e, kvd], GGML_Q4_0),
                    (p + "attn_output.weight", [e, e], GGML_Q4_0), (p + "ffn_norm.weight", [e], GGML_F32),
                    (p + "ffn_gate.weight", [e, f], GGML_Q4_0), (p + "ffn_up.weight", [e, f], GGML_Q4_0),
                    (p + "ffn_down.weight", [f, e], GGML_Q4_0)]
    tensors += [("output_norm.weight", [e], GGML_F32), ("output.weight", [e, v], GGML_Q4_0)]

    def nbytes(ne, t):
        n = 1
        for d in ne:
            n *= d
        return n * 4 if t == GGML_F32 else n // 32 * 18

    infos, off = [], 0
    for name, ne, t in tensors:
        infos.append(s(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne)
                     + struct.pack("<IQ", t, off))
        off += (nbytes(ne, t) + 31) // 32 * 32
    tmp = path + ".tmp"
    with open(tmp, "wb") as fp:
        fp.write(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta)))
        fp.write(b"".join(meta) + b"".join(infos))
        fp.write(b"\0" * ((32 - fp.tell() % 32) % 32))
        for name, ne, t in tensors:
            n = 1
            for d in ne:
                n *= d
            data = struct.pack("<f", 1.0) * n if t == GGML_F32 else q4_0(n)
            fp.write(data + b"\0" * ((32 - len(data) % 32) % 32))
    os.replace(tmp, path)
    print(f"cupti_model: {path}: {L} layers, n_embd {e}, n_ff {f}, {off / 2**20:.0f} MiB of q4_0 weights")


if __name__ == "__main__":
    main()
