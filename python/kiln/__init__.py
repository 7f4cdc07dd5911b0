"""Kiln: a lazy tensor compiler.

Operations on a ``kiln.Tensor`` do not run: they record into a graph.
Reading data (``t.numpy()``, ``t.item()``, ``print(t)``) or calling
``kiln.eval(...)`` materializes it: the pending graph is differentiated,
fused, compiled once (and cached) and run. Reading ``t.shape``,
``t.dtype`` or ``t.device`` never runs anything.
"""

import builtins as _builtins
import contextlib as _contextlib
import numbers as _numbers

import numpy as _np

from . import _kiln
from ._kiln import (  # noqa: F401  (the public names)
    Device,
    Dtype,
    Error,
    Gradients,
    Tensor,
    autodiff,
    backward,
    abs,
    batch_norm,
    group_norm,
    instance_norm,
    rms_norm,
    rope,
    argsort,
    sort,
    topk,
    scaled_dot_product_attention,
    layer_norm,
    dropout,
    log_sigmoid,
    hardswish,
    mish,
    leaky_relu,
    elu,
    softplus,
    add,
    arctan2,
    available_devices,
    ceil,
    clip,
    cos,
    cpu,
    cuda,
    default_device,
    divide,
    equal,
    erf,
    exp,
    flex,
    floor,
    gelu,
    greater,
    greater_equal,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    matmul,
    maximum,
    minimum,
    multiply,
    neg,
    not_equal,
    num_threads,
    reciprocal,
    relu,
    remainder,
    round,
    rsqrt,
    set_num_threads,
    sigmoid,
    sign,
    silu,
    sin,
    sqrt,
    subtract,
    tan,
    tanh,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)

__all__ = [n for n in dir() if not n.startswith("_")]
__all__ += ["nn", "optim"]

_NUMPY_OF = {
    "f64": _np.float64,
    "f32": _np.float32,
    "f16": _np.float16,
    "i64": _np.int64,
    "i32": _np.int32,
    "i16": _np.int16,
    "i8": _np.int8,
    "u8": _np.uint8,
    "bool": _np.bool_,
}


def _device(device):
    return default_device() if device is None else device


# --- Creation --------------------------------------------------------------


def asarray(x, dtype=None, device=None):
    """A tensor holding a copy of `x`: a numpy array (its dtype kept), a
    Python scalar or a nested list (ints are int64, floats float32, bools
    bool), or a tensor (cast and moved as asked)."""
    if isinstance(x, Tensor):
        t = x if dtype is None or x.dtype == dtype else x.astype(dtype)
        return t if device is None or t.device == device else t.to(device)
    if isinstance(x, _np.ndarray):
        a = x
    else:
        try:
            a = _np.asarray(x)
        except ValueError as e:
            raise Error("asarray: cannot make a tensor of %r (mixed or "
                        "ragged values: %s)" % (x, e)) from None
        if a.dtype == _np.float64:
            a = a.astype(_np.float32)
    if a.dtype == _np.object_:
        raise Error("asarray: cannot make a tensor of %r (mixed or ragged "
                    "values)" % (x,))
    if dtype is not None and dtype != bfloat16:
        if dtype.name not in _NUMPY_OF:
            raise Error("asarray: no numpy dtype for kiln.%s" % dtype.name)
        a = a.astype(_NUMPY_OF[dtype.name], copy=False)
    if a.ndim == 0:
        t = _kiln.reshape(_kiln._from_array(a.reshape(1), device), [])
    else:
        t = _kiln._from_array(_np.ascontiguousarray(a), device)
    if dtype == bfloat16:
        t = t.astype(bfloat16)
    return t


array = asarray


def from_dlpack(x, device=None):
    """A tensor sharing the memory of `x` (any object with __dlpack__, or
    the buffer protocol): later changes to `x` show in the tensor's next
    use, and Kiln never writes it. Negative strides, and a Cuda device,
    copy. The Cpu kernels read memory that is not 64-byte aligned (numpy
    aligns to 16) from a copy made for each run."""
    t = _kiln._share_array(x, device)
    if t is not None:
        return t
    return asarray(_np.from_dlpack(x) if hasattr(x, "__dlpack__") else
                   _np.asarray(x), device=device)


def _dlpack(t, stream=None, max_version=None, dl_device=None, copy=None):
    view = _kiln._dlpack_view(t)
    kwargs = {}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None:
        kwargs["copy"] = copy
    return view.__dlpack__(**kwargs)


def _shape(shape):
    return [shape] if isinstance(shape, _numbers.Integral) else list(shape)


def full(shape, value, dtype=float32, device=None):
    return _kiln.full(_shape(shape), float(value), dtype, _device(device))


def zeros(shape, dtype=float32, device=None):
    return full(shape, 0.0, dtype, device)


def ones(shape, dtype=float32, device=None):
    return full(shape, 1.0, dtype, device)


def zeros_like(t):
    return full(t.shape, 0.0, t.dtype, t.device)


def ones_like(t):
    return full(t.shape, 1.0, t.dtype, t.device)


def arange(start, stop=None, step=1, dtype=None, device=None):
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        ints = _builtins.all(isinstance(v, _numbers.Integral)
                             for v in (start, stop, step))
        dtype = int64 if ints else float32
    return _kiln.arange(float(start), float(stop), float(step), dtype,
                        _device(device))


def eye(n, m=None, dtype=float32, device=None):
    return _kiln.eye(n, n if m is None else m, dtype, _device(device))


def random_uniform(shape, seed, low=0.0, high=1.0, dtype=float32,
                   device=None):
    return _kiln.rand(_shape(shape), dtype, _device(device), seed, low, high)


def random_normal(shape, seed, mean=0.0, std=1.0, dtype=float32,
                  device=None):
    return _kiln.randn(_shape(shape), dtype, _device(device), seed, mean, std)


# --- Reductions and shapes -------------------------------------------------


def _axes(x, axis):
    if axis is None:
        return list(range(x.ndim))
    if isinstance(axis, _numbers.Integral):
        return [int(axis)]
    return [int(a) for a in axis]


def _reduction(fn):
    def reduce(x, axis=None, keepdims=False):
        return fn(x, _axes(x, axis), keepdims)

    reduce.__name__ = fn.__name__
    return reduce


sum = _reduction(_kiln.sum)
mean = _reduction(_kiln.mean)
prod = _reduction(_kiln.prod)
max = _reduction(_kiln.max)
min = _reduction(_kiln.min)
any = _reduction(_kiln.any)
all = _reduction(_kiln.all)
logsumexp = _reduction(_kiln.logsumexp)


def argmax(x, axis=-1, keepdims=False):
    return _kiln.argmax(x, axis, keepdims)


def argmin(x, axis=-1, keepdims=False):
    return _kiln.argmin(x, axis, keepdims)


def cumsum(x, axis=-1):
    return _kiln.cumsum(x, axis)


def softmax(x, axis=-1):
    return _kiln.softmax(x, axis)


def log_softmax(x, axis=-1):
    return _kiln.log_softmax(x, axis)


def reshape(x, shape):
    shape = _shape(shape)
    if shape.count(-1) > 1:
        raise Error("reshape: at most one -1 in %r" % (tuple(shape),))
    if -1 in shape:
        known = 1
        for d in shape:
            if d != -1:
                known *= d
        if known == 0 or x.size % known:
            raise Error("reshape: cannot reshape %r into %r"
                        % (x.shape, tuple(shape)))
        shape[shape.index(-1)] = x.size // known
    return _kiln.reshape(x, shape)


def transpose(x, axes=None):
    if axes is None:
        axes = list(reversed(range(x.ndim)))
    return _kiln.permute(x, list(axes))


def swapaxes(x, a, b):
    return _kiln.swapaxes(x, a, b)


def squeeze(x, axis=None):
    if axis is None:
        axis = [i for i, d in enumerate(x.shape) if d == 1]
    return _kiln.squeeze(x, _axes(x, axis))


def expand_dims(x, axis):
    return _kiln.expand_dims(x, _axes(x, axis))


def broadcast_to(x, shape):
    return _kiln.broadcast_to(x, _shape(shape))


def concatenate(xs, axis=0):
    return _kiln.concatenate(list(xs), axis)


def stack(xs, axis=0):
    return concatenate([expand_dims(x, axis) for x in xs], axis)


def split(x, sections, axis=0):
    """`sections` equal parts, or the parts between the given indices."""
    n = x.shape[axis]
    if isinstance(sections, _numbers.Integral):
        if n % sections:
            raise Error("split: %d elements along axis %d do not split into "
                        "%d equal parts" % (n, axis, sections))
        sizes = [n // sections] * sections
    else:
        bounds = [0] + list(sections) + [n]
        sizes = [b - a for a, b in zip(bounds, bounds[1:])]
    return _kiln.split_sizes(x, sizes, axis)


def flip(x, axis=None):
    return _kiln.flip(x, _axes(x, axis))


def tile(x, reps):
    return _kiln.tile(x, _shape(reps))


def pad(x, pad_width, constant_values=0.0):
    low = [p[0] for p in pad_width]
    high = [p[1] for p in pad_width]
    return _kiln.pad(x, low, high, float(constant_values))


def where(cond, x, y):
    x = x if isinstance(x, Tensor) else asarray(x, device=cond.device)
    return _kiln.where(cond, x, y)


def take(x, indices, axis=0):
    return _kiln.take(x, _index_tensor(indices, x.device), axis)


def take_along_axis(x, indices, axis):
    return _kiln.take_along_axis(x, _index_tensor(indices, x.device), axis)


def one_hot(indices, num_classes, dtype=float32):
    return _kiln.one_hot(indices, num_classes, dtype)


def astype(x, dtype):
    return x.astype(dtype)


# --- Indexing ---------------------------------------------------------------


def _index_tensor(index, device):
    if isinstance(index, Tensor):
        return index
    a = _np.asarray(index)
    if a.dtype == _np.bool_:
        raise Error("indexing with a boolean mask makes a shape only known "
                    "at run time; use kiln.where(mask, x, y) instead")
    if not _np.issubdtype(a.dtype, _np.integer):
        raise Error("an index array must hold integers, not %s" % a.dtype)
    return asarray(a.astype(_np.int64), device=device)


def _forward_slice(start, stop, step):
    """(start, end, count) of a forward slice, end one past its last element
    (so that a slice op's bounds stay inside the dim)."""
    count = _builtins.max(0, (stop - start + step - 1) // step)
    end = start + _builtins.max(count - 1, 0) * step + 1 if count else start
    return start, end, count


def _axis_index(k, dim, n):
    """Integer index `k` into axis `dim` of size `n`, negative counted from
    the end; an error when out of bounds."""
    i = int(k)
    if i < -n or i >= n:
        raise Error("index %d is out of bounds for axis %d with size %d"
                    % (i, dim, n))
    return i % n


def _getitem(x, key):
    if not isinstance(key, tuple):
        key = (key,)
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise Error("an index can have only one ellipsis ('...')")
    consumed = _builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > x.ndim:
        raise Error("too many indices: %d for a tensor of %d dims, shape %r"
                    % (consumed, x.ndim, x.shape))
    if ellipses:
        i = ellipses[0]
        key = key[:i] + (slice(None),) * (x.ndim - consumed) + key[i + 1:]
    else:
        key = key + (slice(None),) * (x.ndim - consumed)
    starts, ends, steps, flips = [], [], [], []
    dropped, inserted, arrays = [], [], []
    dim = 0  # dim of x
    out = 0  # dim of the result, before drops
    for k in key:
        if k is None:
            inserted.append(out)
            out += 1
            continue
        n = x.shape[dim]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            if step < 0:
                # Flip, then a forward slice of the flipped dim.
                flips.append(dim)
                start, stop, step = n - 1 - start, n - 1 - stop, -step
            start, end, _ = _forward_slice(start, stop, step)
            starts.append(start)
            ends.append(end)
            steps.append(step)
        elif isinstance(k, (_numbers.Integral, _np.integer)) and not isinstance(
                k, bool):
            i = _axis_index(k, dim, n)
            starts.append(i)
            ends.append(i + 1)
            steps.append(1)
            dropped.append(out)
        else:
            starts.append(0)
            ends.append(n)
            steps.append(1)
            arrays.append((out, k))
        dim += 1
        out += 1
    if len(arrays) > 1:
        raise Error("indexing with more than one index array is not "
                    "supported; index one axis at a time")
    y = x
    if flips:
        y = _kiln.flip(y, flips)
    if _builtins.any(s != 0 or e != n or st != 1
                     for s, e, st, n in zip(starts, ends, steps, y.shape)):
        y = _kiln.slice(y, starts, ends, steps)
    # Positions in the result as it is now (no insertions yet).
    for pos in inserted:
        y = _kiln.expand_dims(y, [pos])
    shift = lambda p: p + _builtins.sum(1 for q in inserted if q <= p)  # noqa
    if arrays:
        pos, k = arrays[0]
        idx = _index_tensor(k, x.device)
        axis = shift(pos)
        y = _kiln.take(y, reshape(idx, [-1]), axis)
        if idx.ndim != 1:
            shape = list(y.shape)
            y = reshape(y, shape[:axis] + list(idx.shape) + shape[axis + 1:])
            extra = idx.ndim - 1
        else:
            extra = 0
        drops = [shift(p) + (extra if p > pos else 0) for p in dropped]
    else:
        drops = [shift(p) for p in dropped]
    if drops:
        y = _kiln.squeeze(y, drops)
    return y


def _setitem(x, key, value):
    """x[key] = value for basic indexing (ints, slices, ...): the tensor
    is rebound to a new value; nothing else that shares it changes."""
    if not isinstance(key, tuple):
        key = (key,)
    if _builtins.any(k is None or isinstance(k, (Tensor, list, _np.ndarray))
                     for k in key):
        raise Error("assignment takes ints, slices and '...' only")
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise Error("an index can have only one ellipsis ('...')")
    if len(key) - len(ellipses) > x.ndim:
        raise Error("too many indices: %d for a tensor of %d dims, shape %r"
                    % (len(key) - len(ellipses), x.ndim, x.shape))
    if ellipses:
        i = ellipses[0]
        key = key[:i] + (slice(None),) * (x.ndim - len(key) + 1) + key[i + 1:]
    key = key + (slice(None),) * (x.ndim - len(key))
    starts, ends, steps, shape = [], [], [], []
    for dim, k in enumerate(key):
        n = x.shape[dim]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            if step < 0:
                raise Error("assignment through a negative step is not "
                            "supported")
            start, end, count = _forward_slice(start, stop, step)
            starts.append(start)
            ends.append(end)
            steps.append(step)
            shape.append(count)
        else:
            i = _axis_index(k, dim, n)
            starts.append(i)
            ends.append(i + 1)
            steps.append(1)
            shape.append(1)
    if not isinstance(value, Tensor):
        value = full(shape, value, x.dtype, x.device)
    else:
        value = broadcast_to(reshape(value, [1] * (len(shape) - value.ndim)
                                     + list(value.shape)), shape)
    return _kiln.slice_update(x, value, starts, ends, steps)


# --- Materialization ---------------------------------------------------------


def _leaves(tree, out):
    if isinstance(tree, Tensor):
        out.append(tree)
    elif isinstance(tree, (list, tuple)):
        for t in tree:
            _leaves(t, out)
    elif isinstance(tree, dict):
        for t in tree.values():
            _leaves(t, out)
    return out


def eval(*trees):
    """Materializes every tensor in `trees` (tensors, lists, tuples and
    dicts of them) in one graph."""
    tensors = _leaves(trees, [])
    if tensors:
        _kiln.sync(tensors)


def _repr(t):
    a = t.numpy() if t.dtype != bfloat16 else t.astype(float32).numpy()
    body = _np.array2string(a, separator=", ", prefix="kiln.tensor(")
    return "kiln.tensor(%s, dtype=%s, device=%s)" % (body, t.dtype.name,
                                                    t.device.kind)


Tensor.__repr__ = _repr
Tensor.__str__ = lambda t: _np.array2string(
    t.numpy() if t.dtype != bfloat16 else t.astype(float32).numpy())
Tensor.__array__ = lambda t, dtype=None, copy=None: (
    _np.asarray(t.numpy(), dtype=dtype))
Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = lambda t: (1, 0)  # host memory (kDLCPU)
Tensor.__float__ = lambda t: float(t.item())
Tensor.__int__ = lambda t: int(t.item())
Tensor.__index__ = lambda t: int(t.item())


def _bool(t):
    if t.size != 1:
        raise Error("the truth value of a tensor of %d elements is "
                    "ambiguous; use kiln.any or kiln.all" % t.size)
    return bool(t.item())


Tensor.__bool__ = _bool
Tensor.__getitem__ = _getitem
Tensor.T = property(lambda t: transpose(t))
Tensor.reshape = lambda t, *shape: reshape(
    t, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)
Tensor.transpose = lambda t, *axes: transpose(t, axes or None)
Tensor.sum = lambda t, axis=None, keepdims=False: sum(t, axis, keepdims)
Tensor.mean = lambda t, axis=None, keepdims=False: mean(t, axis, keepdims)
Tensor.max = lambda t, axis=None, keepdims=False: max(t, axis, keepdims)
Tensor.min = lambda t, axis=None, keepdims=False: min(t, axis, keepdims)
Tensor.argmax = lambda t, axis=-1, keepdims=False: argmax(t, axis, keepdims)


def _setitem_method(t, key, value):
    raise TypeError("kiln tensors are values: write t = kiln.at_set(t, key, "
                    "value) (or t = t.at[key].set(value))")


class _At:
    def __init__(self, t):
        self._t = t

    def __getitem__(self, key):
        t = self._t

        class _Setter:
            def set(self, value):
                return _setitem(t, key, value)

        return _Setter()


Tensor.at = property(lambda t: _At(t))
Tensor.__setitem__ = _setitem_method


def at_set(x, key, value):
    return _setitem(x, key, value)


# --- Autodiff ---------------------------------------------------------------


@_contextlib.contextmanager
def no_grad():
    """Ops recorded inside are not differentiated."""
    _kiln._no_grad_enter()
    try:
        yield
    finally:
        _kiln._no_grad_exit()


def value_and_grad(f, argnums=0):
    """A function returning (f(*args), gradients of f with respect to the
    arguments `argnums` names): one gradient, or a tuple for a tuple of
    argnums. f must return a scalar tensor."""
    single = isinstance(argnums, _numbers.Integral)
    nums = (argnums,) if single else tuple(argnums)

    def wrapped(*args, **kwargs):
        args = list(args)
        leaves = []
        for i in nums:
            if i >= len(args):
                raise Error("value_and_grad: argnums %d but only %d "
                            "arguments" % (i, len(args)))
            if not isinstance(args[i], Tensor):
                raise Error("value_and_grad: argument %d is a %s, not a "
                            "kiln.Tensor" % (i, type(args[i]).__name__))
            leaf = args[i].detach()
            _kiln.require_grad(leaf)
            args[i] = leaf
            leaves.append(leaf)
        value = f(*args, **kwargs)
        if not isinstance(value, Tensor) or value.size != 1:
            raise Error("value_and_grad: f must return a one-element tensor")
        if not value.is_tracked:
            # f does not depend on any of the arguments.
            return value, (zeros_like(leaves[0]) if single
                           else tuple(zeros_like(t) for t in leaves))
        grads = _kiln.backward(value)
        out = [grads.get(leaf) if grads.has(leaf) else zeros_like(leaf)
               for leaf in leaves]
        return value, (out[0] if single else tuple(out))

    return wrapped


def grad(f, argnums=0):
    """The gradient function of f (see value_and_grad)."""
    vg = value_and_grad(f, argnums)
    return lambda *args, **kwargs: vg(*args, **kwargs)[1]


def compile_count(device=None):
    """Executables the device's backend has built so far."""
    return _kiln.compile_count(_device(device))


def _sizes(value, n, name, low):
    """An int, or a sequence of n ints, as a list of n ints >= low."""
    if isinstance(value, _numbers.Integral) and not isinstance(value, bool):
        out = [int(value)] * n
    else:
        try:
            if isinstance(value, (str, bytes)):
                raise TypeError
            out = [int(v) for v in value]
        except (TypeError, ValueError):
            raise Error("%s must be an int or %d ints, got %r"
                        % (name, n, value)) from None
        if len(out) != n:
            raise Error("%s needs %d ints, got %r" % (name, n, value))
    if _builtins.any(v < low for v in out):
        raise Error("%s must be >= %d, got %r" % (name, low, value))
    return out


def _conv(x, weight, bias, stride, padding, dilation, groups, n):
    if weight.ndim != n + 2:
        raise Error("conv%dd: weight must have rank %d (out, in / groups, "
                    "kernel...), got shape %r" % (n, n + 2, weight.shape))
    return _kiln._conv(x, weight, bias, _sizes(stride, n, "stride", 1),
                       _sizes(padding, n, "padding", 0),
                       _sizes(dilation, n, "dilation", 1), int(groups))


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of x [N, C, L] with weight [O, C / groups, K]."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of x [N, C, H, W] with weight
    [O, C / groups, KH, KW]; bias [O]."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, 2)


def _conv_transpose(x, weight, bias, stride, padding, output_padding,
                    groups, dilation, n):
    if weight.ndim != n + 2:
        raise Error("conv_transpose%dd: weight must have rank %d (in, "
                    "out / groups, kernel...), got shape %r"
                    % (n, n + 2, weight.shape))
    return _kiln._conv_transpose(
        x, weight, bias, _sizes(stride, n, "stride", 1),
        _sizes(padding, n, "padding", 0),
        _sizes(output_padding, n, "output_padding", 0),
        _sizes(dilation, n, "dilation", 1), int(groups))


def conv_transpose1d(x, weight, bias=None, stride=1, padding=0,
                     output_padding=0, groups=1, dilation=1):
    """Transposed 1-D convolution of x [N, C_in, L] with weight
    [C_in, C_out / groups, K] (PyTorch's argument order)."""
    return _conv_transpose(x, weight, bias, stride, padding, output_padding,
                           groups, dilation, 1)


def conv_transpose2d(x, weight, bias=None, stride=1, padding=0,
                     output_padding=0, groups=1, dilation=1):
    """Transposed 2-D convolution of x [N, C_in, H, W] with weight
    [C_in, C_out / groups, KH, KW] (PyTorch's argument order)."""
    return _conv_transpose(x, weight, bias, stride, padding, output_padding,
                           groups, dilation, 2)


def _max_pool(x, n, kernel_size, stride, padding, dilation, ceil_mode,
              return_indices):
    kernel = _sizes(kernel_size, n, "kernel_size", 1)
    stride = kernel if stride is None else _sizes(stride, n, "stride", 1)
    return _kiln._max_pool(x, kernel, stride, _sizes(padding, n, "padding", 0),
                           _sizes(dilation, n, "dilation", 1), bool(ceil_mode),
                           bool(return_indices))


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode=False, return_indices=False):
    """Maximum over windows of x [N, C, L]; stride defaults to the window.
    With return_indices, also the i64 position of each maximum."""
    return _max_pool(x, 1, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode=False, return_indices=False):
    """Maximum over windows of x [N, C, H, W]; stride defaults to the
    window. With return_indices, also the i64 flat position (h * W + w) of
    each maximum."""
    return _max_pool(x, 2, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def _avg_pool(x, n, kernel_size, stride, padding, ceil_mode,
              count_include_pad):
    kernel = _sizes(kernel_size, n, "kernel_size", 1)
    stride = kernel if stride is None else _sizes(stride, n, "stride", 1)
    return _kiln._avg_pool(x, kernel, stride, _sizes(padding, n, "padding", 0),
                           bool(ceil_mode), bool(count_include_pad))


def avg_pool1d(x, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over windows of x [N, C, L]; with count_include_pad the padding
    counts in the divisor."""
    return _avg_pool(x, 1, kernel_size, stride, padding, ceil_mode,
                     count_include_pad)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over windows of x [N, C, H, W]; with count_include_pad the
    padding counts in the divisor."""
    return _avg_pool(x, 2, kernel_size, stride, padding, ceil_mode,
                     count_include_pad)


def interpolate(x, size=None, scale_factor=None, mode="nearest",
                align_corners=None):
    """Resizes x [N, C, L] or [N, C, H, W] to `size`, or by `scale_factor`
    (an int, a float or one per spatial dim), as PyTorch's interpolate:
    mode "nearest", "linear" or "bilinear"; align_corners for the linear
    modes only."""
    n = x.ndim - 2
    if n not in (1, 2):
        raise Error("interpolate: input must be [N, C, L] or [N, C, H, W], "
                    "got shape %r" % (x.shape,))
    sizes = [] if size is None else _sizes(size, n, "size", 1)
    if scale_factor is None:
        scales = []
    elif isinstance(scale_factor, _numbers.Real):
        scales = [float(scale_factor)] * n
    else:
        scales = [float(s) for s in scale_factor]
    return _kiln._interpolate(x, sizes, scales, str(mode),
                              bool(align_corners))


def adaptive_avg_pool2d(x, output_size):
    """Mean over the windows that cut the H and W of x [N, C, H, W] into
    output_size cells (an int or (OH, OW)), as PyTorch's."""
    return _kiln._adaptive_avg_pool2d(
        x, _sizes(output_size, 2, "output_size", 1))


def adaptive_max_pool2d(x, output_size):
    """Maximum over the windows that cut the H and W of x [N, C, H, W]
    into output_size cells (an int or (OH, OW)), as PyTorch's."""
    return _kiln._adaptive_max_pool2d(
        x, _sizes(output_size, 2, "output_size", 1))


from . import nn, optim  # noqa: E402  (they use the names above)
if hasattr(_kiln, "onnx"):
    from . import onnx  # noqa: E402,F401
