"""Modules: the C++ blocks (Linear, Conv1d, Conv2d, LayerNorm, BatchNorm1d,
BatchNorm2d, GroupNorm, Embedding, MultiheadAttention, TransformerBlock,
GPT, ResNet), pooling, and a `Module` base for modules written in Python. A module's parameters are kiln.Tensor objects that the
optimizers update in place."""

from . import _kiln
from ._kiln.nn import (  # noqa: F401
    GPT,
    Embedding,
    GroupNorm,
    LayerNorm,
    Linear,
    MultiheadAttention,
    RMSNorm,
    SwiGLU,
    TransformerBlock,
)


def _named(value, prefix, out, state=False):
    if isinstance(value, _kiln.Tensor):
        out[prefix] = value
    elif hasattr(value, "named_parameters"):
        named = (value.named_state() if state and hasattr(value, "named_state")
                 else value.named_parameters())
        for name, t in named.items():
            out[prefix + "." + name if prefix else name] = t
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _named(v, "%s.%d" % (prefix, i) if prefix else str(i), out, state)
    elif isinstance(value, dict):
        for k, v in value.items():
            _named(v, "%s.%s" % (prefix, k) if prefix else str(k), out, state)


def _modules(value):
    """The modules in an attribute: itself, or those in a list or dict."""
    if isinstance(value, (list, tuple)):
        return [m for v in value for m in _modules(v)]
    if isinstance(value, dict):
        return [m for v in value.values() for m in _modules(v)]
    return [value] if hasattr(value, "train") and not isinstance(
        value, _kiln.Tensor) else []


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

    def named_state(self):
        """The parameters and the state beside them (batch norms' running
        statistics): what save_weights writes."""
        out = {}
        for name, value in vars(self).items():
            if not name.startswith("_"):
                _named(value, name, out, state=True)
        return out

    def save_weights(self, path):
        """Writes the parameters and running statistics to a safetensors
        file."""
        _kiln.save_tensors(self.named_state(), path)

    def load_weights(self, path):
        """Reads every parameter and running statistic from a safetensors
        file: all or none (a missing, mis-shaped or corrupt tensor is a
        kiln.Error and leaves the module as it was)."""
        _kiln.load_tensors(self.named_state(), path)

    @property
    def training(self):
        return self.__dict__.get("_training", True)

    def train(self, mode=True):
        """Training mode (batch statistics, dropout) for this module and
        every submodule; returns the module."""
        self._training = bool(mode)
        for name, value in vars(self).items():
            for m in _modules(value):
                if m is not self:
                    m.train(mode)
        return self

    def eval(self):
        """Evaluation mode: batch norms use their running statistics."""
        return self.train(False)

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)


class _ConvLayer(Module):
    """A C++ convolution layer (self._conv) seen as a Python module."""

    @property
    def weight(self):
        return self._conv.named_parameters()["weight"]

    @property
    def bias(self):
        return self._conv.named_parameters().get("bias")

    def named_parameters(self):
        return self._conv.named_parameters()

    def named_state(self):
        return self._conv.named_parameters()

    def forward(self, x):
        return self._conv(x)


class _ConvNd(_ConvLayer):
    def __init__(self, n, in_channels, out_channels, kernel_size, stride,
                 padding, dilation, groups, bias, device, seed):
        from . import _sizes
        self._conv = _kiln.nn._Conv(
            int(in_channels), int(out_channels),
            _sizes(kernel_size, n, "kernel_size", 1),
            _sizes(stride, n, "stride", 1), _sizes(padding, n, "padding", 0),
            _sizes(dilation, n, "dilation", 1), int(groups), bool(bias),
            device, int(seed))


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


class _ConvTransposeNd(_ConvLayer):
    def __init__(self, n, in_channels, out_channels, kernel_size, stride,
                 padding, output_padding, groups, bias, dilation, device,
                 seed):
        from . import _sizes
        self._conv = _kiln.nn._ConvTranspose(
            int(in_channels), int(out_channels),
            _sizes(kernel_size, n, "kernel_size", 1),
            _sizes(stride, n, "stride", 1), _sizes(padding, n, "padding", 0),
            _sizes(output_padding, n, "output_padding", 0),
            _sizes(dilation, n, "dilation", 1), int(groups), bool(bias),
            device, int(seed))


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed convolution over [N, C, L]: weight
    [in, out / groups, K] and bias [out], initialized as PyTorch's."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1,
                 padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, device=None, seed=0):
        super().__init__(1, in_channels, out_channels, kernel_size, stride,
                         padding, output_padding, groups, bias, dilation,
                         device, seed)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed convolution over [N, C, H, W]: weight
    [in, out / groups, KH, KW] and bias [out], initialized as PyTorch's."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1,
                 padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, device=None, seed=0):
        super().__init__(2, in_channels, out_channels, kernel_size, stride,
                         padding, output_padding, groups, bias, dilation,
                         device, seed)


class Dropout(Module):
    """PyTorch's nn.Dropout: in training mode each call zeroes elements with
    probability p, scaling the rest by 1/(1-p), with a new mask each call
    (the call count is a run-time offset of the mask's seed, so the graph
    compiles once); in evaluation mode it returns its input."""

    def __init__(self, p=0.5, seed=0):
        p = float(p)
        if not 0.0 <= p < 1.0:
            raise _kiln.Error("Dropout: p must be in [0, 1), got %g" % p)
        self._p, self._seed, self._calls = p, int(seed), 0

    def forward(self, x):
        if not self.training or self._p == 0.0:
            return x
        from . import asarray, int64
        offset = asarray(self._calls, dtype=int64, device=x.device)
        self._calls += 1
        return _kiln.dropout(x, self._p, self._seed, offset)


class MaxPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 ceil_mode=False, return_indices=False):
        self._args = (kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices)

    def forward(self, x):
        from . import max_pool1d
        return max_pool1d(x, *self._args)


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 ceil_mode=False, return_indices=False):
        self._args = (kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices)

    def forward(self, x):
        from . import max_pool2d
        return max_pool2d(x, *self._args)


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        self._args = (kernel_size, stride, padding, ceil_mode,
                      count_include_pad)

    def forward(self, x):
        from . import avg_pool1d
        return avg_pool1d(x, *self._args)


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        self._args = (kernel_size, stride, padding, ceil_mode,
                      count_include_pad)

    def forward(self, x):
        from . import avg_pool2d
        return avg_pool2d(x, *self._args)


class _Wrapped(Module):
    """A C++ module (self._m) seen as a Python module."""

    def named_parameters(self):
        return self._m.named_parameters()

    def named_state(self):
        return self._m.named_state()

    def train(self, mode=True):
        self._training = bool(mode)
        if hasattr(self._m, "train"):
            self._m.train(bool(mode))
        return self

    def forward(self, x):
        return self._m(x)


class _BatchNorm(_Wrapped):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 device=None):
        self._m = _kiln.nn._BatchNorm(int(num_features), float(eps),
                                      float(momentum), bool(affine), device)

    @property
    def weight(self):
        return self._m.named_parameters().get("weight")

    @property
    def bias(self):
        return self._m.named_parameters().get("bias")

    @property
    def running_mean(self):
        return self._m.running_mean

    @property
    def running_var(self):
        return self._m.running_var


class BatchNorm1d(_BatchNorm):
    """Batch normalization of [N, C] or [N, C, L] over each channel. In
    training mode (the default) it uses the batch's statistics and updates
    the running ones (graph ops, nothing read back); after eval(), it uses
    the running ones."""


class BatchNorm2d(_BatchNorm):
    """Batch normalization of [N, C, H, W] over each channel, as
    BatchNorm1d."""


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        self._size = output_size

    def forward(self, x):
        from . import adaptive_avg_pool2d
        return adaptive_avg_pool2d(x, self._size)


class AdaptiveMaxPool2d(Module):
    def __init__(self, output_size):
        self._size = output_size

    def forward(self, x):
        from . import adaptive_max_pool2d
        return adaptive_max_pool2d(x, self._size)


class Upsample(Module):
    """kiln.interpolate as a module: to `size` or by `scale_factor`."""

    def __init__(self, size=None, scale_factor=None, mode="nearest",
                 align_corners=None):
        self._args = (size, scale_factor, mode, align_corners)

    def forward(self, x):
        from . import interpolate
        return interpolate(x, *self._args)


class ResNet(_Wrapped):
    """A ResNet of basic blocks, with PyTorch's parameter names. `blocks`
    gives the blocks of each of the 4 stages; small_inputs swaps the 7x7
    stride-2 stem and max pool for a 3x3 stride-1 stem (32x32 images).
    Maps [N, in_channels, H, W] to [N, num_classes] logits."""

    def __init__(self, blocks, num_classes=1000, in_channels=3,
                 small_inputs=False, device=None, seed=0):
        self._m = _kiln.nn._ResNet([int(b) for b in blocks], int(num_classes),
                                   int(in_channels), bool(small_inputs),
                                   device, int(seed))


def ResNet18(num_classes=1000, **kwargs):
    """ResNet-18: 2 basic blocks per stage."""
    return ResNet([2, 2, 2, 2], num_classes, **kwargs)


def ResNet34(num_classes=1000, **kwargs):
    """ResNet-34: 3, 4, 6 and 3 basic blocks."""
    return ResNet([3, 4, 6, 3], num_classes, **kwargs)


class CausalLM:
    """A language model read from a Hugging Face directory (Llama or
    GPT-2): model(ids) gives logits [B, T, vocab] for int64 ids [B, T] (a
    numpy array, a nested list or a kiln tensor), and generate() continues
    a prompt with a key/value cache."""

    def __init__(self, model, device):
        self._model, self.device = model, device

    def __call__(self, ids):
        from . import asarray, int64
        if not isinstance(ids, _kiln.Tensor):
            ids = asarray(ids, dtype=int64, device=self.device)
        return self._model(ids)

    def generate(self, ids, max_new_tokens, temperature=1.0, top_k=0,
                 top_p=1.0, seed=0, q8=False):
        """The new token ids (an int64 numpy array) after the 1-D prompt
        `ids` (or [1, T]): temperature 0 is greedy, otherwise top-k, then
        top-p (nucleus), then a draw seeded with `seed`; `q8` decodes with
        q8 copies of the projections' weights."""
        import numpy as np
        prompt = np.asarray(ids).reshape(-1).astype(np.int64).tolist()
        return np.asarray(self._model.generate(
            prompt, int(max_new_tokens), float(temperature), int(top_k),
            float(top_p), int(seed), bool(q8)), dtype=np.int64)

    @property
    def vocab(self):
        return self._model.vocab

    def named_parameters(self):
        return self._model.named_parameters()

    def parameters(self):
        return self._model.parameters()


def from_pretrained(path, device=None):
    """Reads a Hugging Face model directory (config.json with model_type
    llama or gpt2, and model.safetensors or its shards; f32, f16 or bf16
    weights) onto `device`."""
    from . import default_device
    device = default_device() if device is None else device
    return CausalLM(_kiln.nn._from_pretrained(str(path), device), device)


def cross_entropy(logits, labels, ignore_index=-100, label_smoothing=0.0,
                  reduction="mean"):
    """Cross-entropy of logits [N, C, d...] (classes on dim 1) against
    integer labels [N, d...], as PyTorch's F.cross_entropy."""
    return _kiln.cross_entropy(logits, labels, ignore_index, label_smoothing,
                               reduction)


def mse_loss(prediction, target):
    d = prediction - target
    return _kiln.mean(d * d, list(range(d.ndim)), False)
