#!/usr/bin/env python3
"""Writes a tiny random-weight whisper model and a short test WAV for opscope's capture tests.

Runs INSIDE the forky root (numpy; whisper-cli for --verify):
    scripts/in-root.sh --no-build python3 /opscope/scripts/make-whisper-model.py [--verify]

Files (in $OPSCOPE_MODELS, default /models; made once, kept):
    tiny-whisper.bin      whisper.cpp's own model format (not GGUF): English-only vocabulary
                          size (51864, so the special tokens sit at their usual ids), state 128,
                          2 heads, 2 encoder and 2 decoder layers, 80 mel bands, 1500 audio /
                          448 text positions, f16 matrices (17 MB, most of it the token
                          embedding); built so that every beam ends with end-of-text at decoder
                          position 24 (about 30 decoder computes instead of 220)
    tiny-whisper-2s.wav   2 s of 16 kHz mono 16-bit PCM: a 440 Hz tone plus noise
Weights and noise are seeded (the same bytes every run). --verify runs whisper-cli on the pair
and fails unless it exits 0. Files are written to a temporary name and renamed, under a lock;
tiny-whisper.bin.stamp holds this script's hash, so an edit of it makes the files again.

The layout (whisper.cpp src/whisper.cpp, whisper_model_load), all little-endian:
    u32 magic "ggml"; 11 x i32 hparams (n_vocab, n_audio_ctx, n_audio_state, n_audio_head,
    n_audio_layer, n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels, ftype);
    mel filters: i32 n_mel, i32 n_fft, f32[n_mel * n_fft];
    vocabulary: i32 n, then n x (u32 length, bytes) - ids past n are named by whisper.cpp;
    tensors until end of file: i32 n_dims, i32 name length, i32 ggml type, i32 ne[n_dims]
    (ggml order, ne[0] the contiguous one), name, raw data.
"""
import argparse
import fcntl
import hashlib
import os
import struct
import subprocess
import sys
import wave

import numpy as np

MODELS = os.environ.get("OPSCOPE_MODELS", "/models")
MODEL = "tiny-whisper.bin"
WAV = "tiny-whisper-2s.wav"

H = dict(n_vocab=51864, n_audio_ctx=1500, n_audio_state=128, n_audio_head=2, n_audio_layer=2,
         n_text_ctx=448, n_text_state=128, n_text_head=2, n_text_layer=2, n_mels=80, ftype=1)
N_TEXT_TOKENS = 50256  # ids below the first special token (end of text); whisper names the rest
EOT_AT = 24  # decoder position from which end of text wins (see tensors())
GGML_F32, GGML_F16 = 0, 1
SAMPLE_RATE, N_FFT = 16000, 400


def mel_filters(n_mel, n_fft_bins):
    """Triangular filters on the mel scale over 0..8 kHz (HTK formula), area-normalised."""
    def mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def hz(m):
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)

    edges = hz(np.linspace(mel(0.0), mel(SAMPLE_RATE / 2), n_mel + 2))
    bins = np.linspace(0.0, SAMPLE_RATE / 2, n_fft_bins)
    f = np.zeros((n_mel, n_fft_bins), dtype=np.float32)
    for i in range(n_mel):
        lo, mid, hi = edges[i], edges[i + 1], edges[i + 2]
        up = (bins - lo) / (mid - lo)
        down = (hi - bins) / (hi - mid)
        f[i] = np.maximum(0.0, np.minimum(up, down)) * (2.0 / (hi - lo))
    return f


def byte_order():
    """GPT-2's first 256 token ids are the 256 bytes, printable ones first (so id 220 is the space
    whisper.cpp looks up by text)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    return printable + [b for b in range(256) if b not in printable]


def token_text(i, order):
    """Ids 0-255: single bytes; above: a made-up word from the id's digits in syllables, every
    third one with a leading space, so a transcription of random weights reads like text."""
    if i < 256:
        return bytes([order[i]])
    syl = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "vu", "an", "el", "is", "or"]
    s = ""
    n = i
    while n:
        s += syl[n % len(syl)]
        n //= len(syl)
    return (" " + s if i % 3 == 0 else s).encode()


def tensors(h, rng):
    """(name, ggml type, ne in ggml order, float data) of every tensor whisper.cpp expects."""
    s, a, t, v = h["n_audio_state"], h["n_audio_ctx"], h["n_text_ctx"], h["n_vocab"]
    wt = GGML_F16 if h["ftype"] == 1 else GGML_F32

    def mat(*ne):  # random weights; numpy's shape is ggml's ne reversed
        return rng.standard_normal(tuple(reversed(ne)), dtype=np.float32) * 0.05

    def vec(*ne, fill=None):
        shape = tuple(reversed(ne))
        if fill is not None:
            return np.full(shape, fill, dtype=np.float32)
        return rng.standard_normal(shape, dtype=np.float32) * 0.01

    out = [("encoder.positional_embedding", GGML_F32, (s, a), mat(s, a)),
           ("encoder.conv1.weight", wt, (3, h["n_mels"], s), mat(3, h["n_mels"], s)),
           ("encoder.conv1.bias", GGML_F32, (1, s), vec(1, s)),
           ("encoder.conv2.weight", wt, (3, s, s), mat(3, s, s)),
           ("encoder.conv2.bias", GGML_F32, (1, s), vec(1, s)),
           ("encoder.ln_post.weight", GGML_F32, (s,), vec(s, fill=1.0)),
           ("encoder.ln_post.bias", GGML_F32, (s,), vec(s))]

    def block(p, cross):
        b = [(p + "mlp_ln.weight", GGML_F32, (s,), vec(s, fill=1.0)),
             (p + "mlp_ln.bias", GGML_F32, (s,), vec(s)),
             (p + "mlp.0.weight", wt, (s, 4 * s), mat(s, 4 * s)),
             (p + "mlp.0.bias", GGML_F32, (4 * s,), vec(4 * s)),
             (p + "mlp.2.weight", wt, (4 * s, s), mat(4 * s, s)),
             (p + "mlp.2.bias", GGML_F32, (s,), vec(s))]
        for att in ("attn", "cross_attn") if cross else ("attn",):
            b += [(f"{p}{att}_ln.weight", GGML_F32, (s,), vec(s, fill=1.0)),
                  (f"{p}{att}_ln.bias", GGML_F32, (s,), vec(s)),
                  (f"{p}{att}.query.weight", wt, (s, s), mat(s, s)),
                  (f"{p}{att}.query.bias", GGML_F32, (s,), vec(s)),
                  (f"{p}{att}.key.weight", wt, (s, s), mat(s, s)),
                  (f"{p}{att}.value.weight", wt, (s, s), mat(s, s)),
                  (f"{p}{att}.value.bias", GGML_F32, (s,), vec(s)),
                  (f"{p}{att}.out.weight", wt, (s, s), mat(s, s)),
                  (f"{p}{att}.out.bias", GGML_F32, (s,), vec(s))]
        return b

    for i in range(h["n_audio_layer"]):
        out += block(f"encoder.blocks.{i}.", False)
    # An end: random weights alone decode until the 224-token limit. A direction u (zero mean,
    # so layer norms keep it) is added to the decoder's position embeddings from EOT_AT on and
    # is the end-of-text token's embedding (logits are the token embeddings times the final
    # normed state), so every beam ends there.
    half = rng.choice([-1.0, 1.0], size=s // 2).astype(np.float32)
    u = np.concatenate([half, -half]) / np.sqrt(2 * half.size)
    d_pe, d_te = mat(s, t), mat(s, v)
    d_pe[EOT_AT:] += 50.0 * u
    d_te[N_TEXT_TOKENS] = 0.5 * u
    out += [("decoder.positional_embedding", GGML_F32, (s, t), d_pe),
            ("decoder.token_embedding.weight", wt, (s, v), d_te),
            ("decoder.ln.weight", GGML_F32, (s,), vec(s, fill=1.0)),
            ("decoder.ln.bias", GGML_F32, (s,), vec(s))]
    for i in range(h["n_text_layer"]):
        out += block(f"decoder.blocks.{i}.", True)
    return out


def write_model(path, h, seed):
    rng = np.random.default_rng(seed)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<I", 0x67676D6C))
        f.write(struct.pack("<11i", *(h[k] for k in ("n_vocab", "n_audio_ctx", "n_audio_state", "n_audio_head",
                                                     "n_audio_layer", "n_text_ctx", "n_text_state", "n_text_head",
                                                     "n_text_layer", "n_mels", "ftype"))))
        n_bins = N_FFT // 2 + 1
        f.write(struct.pack("<2i", h["n_mels"], n_bins))
        f.write(mel_filters(h["n_mels"], n_bins).astype("<f4").tobytes())
        f.write(struct.pack("<i", N_TEXT_TOKENS))
        order = byte_order()
        for i in range(N_TEXT_TOKENS):
            w = token_text(i, order)
            f.write(struct.pack("<I", len(w)) + w)
        for name, ttype, ne, data in tensors(h, rng):
            assert data.size == int(np.prod(ne)), name
            raw = data.astype("<f2" if ttype == GGML_F16 else "<f4").tobytes()
            nb = name.encode()
            f.write(struct.pack(f"<3i{len(ne)}i", len(ne), len(nb), ttype, *ne) + nb + raw)
    os.replace(tmp, path)


def write_wav(path, seconds, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(int(SAMPLE_RATE * seconds)) / SAMPLE_RATE
    x = 0.3 * np.sin(2 * np.pi * 440.0 * t) + 0.05 * rng.standard_normal(t.size)
    pcm = np.clip(x * 32767.0, -32768, 32767).astype("<i2")
    tmp = path + ".tmp"
    with wave.open(tmp, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(pcm.tobytes())
    os.replace(tmp, path)


def verify(model, wav):
    r = subprocess.run(["whisper-cli", "-m", model, "-f", wav, "-t", "2", "-nf"], capture_output=True,
                       text=True, errors="replace", stdin=subprocess.DEVNULL, timeout=300)
    if r.returncode != 0 or "whisper_model_load" not in r.stderr:
        sys.stderr.write(r.stdout[-1000:] + r.stderr[-3000:])
        raise SystemExit(f"make-whisper-model: {model} does not load and run in whisper-cli")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verify", action="store_true", help="check whisper-cli runs on the model")
    ap.add_argument("--dir", default=MODELS)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    model, wav = os.path.join(a.dir, MODEL), os.path.join(a.dir, WAV)
    with open(os.path.join(a.dir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # A stamp with this script's hash: a changed generator makes the files again.
        stamp = model + ".stamp"
        with open(os.path.abspath(__file__), "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        have = open(stamp).read().strip() if os.path.exists(stamp) else ""
        if have != want or not os.path.exists(model) or not os.path.exists(wav):
            write_model(model, H, 11)
            write_wav(wav, 2.0, 12)
            with open(stamp, "w") as f:
                f.write(want + "\n")
        if a.verify:
            verify(model, wav)
    print(model)
    print(wav)


if __name__ == "__main__":
    main()
