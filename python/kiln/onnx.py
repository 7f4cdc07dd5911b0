"""ONNX models: kiln.onnx.load(path) returns a callable model.

    model = kiln.onnx.load("resnet18.onnx", device=kiln.cpu())
    logits = model(images)            # numpy arrays or kiln tensors
    outputs = model.run({"input": images})

Inputs bind in the file's order (or by name with run); a call returns one
tensor per output (a single tensor when the model has one output). The
first symbolic dim (the batch) is dynamic: a new batch size compiles
nothing. With trainable=True on an autodiff device the float initializers
are parameters (named_parameters, parameters) that kiln.backward and
kiln.optim train.
"""

from . import _kiln


class Model:
    """An ONNX model recorded on Kiln tensors (see kiln.onnx.load)."""

    def __init__(self, model):
        self._model = model

    @property
    def input_names(self):
        return list(self._model.input_names)

    @property
    def output_names(self):
        return list(self._model.output_names)

    @property
    def opset(self):
        return self._model.opset

    @property
    def device(self):
        return self._model.device

    def _tensor(self, x, dtype):
        from . import Tensor, asarray
        if isinstance(x, Tensor):
            return x
        return asarray(x, dtype=dtype, device=self.device)

    def __call__(self, *inputs):
        names = self._model.input_names
        if len(inputs) != len(names):
            raise _kiln.Error("onnx: the model takes %d inputs (%s), not %d"
                              % (len(names), ", ".join(names), len(inputs)))
        dtypes = self._model.input_dtypes
        out = self._model([self._tensor(x, d) for x, d in zip(inputs, dtypes)])
        return out[0] if len(out) == 1 else tuple(out)

    def run(self, inputs):
        """Outputs by name for inputs by name."""
        dtypes = dict(zip(self._model.input_names, self._model.input_dtypes))
        return self._model.run({k: self._tensor(v, dtypes.get(k))
                                for k, v in inputs.items()})

    def named_parameters(self):
        return self._model.named_parameters()

    def parameters(self):
        return list(self._model.named_parameters().values())


def load(path, device=None, trainable=False):
    """Reads an ONNX model (opsets 1 to 21, IR up to 10) onto `device`
    (default: kiln.default_device())."""
    return Model(_kiln.onnx._Model.load(str(path), device, bool(trainable)))
