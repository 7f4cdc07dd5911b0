"""Modules: the C++ blocks (Linear, LayerNorm, Embedding,
MultiheadAttention, TransformerBlock, GPT) and a `Module` base for modules
written in Python. A module's parameters are kiln.Tensor objects that the
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


def cross_entropy(logits, labels):
    """Mean cross-entropy of logits [N, C] against integer labels [N]."""
    return _kiln.cross_entropy(logits, labels)


def mse_loss(prediction, target):
    d = prediction - target
    return _kiln.mean(d * d, list(range(d.ndim)), False)
