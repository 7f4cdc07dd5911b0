"""A byte-level GPT trained on Kiln's own sources, in Python: the same model,
batches and schedule as the C++ demo (examples/char-lm), so the same seed
gives the same losses.

    python3 examples/python/char_gpt.py --steps 300
"""

import argparse
import os
import time

import numpy as np

import kiln

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sources(path):
    """The .cpp, .h and .td files under `path`, sorted by name, recursively
    (the C++ demo's readSources)."""
    out = b""
    for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
        if name.startswith("."):
            continue
        full = os.path.join(path, name)
        if os.path.isdir(full):
            out += sources(full)
        elif any(name.endswith(s) and len(name) > len(s)
                 for s in (".cpp", ".h", ".td")):
            with open(full, "rb") as f:
                out += f.read()
    return out


class SplitMix64:
    """The C++ demo's generator, bit for bit."""

    def __init__(self, seed):
        self.state = seed

    def pick(self, lo, hi):
        m = (1 << 64) - 1
        self.state = (self.state + 0x9E3779B97F4A7C15) & m
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        return lo + (z ^ (z >> 31)) % (hi - lo + 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in [("steps", 300), ("batch", 16), ("layers", 4),
                          ("heads", 4), ("dim", 256), ("context", 128),
                          ("seed", 1), ("sample", 400)]:
        p.add_argument("--" + name, type=int, default=default)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--temperature", type=float, default=0.8)
    p.add_argument("--device", default="cpu", choices=["cpu", "flex", "cuda"])
    p.add_argument("--text", help="train on this file (default: the sources)")
    p.add_argument("--prompt", default="DispatchTensor ")
    p.add_argument("--save", help="write the weights (safetensors)")
    p.add_argument("--load", help="start from these weights")
    p.add_argument("--quiet", action="store_true")
    o = p.parse_args()

    base = {"cpu": kiln.cpu, "flex": kiln.flex, "cuda": kiln.cuda}[o.device]()
    model = kiln.nn.GPT(256, o.layers, o.heads, o.dim, o.context,
                        device=kiln.autodiff(base, "balanced"), seed=o.seed)
    opt = kiln.optim.AdamW(model, lr=o.lr, betas=(0.9, 0.95), eps=1e-8,
                           weight_decay=0.1)
    if o.load:
        model.load_weights(o.load)
    if o.text:
        with open(o.text, "rb") as f:
            text = f.read()
    else:
        text = b"".join(sources(os.path.join(ROOT, d))
                        for d in ("include", "lib", "tools", "examples"))
    data = np.frombuffer(text, np.uint8).astype(np.int64)
    t, span = o.context, o.context + 1
    split = len(data) - len(data) // 10

    def batch(at):
        rows = np.stack([data[a:a + span] for a in at])
        return (kiln.asarray(rows[:, :-1], device=base),
                kiln.asarray(rows[:, 1:], device=base))

    ev = SplitMix64(12345)
    evals = [batch([ev.pick(split, len(data) - span) for _ in range(o.batch)])
             for _ in range(4)]

    def eval_loss():
        with kiln.no_grad():
            return sum(model.loss(x, y).item() for x, y in evals) / len(evals)

    n = sum(q.size for q in model.parameters())
    print("char_gpt: a gpt of %d parameters on %s, %d bytes of text, batch %d "
          "x %d bytes, %d steps" % (n, o.device, len(data), o.batch, t, o.steps))
    first = eval_loss()
    print("eval loss before training %.4f" % first)
    rng = SplitMix64(o.seed)
    warmup = min(20, max(o.steps // 10, 1))
    compiled = kiln.compile_count(base)
    for step in range(1, o.steps + 1):
        x, y = batch([rng.pick(0, split - span) for _ in range(o.batch)])
        t0 = time.perf_counter()
        opt.lr = kiln.optim.warmup_cosine(step, warmup, o.steps, o.lr, o.lr / 10)
        loss = model.loss(x, y)
        opt.step(kiln.optim.clip_grad_norm(kiln.backward(loss), 1.0))
        base.sync()  # the loss, the parameters and AdamW's state in one graph
        value = loss.item()
        rate = o.batch * t / (time.perf_counter() - t0)
        if not o.quiet or step == o.steps:
            bar = "#" * int(24 * step / o.steps)
            print("step %4d/%d [%-24s] loss %.4f  %7.0f tok/s  kernels: %d "
                  "compiled" % (step, o.steps, bar, value, rate,
                                kiln.compile_count(base) - compiled),
                  flush=True)
    last = eval_loss()
    print("eval loss %.4f -> %.4f (%.0f%% lower)"
          % (first, last, 100 * (first - last) / first))
    if o.save:
        model.save_weights(o.save)
        print("saved %s" % o.save)
    if o.sample > 0:
        prompt = list(o.prompt.encode())
        out = model.generate(prompt, o.sample, temperature=o.temperature,
                             top_k=40, seed=o.seed)
        print("---- sample ----\n%s\n----------------"
              % bytes(out).decode("utf-8", "replace"))


if __name__ == "__main__":
    main()
