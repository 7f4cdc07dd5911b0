"""Modules: the C++ blocks (Linear, Conv1d, Conv2d, LayerNorm, Embedding,
MultiheadAttention, TransformerBlock, GPT), pooling, and a `Module` base
for modules written in Python. A module's parameters are kiln.Tensor objects that the
optimizers update in place."""

from . import _kiln
from ._kiln.nn import (  # noqa: F401
    GPT,
    Embedding,
    LayerNorm,
    Linear,
    MultiheadAttention,
    TransformerBlock,
)


def _named(value, prefix, out):
    if isinstance(value, _kiln.Tensor):
        out[prefix] = value
    elif hasattr(value, "named_parameters"):
        for name, t in value.named_parameters().items():
            out[prefix + "." + name if prefix else name] = t
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _named(v, "%s.%d" % (prefix, i) if prefix else str(i), out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _named(v, "%s.%s" % (prefix, k) if prefix else str(k), out)


class Module:
    """A module written in Python: its parameters are the kiln.Tensor
    attributes, and those of its submodules (Python or C++) and of lists
    and dicts of them, named by path ("blocks.0.attn.qkv.weight").
    Subclasses define forward()."""

    def named_parameters(self):
        out = {}
        for name, value in vars(self).items():
            if not name.startswith("_"):
                _named(value, name, out)
        return out

    def parameters(self):
        return list(self.named_parameters().values())

    def save_weights(self, path):
        """Writes the parameters to a safetensors file."""
        _kiln.save_tensors(self.named_parameters(), path)

    def load_weights(self, path):
        """Reads every parameter from a safetensors file: all or none (a
        missing, mis-shaped or corrupt tensor is a kiln.Error and leaves
        the module as it was)."""
        _kiln.load_tensors(self.named_parameters(), path)

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)


class _ConvNd(Module):
    def __init__(self, n, in_channels, out_channels, kernel_size, stride,
                 padding, dilation, groups, bias, device, seed):
        from . import _sizes
        self._conv = _kiln.nn._Conv(
            int(in_channels), int(out_channels),
            _sizes(kernel_size, n, "kernel_size", 1),
            _sizes(stride, n, "stride", 1), _sizes(padding, n, "padding", 0),
            _sizes(dilation, n, "dilation", 1), int(groups), bool(bias),
            device, int(seed))

    @property
    def weight(self):
        return self._conv.weight

    @property
    def bias(self):
        return self._conv.bias

    def named_parameters(self):
        return self._conv.named_parameters()

    def forward(self, x):
        return self._conv(x)


class Conv1d(_ConvNd):
    """Convolution over [N, C, L]: weight [out, in / groups, K] and bias
    [out], initialized as PyTorch's."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1,
                 padding=0, dilation=1, groups=1, bias=True, device=None,
                 seed=0):
        super().__init__(1, in_channels, out_channels, kernel_size, stride,
                         padding, dilation, groups, bias, device, seed)


class Conv2d(_ConvNd):
    """Convolution over [N, C, H, W]: weight [out, in / groups, KH, KW] and
    bias [out], initialized as PyTorch's."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1,
                 padding=0, dilation=1, groups=1, bias=True, device=None,
                 seed=0):
        super().__init__(2, in_channels, out_channels, kernel_size, stride,
                         padding, dilation, groups, bias, device, seed)


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        self._args = (kernel_size, stride, padding)

    def forward(self, x):
        from . import max_pool2d
        return max_pool2d(x, *self._args)


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0,
                 count_include_pad=True):
        self._args = (kernel_size, stride, padding, count_include_pad)

    def forward(self, x):
        from . import avg_pool2d
        return avg_pool2d(x, *self._args)


def cross_entropy(logits, labels):
    """Mean cross-entropy of logits [N, C] against integer labels [N]."""
    return _kiln.cross_entropy(logits, labels)


def mse_loss(prediction, target):
    d = prediction - target
    return _kiln.mean(d * d, list(range(d.ndim)), False)
