"""Optimizers (their state is tensors, updated in the step's graph) and
gradient clipping. An optimizer takes a module or a list of its
parameters and updates those tensors in place."""

from . import _kiln
from ._kiln.optim import clip_grad_norm, warmup_cosine  # noqa: F401


def _params(params):
    if hasattr(params, "parameters"):
        params = params.parameters()
    return list(params)


def SGD(params, lr, momentum=0.0, weight_decay=0.0, nesterov=False):
    """PyTorch's SGD: the weight decay is added to the gradient; with
    momentum the step follows the velocity (or, with nesterov, the
    gradient plus momentum times the velocity)."""
    return _kiln.optim.SGD(_params(params), lr, momentum, weight_decay,
                           nesterov)


def Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    return _kiln.optim.Adam(_params(params), lr, tuple(betas), eps,
                            weight_decay)


def AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    """Decoupled weight decay (matrices only: biases and norms are not
    decayed)."""
    return _kiln.optim.AdamW(_params(params), lr, tuple(betas), eps,
                             weight_decay)
