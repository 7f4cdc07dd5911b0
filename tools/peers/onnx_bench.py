#!/usr/bin/env python3
"""The onnx_resnet18 and onnx_gpt2 rows against onnxruntime, in one sitting
(outside CI; needs torch, torchvision, transformers, onnx, onnxscript and
onnxruntime):

  1. exports, once, into DIR: torchvision's ResNet-18 (batch 1, 3x224x224)
     and transformers' GPT-2 small (one 128-token input, logits out), with
     torch.onnx.export's default (dynamo) exporter and random weights,
     each with its input and onnxruntime's output as .npy;
  2. times onnxruntime (CPUExecutionProvider) at each thread count;
  3. with --tensor-bench, runs Kiln's rows on the same files right after.

usage: onnx_bench.py DIR [--threads 1,2] [--runs N] [--tensor-bench PATH]
"""

import argparse
import os
import subprocess
import time

import numpy as np


def export(out):
    import onnx
    import onnxruntime as ort
    import torch
    import torchvision
    import transformers

    class Logits(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, ids):
            return self.model(input_ids=ids, use_cache=False).logits

    torch.manual_seed(0)
    os.makedirs(out, exist_ok=True)
    cases = [
        ("resnet18", torchvision.models.resnet18().eval(),
         torch.randn(1, 3, 224, 224)),
        ("gpt2", Logits(transformers.GPT2LMHeadModel(transformers.GPT2Config(
            attn_implementation="eager")).eval()),
         torch.randint(0, 50257, (1, 128))),
    ]
    for name, model, x in cases:
        path = os.path.join(out, name + ".onnx")
        if os.path.exists(path):
            continue
        with torch.no_grad():
            torch.onnx.export(model, (x,), dynamo=True).save(path)
        onnx.save(onnx.load(path), path)  # weights inline
        data = path + ".data"
        if os.path.exists(data):
            os.remove(data)
        np.save(os.path.join(out, name + ".input.npy"), x.numpy())
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        y = s.run(None, {s.get_inputs()[0].name: x.numpy()})[0]
        np.save(os.path.join(out, name + ".output.npy"), y)


def time_ort(out, threads, runs):
    import onnxruntime as ort
    print("onnxruntime", ort.__version__)
    for name in ("resnet18", "gpt2"):
        x = np.load(os.path.join(out, name + ".input.npy"))
        for t in threads:
            o = ort.SessionOptions()
            o.intra_op_num_threads = t
            o.inter_op_num_threads = 1
            s = ort.InferenceSession(os.path.join(out, name + ".onnx"), o,
                                     providers=["CPUExecutionProvider"])
            feed = {s.get_inputs()[0].name: x}
            s.run(None, feed)
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                s.run(None, feed)
                times.append((time.perf_counter() - t0) * 1e3)
            times.sort()
            print("onnx_%-12s onnxruntime thr %d  median %.3f ms  min %.3f"
                  % (name, t, times[len(times) // 2], times[0]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--tensor-bench")
    a = p.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    export(a.dir)
    time_ort(a.dir, threads, a.runs)
    if a.tensor_bench:
        subprocess.run([a.tensor_bench, "--workloads", "onnx_resnet18,onnx_gpt2",
                        "--backends", "cpu", "--threads", a.threads,
                        "--runs", str(a.runs), "--onnx-dir", a.dir],
                       check=True)


if __name__ == "__main__":
    main()
