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


def adaptive_ref(x, oh, ow, reduce):
    n, c, h, w = x.shape
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        h0, h1 = i * h // oh, -(-(i + 1) * h // oh)
        for j in range(ow):
            w0, w1 = j * w // ow, -(-(j + 1) * w // ow)
            y[:, :, i, j] = reduce(x[:, :, h0:h1, w0:w1], axis=(2, 3))
    return y


@pytest.mark.parametrize("size", [1, (3, 2), (2, 4), (7, 9)])
def test_adaptive_pooling_matches_numpy(size):
    rng = np.random.default_rng(4)
    x = rand(rng, 2, 3, 5, 7)
    oh, ow = (size, size) if isinstance(size, int) else size
    t = kiln.asarray(x)
    np.testing.assert_allclose(kiln.adaptive_avg_pool2d(t, size).numpy(),
                               adaptive_ref(x, oh, ow, np.mean),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(
        kiln.nn.AdaptiveMaxPool2d(size)(t).numpy(),
        adaptive_ref(x, oh, ow, np.max))
    with pytest.raises(kiln.Error, match="output_size must be >= 1"):
        kiln.adaptive_avg_pool2d(t, 0)


def test_batch_norm_trains_with_batch_statistics_and_evaluates_with_running_ones():
    rng = np.random.default_rng(5)
    x = rand(rng, 4, 3, 5, 5) * 2 + 1
    w, b = rand(rng, 3), rand(rng, 3)
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    count = 4 * 25
    rm, rv = kiln.zeros((3,)), kiln.ones((3,))
    y = kiln.batch_norm(kiln.asarray(x), rm, rv, kiln.asarray(w),
                        kiln.asarray(b), training=True, momentum=0.25)
    want = ((x - mean[None, :, None, None])
            / np.sqrt(var[None, :, None, None] + 1e-5)
            * w[None, :, None, None] + b[None, :, None, None])
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-4)
    # The running statistics were updated in place (unbiased variance).
    np.testing.assert_allclose(rm.numpy(), 0.25 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.numpy(),
                               0.75 + 0.25 * var * count / (count - 1),
                               rtol=1e-5)
    e = kiln.batch_norm(kiln.asarray(x), rm, rv)
    np.testing.assert_allclose(
        e.numpy(), (x - rm.numpy()[None, :, None, None])
        / np.sqrt(rv.numpy()[None, :, None, None] + 1e-5), rtol=1e-4,
        atol=1e-4)
    with pytest.raises(kiln.Error, match="needs running_mean and running_var"):
        kiln.batch_norm(kiln.asarray(x), None, None)


def test_group_and_instance_norm_match_numpy():
    rng = np.random.default_rng(6)
    x = rand(rng, 2, 6, 3, 4)
    w = rand(rng, 6)
    g = x.reshape(2, 3, -1)
    want = ((g - g.mean(axis=2, keepdims=True))
            / np.sqrt(g.var(axis=2, keepdims=True) + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(
        kiln.group_norm(kiln.asarray(x), 3, kiln.asarray(w)).numpy(),
        want * w[None, :, None, None], rtol=1e-4, atol=1e-4)
    i = x.reshape(2, 6, -1)
    want = ((i - i.mean(axis=2, keepdims=True))
            / np.sqrt(i.var(axis=2, keepdims=True) + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(kiln.instance_norm(kiln.asarray(x)).numpy(),
                               want, rtol=1e-4, atol=1e-4)
    with pytest.raises(kiln.Error, match="groups 4 does not divide the 6"):
        kiln.group_norm(kiln.asarray(x), 4)
    gn = kiln.nn.GroupNorm(3, 6)
    np.testing.assert_allclose(gn(kiln.asarray(x)).numpy(),
                               kiln.group_norm(kiln.asarray(x), 3).numpy(),
                               rtol=1e-6)


def test_batch_norm_modules_save_their_running_statistics(tmp_path):
    class Net(kiln.nn.Module):
        def __init__(self, seed):
            self.conv = kiln.nn.Conv2d(2, 4, 3, padding=1, bias=False,
                                       seed=seed)
            self.bn = kiln.nn.BatchNorm2d(4)

        def forward(self, x):
            return self.bn(self.conv(x))

    rng = np.random.default_rng(7)
    x = kiln.asarray(rand(rng, 3, 2, 6, 6))
    net = Net(1)
    assert sorted(net.named_state()) == [
        "bn.bias", "bn.running_mean", "bn.running_var", "bn.weight",
        "conv.weight"]
    assert sorted(net.named_parameters()) == ["bn.bias", "bn.weight",
                                              "conv.weight"]
    net(x)
    assert not np.allclose(net.bn.running_mean.numpy(), 0)
    net.eval()
    assert not net.training and not net.bn.training
    want = net(x).numpy()
    net.save_weights(str(tmp_path / "net.safetensors"))
    other = Net(2).eval()
    other.load_weights(str(tmp_path / "net.safetensors"))
    np.testing.assert_allclose(other(x).numpy(), want, rtol=1e-5, atol=1e-6)


def test_resnet18_trains_and_its_loss_falls():
    m = kiln.nn.ResNet18(num_classes=10)
    names = m.named_parameters()
    assert names["conv1.weight"].shape == (64, 3, 7, 7)
    assert names["layer4.1.conv2.weight"].shape == (512, 512, 3, 3)
    assert "layer2.0.downsample.1.running_var" in m.named_state()
    # A few SGD steps on 8 images of 3 classes (a bright third each) with
    # the small-input stem; batch norm in training mode.
    net = kiln.nn.ResNet18(num_classes=3, small_inputs=True, seed=1)
    rng = np.random.default_rng(8)
    labels = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    images = rng.standard_normal((8, 3, 12, 12)).astype(np.float32) * 0.3
    for k, lab in enumerate(labels):
        images[k, :, 4 * lab:4 * lab + 4] += 1.0
    x, t = kiln.asarray(images), kiln.asarray(labels.astype(np.int64))
    opt = kiln.optim.SGD(net.parameters(), lr=0.05, momentum=0.9,
                         weight_decay=5e-4, nesterov=True)
    losses = []
    for _ in range(5):
        loss = kiln.nn.cross_entropy(net(x), t)
        opt.step(kiln.backward(loss))
        losses.append(loss.item())
    assert losses[-1] < losses[0], losses
    net.eval()
    assert net(x).shape == (8, 3)


def conv_transpose2d_ref(x, w, b, stride, padding, output_padding, groups,
                         dilation):
    n, cin, h, wd = x.shape
    _, og, kh, kw = w.shape
    oh = (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) \
        + output_padding[0] + 1
    ow = (wd - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) \
        + output_padding[1] + 1
    full = np.zeros((n, og * groups, oh + 2 * padding[0] + kh * dilation[0],
                     ow + 2 * padding[1] + kw * dilation[1]))
    ig = cin // groups
    for c in range(cin):
        g = c // ig
        for i in range(kh):
            for j in range(kw):
                full[:, g * og:(g + 1) * og,
                     i * dilation[0]:i * dilation[0] + stride[0] * h:stride[0],
                     j * dilation[1]:j * dilation[1] + stride[1] * wd:stride[1]] += \
                    np.einsum("nhw,o->nohw", x[:, c], w[c, :, i, j])
    y = full[:, :, padding[0]:padding[0] + oh, padding[1]:padding[1] + ow]
    return y if b is None else y + b[None, :, None, None]


@pytest.mark.parametrize("stride,padding,output_padding,groups,dilation", [
    (1, 0, 0, 1, 1), (2, 1, 1, 1, 1), ((2, 1), (0, 1), (1, 0), 2, (1, 2))])
def test_conv_transpose2d_matches_numpy(stride, padding, output_padding,
                                        groups, dilation):
    rng = np.random.default_rng(9)
    x, w, b = rand(rng, 2, 4, 5, 6), rand(rng, 4, 3, 3, 3), rand(rng, 3 * groups)
    pair = lambda v: (v, v) if isinstance(v, int) else v  # noqa: E731
    y = kiln.conv_transpose2d(kiln.asarray(x), kiln.asarray(w),
                              kiln.asarray(b), stride, padding,
                              output_padding, groups, dilation)
    want = conv_transpose2d_ref(x, w, b, pair(stride), pair(padding),
                                pair(output_padding), groups, pair(dilation))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-4)


def test_conv_transpose_modules_and_errors():
    up = kiln.nn.ConvTranspose2d(4, 2, 2, stride=2, seed=3)
    assert up.weight.shape == (4, 2, 2, 2)
    assert up(kiln.zeros((1, 4, 3, 3))).shape == (1, 2, 6, 6)
    one = kiln.nn.ConvTranspose1d(3, 6, 3, stride=2, output_padding=1,
                                  groups=3, bias=False)
    assert sorted(one.named_parameters()) == ["weight"]
    assert one(kiln.zeros((2, 3, 5))).shape == (2, 6, 12)
    with pytest.raises(kiln.Error, match="output_padding .* must be smaller"):
        kiln.conv_transpose2d(kiln.zeros((1, 4, 3, 3)),
                              kiln.zeros((4, 2, 2, 2)), output_padding=1)


def test_pooling_options_match_their_definition():
    rng = np.random.default_rng(10)
    x = rng.permutation(2 * 3 * 7 * 8).reshape(2, 3, 7, 8).astype(np.float32)
    t = kiln.asarray(x)
    # Ceil mode keeps a last partial window of 2 x 2 windows stepping by 2
    # over 7 x 8: 4 x 4 outputs, the last row of windows one row high.
    values, where = kiln.max_pool2d(t, 2, ceil_mode=True,
                                    return_indices=True)
    assert values.shape == (2, 3, 4, 4)
    padded = np.full((2, 3, 8, 8), -np.inf, np.float32)
    padded[:, :, :7] = x
    want = padded.reshape(2, 3, 4, 2, 4, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(values.numpy(), want)
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, where.numpy().reshape(2, 3, -1), 2),
        want.reshape(2, 3, -1))
    # Dilation 2: a 2 x 2 window reads rows r and r + 2.
    d = kiln.nn.MaxPool2d(2, stride=1, dilation=2)(t).numpy()
    np.testing.assert_array_equal(
        d, np.maximum(np.maximum(x[:, :, :-2, :-2], x[:, :, :-2, 2:]),
                      np.maximum(x[:, :, 2:, :-2], x[:, :, 2:, 2:])))
    # 1-D, and average pooling whose last ceil-mode window holds one
    # element of the input.
    line = kiln.asarray(x[:, :, 0])
    np.testing.assert_array_equal(kiln.max_pool1d(line, 3, 3).numpy(),
                                  x[:, :, 0, :6].reshape(2, 3, 2, 3).max(3))
    avg = kiln.nn.AvgPool1d(3, ceil_mode=True)(line).numpy()
    np.testing.assert_allclose(avg[:, :, 2], x[:, :, 0, 6:].mean(axis=2),
                               rtol=1e-6)
    with pytest.raises(kiln.Error, match="padding .* exceeds half"):
        kiln.max_pool2d(t, 2, padding=2)


def resize_ref(x, oh, ow, linear, align):
    h, w = x.shape[-2:]

    def source(o, size_in, size_out):
        if align:
            return o * (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
        scale = size_in / size_out
        return max(0.0, (o + 0.5) * scale - 0.5) if linear else o * scale

    y = np.zeros(x.shape[:-2] + (oh, ow))
    for a in range(oh):
        for b in range(ow):
            r, c = source(a, h, oh), source(b, w, ow)
            if not linear:
                y[..., a, b] = x[..., min(int(r), h - 1), min(int(c), w - 1)]
                continue
            i0, j0 = min(int(r), h - 1), min(int(c), w - 1)
            i1, j1 = min(i0 + 1, h - 1), min(j0 + 1, w - 1)
            tr, tc = r - i0, c - j0
            y[..., a, b] = ((1 - tr) * ((1 - tc) * x[..., i0, j0]
                                        + tc * x[..., i0, j1])
                            + tr * ((1 - tc) * x[..., i1, j0]
                                    + tc * x[..., i1, j1]))
    return y


@pytest.mark.parametrize("size,mode,align", [
    ((8, 10), "nearest", None), ((3, 7), "bilinear", False),
    ((9, 4), "bilinear", True)])
def test_interpolate_matches_its_definition(size, mode, align):
    rng = np.random.default_rng(11)
    x = rand(rng, 2, 3, 4, 5)
    y = kiln.interpolate(kiln.asarray(x), size=size, mode=mode,
                         align_corners=align)
    np.testing.assert_allclose(
        y.numpy(), resize_ref(x, *size, mode == "bilinear", bool(align)),
        rtol=1e-5, atol=1e-5)


def test_upsample_by_scale_and_errors():
    x = kiln.asarray(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))
    up = kiln.nn.Upsample(scale_factor=2)(x).numpy()
    np.testing.assert_array_equal(up[0, 0], np.repeat(np.repeat(
        np.arange(12).reshape(3, 4), 2, 0), 2, 1))
    with pytest.raises(kiln.Error, match="give either a size or a scale"):
        kiln.interpolate(x)
    with pytest.raises(kiln.Error, match="align_corners needs mode linear"):
        kiln.interpolate(x, size=4, align_corners=True)


def test_dropout_module_draws_a_new_mask_each_call_without_recompiling():
    dev = kiln.cpu()
    x = kiln.ones((4, 64), device=dev)
    drop = kiln.nn.Dropout(0.5, seed=3)
    first = np.asarray(drop(x))
    # Call k's mask is that of seed 3 + k.
    np.testing.assert_array_equal(first, np.asarray(kiln.dropout(x, 0.5, 3)))
    before = kiln.compile_count(dev)
    second = np.asarray(drop(x))
    assert kiln.compile_count(dev) == before
    np.testing.assert_array_equal(second, np.asarray(kiln.dropout(x, 0.5, 4)))
    assert not np.array_equal(first, second)
    assert set(np.unique(second)) <= {0.0, 2.0}
    drop.eval()
    np.testing.assert_array_equal(np.asarray(drop(x)), np.ones((4, 64)))
    with pytest.raises(kiln.Error, match=r"Dropout: p must be in \[0, 1\), got 1"):
        kiln.nn.Dropout(1.0)
    with pytest.raises(kiln.Error, match="dropout: the offset must be a rank-0 i64"):
        kiln.dropout(x, 0.5, 3, kiln.asarray([1, 2], device=dev))
