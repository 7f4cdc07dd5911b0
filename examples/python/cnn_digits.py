"""A small CNN on scikit-learn's 8x8 handwritten digits, with kiln.nn.

Three 3x3 convolutions with batch norm, a max pool, global average pooling
and a linear classifier, trained with SGD (Nesterov momentum) on four
fifths of the 1,797 digits; prints the held-out accuracy. The C++ version
is examples/cnn/main.cpp (it reads a copy of the same data).

    pip install scikit-learn
    python3 examples/python/cnn_digits.py [--epochs 12] [--width 16]
"""

import argparse
import time

import numpy as np
from sklearn.datasets import load_digits

import kiln


class Net(kiln.nn.Module):
    def __init__(self, w):
        conv = lambda i, o, s: kiln.nn.Conv2d(i, o, 3, padding=1,  # noqa
                                              bias=False, seed=s)
        self.c1, self.b1 = conv(1, w, 1), kiln.nn.BatchNorm2d(w)
        self.c2, self.b2 = conv(w, 2 * w, 2), kiln.nn.BatchNorm2d(2 * w)
        self.c3, self.b3 = conv(2 * w, 4 * w, 3), kiln.nn.BatchNorm2d(4 * w)
        self.pool = kiln.nn.MaxPool2d(2)
        self.gap = kiln.nn.AdaptiveAvgPool2d(1)
        self.fc = kiln.nn.Linear(4 * w, 10, seed=4)
        self.width = w

    def forward(self, x):
        h = kiln.relu(self.b1(self.c1(x)))
        h = self.pool(kiln.relu(self.b2(self.c2(h))))
        h = kiln.relu(self.b3(self.c3(h)))
        return self.fc(kiln.reshape(self.gap(h), (-1, 4 * self.width)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    a = ap.parse_args()
    t0 = time.time()
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(7).permutation(len(labels))
    test = len(labels) // 5
    train_idx, test_idx = order[:-test], order[-test:]
    net = Net(a.width)
    opt = kiln.optim.SGD(net.parameters(), lr=a.lr, momentum=0.9,
                         weight_decay=1e-4, nesterov=True)
    steps = len(train_idx) // a.batch  # whole batches: one graph shape
    for epoch in range(a.epochs):
        np.random.default_rng(100 + epoch).shuffle(train_idx)
        for s in range(steps):
            idx = train_idx[s * a.batch:(s + 1) * a.batch]
            loss = kiln.nn.cross_entropy(net(kiln.asarray(images[idx])),
                                         kiln.asarray(labels[idx]))
            opt.step(kiln.backward(loss))
            kiln.default_device().sync()
        print("epoch %d: loss %.4f" % (epoch + 1, loss.item()))
    net.eval()
    with kiln.no_grad():
        logits = net(kiln.asarray(images[test_idx])).numpy()
    accuracy = float((logits.argmax(axis=1) == labels[test_idx]).mean())
    print("held-out accuracy %.4f in %.1f s" % (accuracy, time.time() - t0))


if __name__ == "__main__":
    main()
