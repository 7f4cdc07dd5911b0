"""kiln.nn, kiln.optim and the Python demo."""

import os
import pathlib
import subprocess
import sys
import threading

import numpy as np
import pytest

import kiln

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "python" / "char_gpt.py"
SMALL = ["--layers", "2", "--heads", "4", "--dim", "64", "--context", "64",
         "--batch", "16", "--lr", "3e-3", "--sample", "0"]


def losses(output):
    return [float(line.split("loss")[1].split()[0])
            for line in output.splitlines() if line.startswith("step")]


def run(cmd):
    env = dict(os.environ)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_the_python_demo_matches_the_cpp_demo_step_for_step():
    exe = os.environ.get("KILN_CHAR_LM")
    assert exe and os.path.exists(exe), "ctest sets KILN_CHAR_LM"
    args = SMALL + ["--steps", "5"]
    cpp = losses(run([exe] + args))
    py = losses(run([sys.executable, str(DEMO)] + args))
    assert len(cpp) == len(py) == 5
    np.testing.assert_allclose(py, cpp, rtol=0, atol=1e-4)


def test_the_python_demo_learns():
    out = run([sys.executable, str(DEMO), "--steps", "150", "--quiet"] + SMALL)
    line = [s for s in out.splitlines() if s.startswith("eval loss") and
            "->" in s][0]
    first, last = float(line.split()[2]), float(line.split()[4])
    assert last < 0.6 * first, line


class MLP(kiln.nn.Module):
    def __init__(self, device, seed):
        self.layers = [kiln.nn.Linear(8, 16, device=device, seed=seed),
                       kiln.nn.Linear(16, 1, device=device, seed=seed + 1)]
        self.scale = kiln.ones((1,), device=device)

    def forward(self, x):
        return self.layers[1](kiln.relu(self.layers[0](x))) * self.scale


def test_a_python_module_trains_saves_and_loads(tmp_path):
    dev = kiln.autodiff(kiln.cpu(), "balanced")
    m = MLP(dev, 3)
    names = list(m.named_parameters())
    assert names == ["layers.0.weight", "layers.0.bias", "layers.1.weight",
                     "layers.1.bias", "scale"]
    rng = np.random.default_rng(0)
    x = kiln.asarray(rng.standard_normal((32, 8)).astype(np.float32))
    target = kiln.asarray(rng.standard_normal((32, 1)).astype(np.float32))
    opt = kiln.optim.Adam(m, lr=1e-2)
    first = None
    for _ in range(40):
        loss = kiln.nn.mse_loss(m(x), target)
        opt.step(kiln.backward(loss))
        kiln.eval(loss, m.parameters())
        first = first if first is not None else loss.item()
    assert loss.item() < 0.7 * first
    path = str(tmp_path / "mlp.safetensors")
    m.save_weights(path)
    saved = {k: v.numpy().copy() for k, v in m.named_parameters().items()}
    other = MLP(dev, 9)
    other.load_weights(path)
    for k, v in other.named_parameters().items():
        np.testing.assert_array_equal(v.numpy(), saved[k])  # bit-exact

    # A file that does not fit loses nothing.
    small = kiln.nn.Linear(8, 4, device=dev)
    before = small.weight.numpy().copy()
    with pytest.raises(kiln.Error, match="weight"):
        small.load_weights(path)
    np.testing.assert_array_equal(small.weight.numpy(), before)


def test_cpp_modules_expose_their_parameters_in_place():
    dev = kiln.autodiff(kiln.cpu(), "disabled")
    lin = kiln.nn.Linear(4, 3, device=dev, seed=1)
    w = lin.weight
    before = w.numpy().copy()
    opt = kiln.optim.SGD(lin, lr=0.5)
    x = kiln.ones((2, 4))
    grads = kiln.backward(kiln.sum(lin(x)))
    g = grads.get(w).numpy()
    opt.step(grads)
    # The tensor held from before the step sees the update.
    np.testing.assert_allclose(w.numpy(), before - 0.5 * g, rtol=1e-6)
    assert sorted(lin.named_parameters()) == ["bias", "weight"]


def test_gpt_gradients_and_clipping():
    dev = kiln.autodiff(kiln.cpu(), "balanced")
    gpt = kiln.nn.GPT(layers=1, heads=2, dim=32, context=16, device=dev,
                      seed=1)
    tokens = kiln.asarray(np.arange(32).reshape(2, 16) % 256)
    targets = kiln.asarray((np.arange(32).reshape(2, 16) + 1) % 256)
    grads = kiln.backward(gpt.loss(tokens, targets))
    params = gpt.named_parameters()
    assert "blocks.0.attn.qkv.weight" in params
    assert all(grads.has(p) for p in params.values())
    clipped = kiln.optim.clip_grad_norm(grads, 0.01)
    total = np.sqrt(sum(float((clipped.get(p).numpy().astype(np.float64) ** 2)
                              .sum()) for p in params.values()))
    assert total <= 0.01 * (1 + 1e-4)
    out = gpt.generate([1, 2, 3], 5, temperature=0.0)
    assert out[:3] == [1, 2, 3] and len(out) == 8
    with pytest.raises(kiln.Error, match="checkpointing"):
        kiln.autodiff(kiln.cpu(), "sometimes")


def test_the_gil_is_released_while_a_graph_compiles_and_runs():
    # Materializations run through the same call as _released_read, which
    # blocks on a pipe until this thread writes to it: a write that needs
    # the GIL while the other thread is inside the call. (Were the GIL
    # held, the write would never run and the test would hang.)
    r, w = os.pipe()
    t = threading.Thread(target=kiln._kiln._released_read, args=(r,))
    t.start()
    os.write(w, b"x")
    t.join()
    os.close(r)
    os.close(w)
    # A graph evaluated on another thread gives the same values.
    x = kiln.asarray(np.random.default_rng(1).standard_normal((64, 64))
                     .astype(np.float32))
    y = kiln.softmax(kiln.tanh(x @ x.T * 0.37) + 0.123, axis=0)
    t = threading.Thread(target=kiln.eval, args=(y,))
    t.start()
    t.join()
    xs = x.numpy().astype(np.float64)
    z = np.tanh(xs @ xs.T * 0.37) + 0.123
    want = np.exp(z - z.max(axis=0)) / np.exp(z - z.max(axis=0)).sum(axis=0)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-6)


def test_llm_activations_and_rms_norm_match_numpy():
    rng = np.random.default_rng(5)
    a = rng.uniform(-6, 6, (4, 33)).astype(np.float32)
    x = kiln.asarray(a, device=kiln.cpu())
    d = a.astype(np.float64)
    sp = np.log1p(np.exp(2 * d)) / 2
    refs = {
        "log_sigmoid": (kiln.log_sigmoid(x), -np.log1p(np.exp(-d))),
        "hardswish": (kiln.hardswish(x), d * np.clip(d + 3, 0, 6) / 6),
        "mish": (kiln.mish(x), d * np.tanh(np.log1p(np.exp(d)))),
        "leaky_relu": (kiln.leaky_relu(x, negative_slope=0.2),
                       np.where(d > 0, d, 0.2 * d)),
        "elu": (kiln.elu(x, alpha=1.5), np.where(d > 0, d, 1.5 * np.expm1(d))),
        "softplus": (kiln.softplus(x, beta=2.0, threshold=4.0),
                     np.where(2 * d > 4, d, sp)),
    }
    for name, (got, want) in refs.items():
        np.testing.assert_allclose(np.asarray(got), want, rtol=2e-5,
                                   atol=2e-6, err_msg=name)
    w = rng.uniform(0.5, 1.5, 33).astype(np.float32)
    want = d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5) * w
    got = kiln.rms_norm(x, kiln.asarray(w, device=kiln.cpu()), eps=1e-5)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(kiln.Error, match="weight of shape \\[4\\] must be \\[33\\]"):
        kiln.rms_norm(x, kiln.ones((4,), device=kiln.cpu()))
    with pytest.raises(kiln.Error, match="beta must be finite and > 0"):
        kiln.softplus(x, beta=-1.0)



def _rope_ref(x, theta, offset, interleaved):
    t, d = x.shape[-2], x.shape[-1]
    k = np.arange(d // 2)
    angle = (np.arange(t)[:, None] + offset) * theta ** (-2.0 * k / d)
    c, s = np.cos(angle), np.sin(angle)
    y = np.empty_like(x)
    a_idx = 2 * k if interleaved else k
    b_idx = 2 * k + 1 if interleaved else k + d // 2
    a, b = x[..., a_idx], x[..., b_idx]
    y[..., a_idx] = a * c - b * s
    y[..., b_idx] = b * c + a * s
    return y


@pytest.mark.parametrize("interleaved", [False, True])
def test_rope_matches_its_definition_and_its_offset_is_read_at_run_time(
        interleaved):
    dev = kiln.cpu()
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 4, 6, 16)).astype(np.float32)
    x = kiln.asarray(a, device=dev)
    for offset in (0, 9):
        o = kiln.asarray(offset, dtype=kiln.int64, device=dev)
        got = np.asarray(kiln.rope(x, theta=500.0, offset=o,
                                   interleaved=interleaved))
        np.testing.assert_allclose(
            got, _rope_ref(a.astype(np.float64), 500.0, offset, interleaved),
            rtol=1e-5, atol=1e-5)
    # A new offset is data, not a new graph.
    before = kiln.compile_count(dev)
    o = kiln.asarray(123, dtype=kiln.int64, device=dev)
    np.asarray(kiln.rope(x, theta=500.0, offset=o, interleaved=interleaved))
    assert kiln.compile_count(dev) == before
    with pytest.raises(kiln.Error, match="the last dim D must be static, even"):
        kiln.rope(kiln.ones((4, 7), device=dev))


HF = pathlib.Path(__file__).resolve().parents[2] / "unittests" / "API" / \
    "Inputs" / "hf"


@pytest.mark.parametrize("name", ["llama-gqa", "llama-tied", "gpt2"])
def test_from_pretrained_gives_transformers_logits_and_tokens(name):
    d = HF / name
    model = kiln.nn.from_pretrained(d, device=kiln.cpu())
    ids = np.load(d / "ids.npy")
    logits = np.asarray(model(ids))
    np.testing.assert_allclose(logits, np.load(d / "logits.npy"), atol=1e-4,
                               rtol=0)
    before = kiln.compile_count(kiln.cpu())
    new = model.generate(np.load(d / "prompt.npy"), 20, temperature=0)
    np.testing.assert_array_equal(new, np.load(d / "greedy.npy"))
    assert kiln.compile_count(kiln.cpu()) - before <= 3
    sampled = model.generate([1, 2, 3], 5, temperature=0.7, top_k=20,
                             top_p=0.9, seed=4)
    np.testing.assert_array_equal(
        sampled, model.generate([1, 2, 3], 5, temperature=0.7, top_k=20,
                                top_p=0.9, seed=4))
    assert sampled.shape == (5,) and sampled.dtype == np.int64


def test_from_pretrained_errors_name_what_is_wrong(tmp_path):
    with pytest.raises(kiln.Error, match="cannot open the config"):
        kiln.nn.from_pretrained(tmp_path)
    (tmp_path / "config.json").write_text('{"model_type": "t5"}')
    with pytest.raises(kiln.Error, match='model_type "t5"'):
        kiln.nn.from_pretrained(tmp_path)
    model = kiln.nn.from_pretrained(HF / "gpt2", device=kiln.flex())
    with pytest.raises(kiln.Error, match="top_p must be in"):
        model.generate([1], 2, top_p=1.5)


def test_attention_modules_and_grouped_query_attention_match_numpy():
    dev = kiln.cpu()
    rng = np.random.default_rng(7)
    q = rng.standard_normal((2, 4, 5, 8)).astype(np.float32)
    k = rng.standard_normal((2, 2, 6, 8)).astype(np.float32)
    v = rng.standard_normal((2, 2, 6, 3)).astype(np.float32)
    keep = rng.random((2, 1, 1, 6)) > 0.3
    keep[..., 0] = True
    got = kiln.scaled_dot_product_attention(
        kiln.asarray(q, device=dev), kiln.asarray(k, device=dev),
        kiln.asarray(v, device=dev), mask=kiln.asarray(keep, device=dev))
    kr, vr = np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)
    s = q.astype(np.float64) @ kr.transpose(0, 1, 3, 2) / np.sqrt(8)
    s = np.where(keep, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(np.asarray(got), p @ vr, rtol=1e-5, atol=1e-5)
    norm = kiln.nn.RMSNorm(8, eps=1e-5, device=dev)
    x = kiln.asarray(q, device=dev)
    d = q.astype(np.float64)
    np.testing.assert_allclose(
        np.asarray(norm(x)), d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5),
        rtol=1e-5, atol=1e-5)
    mlp = kiln.nn.SwiGLU(8, 12, device=dev, seed=3)
    w = {n: np.asarray(t) for n, t in mlp.named_parameters().items()}
    assert w["gate_proj.weight"].shape == (12, 8)
    g = d @ w["gate_proj.weight"].T
    want = (g / (1 + np.exp(-g)) * (d @ w["up_proj.weight"].T)) @ \
        w["down_proj.weight"].T
    np.testing.assert_allclose(np.asarray(mlp(x)), want, rtol=1e-4, atol=1e-5)


def test_cross_entropy_options_match_their_definition():
    dev = kiln.cpu()
    rng = np.random.default_rng(11)
    logits = rng.standard_normal((3, 6, 4)).astype(np.float32)
    labels = rng.integers(0, 6, (3, 4))
    labels[0, 1] = labels[2, 3] = -1
    d = logits.astype(np.float64)
    logp = d - np.log(np.exp(d).sum(1, keepdims=True))
    picked = np.take_along_axis(logp, np.maximum(labels, 0)[:, None], 1)[:, 0]
    each = -(0.9 * picked + 0.1 * logp.mean(1))
    each = np.where(labels == -1, 0.0, each)
    x = kiln.asarray(logits, device=dev)
    t = kiln.asarray(labels, device=dev)
    kw = dict(ignore_index=-1, label_smoothing=0.1)
    np.testing.assert_allclose(
        np.asarray(kiln.nn.cross_entropy(x, t, reduction="none", **kw)), each,
        rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        float(kiln.nn.cross_entropy(x, t, reduction="sum", **kw).item()),
        each.sum(), rtol=1e-5)
    np.testing.assert_allclose(
        float(kiln.nn.cross_entropy(x, t, **kw).item()),
        each.sum() / (labels != -1).sum(), rtol=1e-5)
    with pytest.raises(kiln.Error, match="reduction must be 'none', 'sum' or"):
        kiln.nn.cross_entropy(x, t, reduction="avg")
