"""Convolution and pooling from Python: kiln.conv1d/conv2d, max_pool2d,
avg_pool2d and the nn modules, against direct sums in NumPy."""

import numpy as np
import pytest

import kiln


def conv2d_ref(x, w, b=None, stride=(1, 1), padding=(0, 0),
               dilation=(1, 1), groups=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64),
                ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(kh):
            for j in range(kw):
                win = xp[:, g * cg:(g + 1) * cg,
                         i * dilation[0]:i * dilation[0] + stride[0] * oh:stride[0],
                         j * dilation[1]:j * dilation[1] + stride[1] * ow:stride[1]]
                y[:, oc] += np.einsum("nchw,c->nhw", win, w[oc, :, i, j])
    if b is not None:
        y += b[None, :, None, None]
    return y


def rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("device", ["cpu", "flex"])
@pytest.mark.parametrize("stride,padding,dilation,groups", [
    (1, 1, 1, 1), ((2, 1), (0, 2), 1, 1), (1, 2, 2, 1), (1, 1, 1, 2)])
def test_conv2d_matches_direct_sums(device, stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x, w, b = rand(rng, 2, 4, 9, 11), rand(rng, 6, 4 // groups, 3, 3), rand(rng, 6)
    dev = getattr(kiln, device)()
    y = kiln.conv2d(kiln.asarray(x, device=dev), kiln.asarray(w, device=dev),
                    kiln.asarray(b, device=dev), stride=stride,
                    padding=padding, dilation=dilation, groups=groups)
    pair = lambda v: (v, v) if isinstance(v, int) else v  # noqa: E731
    want = conv2d_ref(x, w, b, pair(stride), pair(padding), pair(dilation),
                      groups)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-4)


def test_conv1d_is_a_conv2d_of_one_row():
    rng = np.random.default_rng(1)
    x, w = rand(rng, 3, 4, 20), rand(rng, 5, 4, 3)
    y = kiln.conv1d(kiln.asarray(x), kiln.asarray(w), stride=2, padding=1)
    want = conv2d_ref(x[:, :, None], w[:, :, None], None, (1, 2), (0, 1))
    np.testing.assert_allclose(y.numpy(), want[:, :, 0], rtol=1e-4, atol=1e-4)


def test_pooling_matches_numpy():
    rng = np.random.default_rng(2)
    x = rand(rng, 2, 3, 8, 8)
    t = kiln.asarray(x)
    want_max = x.reshape(2, 3, 4, 2, 4, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(kiln.max_pool2d(t, 2).numpy(), want_max)
    want_avg = x.reshape(2, 3, 4, 2, 4, 2).mean(axis=(3, 5))
    np.testing.assert_allclose(kiln.avg_pool2d(t, (2, 2)).numpy(), want_avg,
                               rtol=1e-6, atol=1e-6)
    # Padding 1 with a 3 x 3 window that steps by 2; without the padding in
    # the divisor, a corner averages its 4 inputs.
    y = kiln.avg_pool2d(t, 3, stride=2, padding=1, count_include_pad=False)
    np.testing.assert_allclose(y.numpy()[:, :, 0, 0],
                               x[:, :, :2, :2].mean(axis=(2, 3)), rtol=1e-6)


def test_bad_arguments_say_what_is_wrong():
    x = kiln.zeros((1, 3, 8, 8))
    w = kiln.zeros((4, 3, 3, 3))
    with pytest.raises(kiln.Error, match="stride needs 2 ints"):
        kiln.conv2d(x, w, stride=(1, 1, 1))
    with pytest.raises(kiln.Error, match="padding must be >= 0"):
        kiln.conv2d(x, w, padding=-1)
    with pytest.raises(kiln.Error, match="weight must have rank 4"):
        kiln.conv2d(x, kiln.zeros((4, 3, 3)))
    with pytest.raises(kiln.Error, match="input channels"):
        kiln.conv2d(kiln.zeros((1, 5, 8, 8)), w)
    with pytest.raises(kiln.Error, match="kernel_size must be an int or 2 ints"):
        kiln.max_pool2d(x, "2")


def test_a_small_cnn_learns():
    class Net(kiln.nn.Module):
        def __init__(self):
            self.conv1 = kiln.nn.Conv2d(1, 8, 3, padding=1, seed=1)
            self.conv2 = kiln.nn.Conv2d(8, 16, 3, padding=1, seed=2)
            self.pool = kiln.nn.MaxPool2d(2)
            self.fc = kiln.nn.Linear(16 * 2 * 2, 4, seed=3)

        def forward(self, x):
            x = self.pool(kiln.relu(self.conv1(x)))
            x = self.pool(kiln.relu(self.conv2(x)))
            return self.fc(kiln.reshape(x, (x.shape[0], -1)))

    net = Net()
    params = net.named_parameters()
    assert sorted(params) == ["conv1.bias", "conv1.weight", "conv2.bias",
                              "conv2.weight", "fc.bias", "fc.weight"]
    assert params["conv2.weight"].shape == (16, 8, 3, 3)
    rng = np.random.default_rng(3)
    # Four classes of 8 x 8 images: a bright quadrant each, plus noise.
    labels = rng.integers(0, 4, 32)
    images = rng.standard_normal((32, 1, 8, 8)).astype(np.float32) * 0.3
    for k, lab in enumerate(labels):
        r, c = divmod(int(lab), 2)
        images[k, 0, 4 * r:4 * r + 4, 4 * c:4 * c + 4] += 1.0
    x, t = kiln.asarray(images), kiln.asarray(labels.astype(np.int64))
    opt = kiln.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    first = None
    for _ in range(15):
        loss = kiln.nn.cross_entropy(net(x), t)
        opt.step(kiln.backward(loss))
        first = first if first is not None else loss.item()
    assert loss.item() < 0.5 * first, (first, loss.item())
