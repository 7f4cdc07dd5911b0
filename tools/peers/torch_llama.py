"""PyTorch (eager, and torch.compile) on tensor-bench's Llama rows, for
same-sitting ratios.

Not part of the test command: it needs torch and transformers from PyPI.
Run it right after tensor-bench on the same host and thread count:

    python3 tools/peers/torch_llama.py --threads 1 --runs 5 [--compile]

Rows (see tools/tensor-bench/Llama.cpp for Kiln's definitions):
  llama_train_step: transformers' LlamaForCausalLM, vocab 256, 4 layers,
  hidden 256, 8 query and 2 key/value heads, SwiGLU 688, rope 10000, RMS
  eps 1e-5, untied head, batch 8 of 256 tokens; cross-entropy, backward,
  clipping at 1.0, AdamW (3e-4, betas 0.9/0.95, weight decay 0.1).
  llama_decode: the same model at batch 1, a 16-token prompt, then 256
  tokens with generate() and its key/value cache (temperature 0.8, top-k
  40, top-p 0.9).
"""

import argparse
import time

import torch
import torch.nn.functional as F
import transformers
from timing import median_ms


def model():
    config = transformers.LlamaConfig(
        vocab_size=256, hidden_size=256, intermediate_size=688,
        num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2,
        max_position_embeddings=512, rope_theta=10000.0, rms_norm_eps=1e-5,
        tie_word_embeddings=False, bos_token_id=None, eos_token_id=None)
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(config)


def train_step(args):
    m = model().train()
    opt = torch.optim.AdamW(m.parameters(), lr=3e-4, betas=(0.9, 0.95),
                            weight_decay=0.1)
    g = torch.Generator().manual_seed(7)
    seq = torch.randint(0, 256, (8, 257), generator=g)
    x, y = seq[:, :-1], seq[:, 1:]

    def loss_of(x, y):
        logits = m(x).logits
        return F.cross_entropy(logits.reshape(-1, 256), y.reshape(-1))

    fwd = torch.compile(loss_of) if args.compile else loss_of

    def step():
        opt.zero_grad(set_to_none=True)
        loss = fwd(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()

    t0 = time.perf_counter()
    step()
    first = (time.perf_counter() - t0) * 1e3
    ms = median_ms(step, args.warmup, args.runs)
    print("llama_train_step  torch%s  %.1f ms  tok/s=%.0f  first_step_ms=%.0f"
          % ("-compile" if args.compile else "", ms, 8 * 256 / ms * 1e3,
             first))


def decode(args):
    m = model().eval()
    prompt = torch.tensor([[(i * 37 + 11) % 256 for i in range(16)]])

    def gen():
        torch.manual_seed(5)
        with torch.no_grad():
            out = m.generate(prompt, attention_mask=torch.ones_like(prompt),
                             max_new_tokens=256, min_new_tokens=256,
                             do_sample=True, temperature=0.8, top_k=40,
                             top_p=0.9, pad_token_id=0)
        assert out.shape[1] == 16 + 256

    ms = median_ms(gen, args.warmup, args.runs)
    print("llama_decode  torch  %.1f ms  tok/s=%.1f" % (ms, 256 / ms * 1e3))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--compile", action="store_true",
                   help="the train step's forward under torch.compile")
    p.add_argument("--rows", default="train,decode")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    print("torch", torch.__version__, "transformers", transformers.__version__,
          "threads", args.threads)
    rows = args.rows.split(",")
    if "train" in rows:
        train_step(args)
    if "decode" in rows and not args.compile:
        decode(args)


if __name__ == "__main__":
    main()
