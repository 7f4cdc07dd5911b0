"""kiln.onnx: ONNX models from Python (the importer itself is tested in
C++ and by the ONNX backend test suite)."""

import os

import numpy as np
import pytest

import kiln

pytestmark = pytest.mark.skipif(not hasattr(kiln, "onnx"),
                                reason="built without the ONNX importer")

INPUTS = os.path.join(os.path.dirname(__file__), "..", "..", "test", "Import",
                      "Inputs")


def mlp(**kwargs):
    return kiln.onnx.load(os.path.join(INPUTS, "mlp.onnx"), **kwargs)


@pytest.mark.parametrize("device", [kiln.flex(), kiln.cpu()],
                         ids=["flex", "cpu"])
def test_matches_onnxruntime(device):
    m = mlp(device=device)
    assert m.input_names == ["x"] and m.output_names == ["y"]
    assert m.opset == 17
    x = np.load(os.path.join(INPUTS, "mlp-x.npy"))
    want = np.load(os.path.join(INPUTS, "mlp-y.npy"))
    np.testing.assert_allclose(m(x).numpy(), want, rtol=1e-5, atol=1e-6)
    y = m.run({"x": x})["y"]
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)


def test_errors():
    with pytest.raises(kiln.Error, match="onnx: cannot open /nonexistent"):
        kiln.onnx.load("/nonexistent/model.onnx")
    m = mlp(device=kiln.flex())
    with pytest.raises(kiln.Error, match=r"the model takes 1 inputs \(x\)"):
        m()
    with pytest.raises(kiln.Error, match="must have dim 1 of 3"):
        m(np.zeros((2, 4), np.float32))
    with pytest.raises(kiln.Error, match="node 'frob' .*Frobnicate.*opset 18"):
        kiln.onnx.load(os.path.join(INPUTS, "unknown-op.onnx"),
                       device=kiln.flex())(np.zeros(2, np.float32))


def test_trainable_parameters_train():
    device = kiln.autodiff(kiln.cpu(), "disabled")
    m = mlp(device=device, trainable=True)
    params = m.named_parameters()
    assert sorted(params) == ["b1", "w1", "w2"]
    # The rows whose hidden units are not all cut by the ReLU.
    x = np.load(os.path.join(INPUTS, "mlp-x.npy"))[[0, 2]]
    target = np.tile(np.array([[0.9, 0.1]], np.float32), (2, 1))
    opt = kiln.optim.SGD(m.parameters(), lr=2.0)
    losses = []
    for _ in range(20):
        loss = kiln.nn.mse_loss(m(x), kiln.asarray(target, device=device))
        grads = kiln.backward(loss)
        opt.step(grads)
        losses.append(loss.item())
    assert losses[-1] < 0.8 * losses[0], losses
