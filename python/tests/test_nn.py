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
