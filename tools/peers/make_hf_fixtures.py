#!/usr/bin/env python3
"""Makes the tiny Hugging Face checkpoints that unittests/API/Inputs/hf holds
(run once, outside CI; needs torch and transformers):

  llama-gqa    Llama, 4 query and 2 key/value heads, f32, one file
  llama-tied   Llama, tied embeddings, bf16, in shards with an index
  gpt2         GPT-2, f16

Each directory gets config.json and the weights as save_pretrained writes
them, then ids.npy (int64 [2, 9]) with transformers' logits.npy for it,
and prompt.npy (int64 [6]) with greedy.npy, transformers' greedy
continuation of 20 tokens. The references are computed in f32 from the
weights as stored (bf16 and f16 weights read back as f32).

usage: make_hf_fixtures.py [OUT_DIR]
"""

import os
import sys

import numpy as np
import torch
import transformers


def save(model, out, dtype, shard=None):
    model = model.to(dtype)
    kwargs = {"safe_serialization": True}
    if shard:
        kwargs["max_shard_size"] = shard
    model.save_pretrained(out, **kwargs)


def references(cls, out):
    model = cls.from_pretrained(out, torch_dtype=torch.float32).eval()
    rng = np.random.default_rng(0)
    vocab = model.config.vocab_size
    ids = rng.integers(0, vocab, (2, 9), dtype=np.int64)
    prompt = rng.integers(0, vocab, (6,), dtype=np.int64)
    with torch.no_grad():
        logits = model(torch.from_numpy(ids)).logits.numpy()
        greedy = model.generate(torch.from_numpy(prompt)[None],
                                attention_mask=torch.ones(1, 6, dtype=torch.long),
                                max_new_tokens=20, do_sample=False,
                                pad_token_id=0)[0, 6:].numpy()
    np.save(os.path.join(out, "ids.npy"), ids)
    np.save(os.path.join(out, "logits.npy"), logits.astype(np.float32))
    np.save(os.path.join(out, "prompt.npy"), prompt)
    np.save(os.path.join(out, "greedy.npy"), greedy.astype(np.int64))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "unittests", "API", "Inputs",
        "hf")
    torch.manual_seed(0)
    common = dict(vocab_size=96, hidden_size=32, intermediate_size=48,
                  num_hidden_layers=2, num_attention_heads=4,
                  max_position_embeddings=64, rms_norm_eps=1e-6,
                  initializer_range=0.25, bos_token_id=None,
                  eos_token_id=None)
    llama = [
        ("llama-gqa", dict(num_key_value_heads=2, rope_theta=10000.0,
                           tie_word_embeddings=False), torch.float32, None),
        ("llama-tied", dict(num_key_value_heads=4, rope_theta=500.0,
                            tie_word_embeddings=True), torch.bfloat16,
         "20KB"),
    ]
    for name, extra, dtype, shard in llama:
        out = os.path.join(root, name)
        config = transformers.LlamaConfig(**common, **extra)
        model = transformers.LlamaForCausalLM(config).eval()
        save(model, out, dtype, shard)
        references(transformers.LlamaForCausalLM, out)
    out = os.path.join(root, "gpt2")
    config = transformers.GPT2Config(vocab_size=96, n_positions=64, n_embd=32,
                                     n_layer=2, n_head=4,
                                     initializer_range=0.25,
                                     bos_token_id=None, eos_token_id=None)
    model = transformers.GPT2LMHeadModel(config).eval()
    save(model, out, torch.float16)
    references(transformers.GPT2LMHeadModel, out)


if __name__ == "__main__":
    main()
