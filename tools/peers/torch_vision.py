"""PyTorch eager on tensor-bench's vision rows, for same-sitting ratios.

Not part of the test command: it needs torch and torchvision from PyPI.
Run it right after tensor-bench on the same host and thread count:

    python3 tools/peers/torch_vision.py --threads 1 --runs 5

Rows (see tools/tensor-bench/Vision.cpp for Kiln's definitions):
  conv2d 3x3 64>64 forward/grad_input/grad_weight on 8x64x56x56, and the
  1x1, depthwise and strided rows; resnet18_infer (eval, batch 1,
  3x224x224); resnet_train_step (ResNet-18 with a 3x3 stem and no max pool,
  batch 32 of 3x32x32, 10 classes, batch norm training, SGD momentum 0.9,
  weight decay 5e-4).
"""

import argparse

import torch
import torch.nn.functional as F
import torchvision
from timing import median_ms


CONVS = [  # name, n, c, h, o, k, stride, pad, groups
    ("3x3 64>64", 8, 64, 56, 64, 3, 1, 1, 1),
    ("1x1 256>64", 8, 256, 56, 64, 1, 1, 0, 1),
    ("dw3x3 32", 8, 32, 112, 32, 3, 1, 1, 32),
    ("3x3s2 128>256", 8, 128, 28, 256, 3, 2, 1, 1),
]


def conv_rows(warmup, runs):
    for name, n, c, h, o, k, s, p, g in CONVS:
        x = torch.rand(n, c, h, h) * 2 - 1
        w = torch.rand(o, c // g, k, k) * 2 - 1
        y = F.conv2d(x, w, stride=s, padding=p, groups=g)
        gy = torch.rand_like(y)
        oh = y.shape[2]
        flops = 2.0 * n * o * oh * oh * (c // g) * k * k

        def fwd():
            F.conv2d(x, w, stride=s, padding=p, groups=g)

        def grad(which):
            xi = x.clone().requires_grad_(which == "input")
            wi = w.clone().requires_grad_(which == "weight")

            def run():
                out = F.conv2d(xi, wi, stride=s, padding=p, groups=g)
                torch.autograd.grad(out, xi if which == "input" else wi, gy)
            return run

        # A gradient row times its forward too, as Kiln's does.
        for op, fn in (("forward", fwd), ("grad_input", grad("input")),
                       ("grad_weight", grad("weight"))):
            ms = median_ms(fn, warmup, runs)
            print("conv2d %-14s %-11s torch-eager %9.3f ms  %6.1f GFLOP/s"
                  % (name, op, ms, flops / ms / 1e6))


def resnet18_small(classes):
    m = torchvision.models.resnet18(num_classes=classes)
    m.conv1 = torch.nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    m.maxpool = torch.nn.Identity()
    return m


def resnet_rows(warmup, runs):
    m = torchvision.models.resnet18(num_classes=1000).eval()
    x = torch.rand(1, 3, 224, 224) * 2 - 1
    with torch.no_grad():
        ms = median_ms(lambda: m(x), warmup, runs)
    print("resnet18_infer      torch-eager %9.3f ms  %6.1f images/s"
          % (ms, 1e3 / ms))
    net = resnet18_small(10).train()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9,
                          weight_decay=5e-4)
    xb = torch.rand(32, 3, 32, 32) * 2 - 1
    yb = torch.arange(32) * 7 % 10

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
    ms = median_ms(step, warmup, runs)
    print("resnet_train_step   torch-eager %9.3f ms  %6.1f images/s"
          % (ms, 32e3 / ms))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--rows", default="conv2d,resnet")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    print("# torch %s, %d thread(s)" % (torch.__version__, a.threads))
    rows = a.rows.split(",")
    if "conv2d" in rows:
        conv_rows(a.warmup, a.runs)
    if "resnet" in rows:
        resnet_rows(a.warmup, a.runs)


if __name__ == "__main__":
    main()
