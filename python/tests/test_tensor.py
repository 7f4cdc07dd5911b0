"""The Python bindings against numpy: creation, ops, broadcasting,
reductions, shapes, indexing, interop, errors and autodiff."""

import numpy as np
import pytest

import kiln

DEVICES = [kiln.cpu(), kiln.flex()]
RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(t, want, rtol=1e-5, atol=1e-5):
    got = np.asarray(t)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# --- Creation and metadata --------------------------------------------------


def test_asarray_keeps_numpy_dtypes_and_python_defaults():
    for dt, kd in [(np.float64, kiln.float64), (np.float32, kiln.float32),
                   (np.int64, kiln.int64), (np.int32, kiln.int32),
                   (np.uint8, kiln.uint8), (np.bool_, kiln.bool_)]:
        a = (np.arange(6) % 3).astype(dt).reshape(2, 3)
        t = kiln.asarray(a)
        assert t.dtype == kd
        assert t.shape == (2, 3)
        np.testing.assert_array_equal(t.numpy(), a)
    assert kiln.asarray([1, 2, 3]).dtype == kiln.int64
    assert kiln.asarray([1.5, 2]).dtype == kiln.float32
    assert kiln.asarray(True).dtype == kiln.bool_
    assert kiln.asarray(2.5).shape == ()
    assert kiln.asarray([[1, 2]], dtype=kiln.float32).dtype == kiln.float32


def test_metadata_does_not_materialize():
    t = kiln.asarray([1.0, 2.0]) * 3
    assert t.is_pending
    assert t.shape == (2,) and t.dtype == kiln.float32 and t.ndim == 1
    assert t.device == kiln.default_device()
    assert t.is_pending
    kiln.eval(t)
    assert not t.is_pending


def test_print_materializes():
    t = kiln.asarray([1, 2, 3]) * 2
    assert str(t) == "[2 4 6]"
    assert repr(t).startswith("kiln.tensor([2, 4, 6], dtype=i64")


def test_creation_functions():
    close(kiln.zeros((2, 3)), np.zeros((2, 3), np.float32))
    close(kiln.ones(4, dtype=kiln.float64), np.ones(4))
    close(kiln.full((2,), 7.5), np.full(2, 7.5, np.float32))
    close(kiln.arange(5), np.arange(5))
    close(kiln.arange(1.0, 2.0, 0.25), np.arange(1.0, 2.0, 0.25))
    close(kiln.eye(3, 4), np.eye(3, 4, dtype=np.float32))
    u = kiln.random_uniform((1000,), seed=1).numpy()
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.05


# --- Ops against numpy ------------------------------------------------------

UNARY = [
    ("exp", np.exp, lambda a: a),
    ("log", np.log, lambda a: np.abs(a) + 0.1),
    ("log1p", np.log1p, lambda a: np.abs(a)),
    ("sqrt", np.sqrt, lambda a: np.abs(a)),
    ("rsqrt", lambda a: 1 / np.sqrt(a), lambda a: np.abs(a) + 0.1),
    ("reciprocal", lambda a: 1 / a, lambda a: np.abs(a) + 0.1),
    ("sin", np.sin, lambda a: a),
    ("cos", np.cos, lambda a: a),
    ("tanh", np.tanh, lambda a: a),
    ("sigmoid", lambda a: 1 / (1 + np.exp(-a)), lambda a: a),
    ("relu", lambda a: np.maximum(a, 0), lambda a: a),
    ("abs", np.abs, lambda a: a),
    ("neg", np.negative, lambda a: a),
    ("floor", np.floor, lambda a: a * 3),
    ("ceil", np.ceil, lambda a: a * 3),
    ("sign", np.sign, lambda a: a),
]


@pytest.mark.parametrize("device", DEVICES, ids=str)
@pytest.mark.parametrize("name,ref,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, ref, domain, device):
    a = domain(rand(3, 17))
    close(getattr(kiln, name)(kiln.asarray(a, device=device)), ref(a),
          rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("device", DEVICES, ids=str)
def test_binary_operators_broadcast(device):
    a, b = rand(4, 1, 5), rand(3, 1)
    x, y = kiln.asarray(a, device=device), kiln.asarray(b, device=device)
    close(x + y, a + b)
    close(x - y, a - b)
    close(x * y, a * b)
    close(x / (y * y + 1), a / (b * b + 1))
    close(abs(x) ** 1.5, np.abs(a) ** 1.5, rtol=1e-4)
    close(kiln.maximum(x, y), np.maximum(a, b))
    close(kiln.minimum(x, y), np.minimum(a, b))


@pytest.mark.parametrize("device", DEVICES, ids=str)
def test_scalars_on_either_side(device):
    a = rand(2, 3)
    x = kiln.asarray(a, device=device)
    close(x + 2, a + 2)
    close(2 - x, 2 - a)
    close(x * 0.5, a * 0.5)
    close(1 / (x * x + 1), 1 / (a * a + 1))
    close(-x, -a)
    i = kiln.asarray(np.arange(6).reshape(2, 3), device=device)
    close(i * 3, np.arange(6).reshape(2, 3) * 3)
    close(i % 4, np.arange(6).reshape(2, 3) % 4)


@pytest.mark.parametrize("device", DEVICES, ids=str)
def test_comparisons_and_where(device):
    a, b = rand(3, 4), rand(3, 4)
    x, y = kiln.asarray(a, device=device), kiln.asarray(b, device=device)
    for op in ["__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"]:
        got = getattr(x, op)(y)
        assert got.dtype == kiln.bool_
        np.testing.assert_array_equal(got.numpy(), getattr(a, op)(b))
    np.testing.assert_array_equal((x > 0).numpy(), a > 0)
    close(kiln.where(x > y, x, y), np.where(a > b, a, b))
    close(kiln.where(x > 0, x, 0.0), np.where(a > 0, a, 0))
    np.testing.assert_array_equal(((x > 0) & (y > 0)).numpy(),
                                  (a > 0) & (b > 0))
    np.testing.assert_array_equal((~(x > 0)).numpy(), ~(a > 0))


@pytest.mark.parametrize("device", DEVICES, ids=str)
def test_matmul(device):
    a, b = rand(2, 5, 7), rand(7, 3)
    close(kiln.asarray(a, device=device) @ kiln.asarray(b, device=device),
          a @ b, rtol=1e-4, atol=1e-5)
    close(kiln.matmul(kiln.asarray(a[0], device=device),
                      kiln.asarray(b, device=device)), a[0] @ b, rtol=1e-4,
          atol=1e-5)


@pytest.mark.parametrize("device", DEVICES, ids=str)
def test_reductions(device):
    a = rand(3, 4, 5)
    x = kiln.asarray(a, device=device)
    for name in ["sum", "mean", "max", "min", "prod"]:
        f, ref = getattr(kiln, name), getattr(np, name)
        close(f(x), ref(a), rtol=1e-4)
        close(f(x, axis=1), ref(a, axis=1), rtol=1e-4)
        close(f(x, axis=(0, 2), keepdims=True),
              ref(a, axis=(0, 2), keepdims=True), rtol=1e-4)
        close(f(x, axis=-1), ref(a, axis=-1), rtol=1e-4)
    close(x.sum(axis=0), a.sum(axis=0), rtol=1e-5)
    np.testing.assert_array_equal(kiln.argmax(x, axis=1).numpy(),
                                  np.argmax(a, axis=1))
    np.testing.assert_array_equal(kiln.argmin(x, axis=0).numpy(),
                                  np.argmin(a, axis=0))
    np.testing.assert_array_equal(kiln.any(x > 1, axis=2).numpy(),
                                  np.any(a > 1, axis=2))
    close(kiln.cumsum(x, axis=1), np.cumsum(a, axis=1), rtol=1e-5)
    e = np.exp(a - a.max(-1, keepdims=True))
    close(kiln.softmax(x, axis=-1), e / e.sum(-1, keepdims=True))
    close(kiln.logsumexp(x, axis=-1), np.log(np.exp(a).sum(-1)), rtol=1e-5)


@pytest.mark.parametrize("device", DEVICES, ids=str)
def test_shape_ops(device):
    a = rand(2, 3, 4)
    x = kiln.asarray(a, device=device)
    close(x.reshape(4, 6), a.reshape(4, 6))
    close(kiln.reshape(x, (-1, 4)), a.reshape(-1, 4))
    close(x.T, a.T)
    close(kiln.transpose(x, (1, 0, 2)), a.transpose(1, 0, 2))
    close(kiln.swapaxes(x, 0, 2), np.swapaxes(a, 0, 2))
    close(kiln.expand_dims(x, 1), np.expand_dims(a, 1))
    close(kiln.squeeze(kiln.expand_dims(x, 0)), a)
    close(kiln.broadcast_to(kiln.asarray(a[:1], device=device), (5, 3, 4)),
          np.broadcast_to(a[:1], (5, 3, 4)))
    close(kiln.concatenate([x, x * 2], axis=1),
          np.concatenate([a, a * 2], axis=1))
    close(kiln.stack([x, x], axis=0), np.stack([a, a]))
    parts = kiln.split(x, 2, axis=2)
    for p, q in zip(parts, np.split(a, 2, axis=2)):
        close(p, q)
    close(kiln.flip(x, axis=1), np.flip(a, axis=1))
    close(kiln.tile(x, (1, 2, 1)), np.tile(a, (1, 2, 1)))
    close(kiln.pad(x, [(0, 0), (1, 2), (0, 1)]),
          np.pad(a, [(0, 0), (1, 2), (0, 1)]))


@pytest.mark.parametrize("device", DEVICES, ids=str)
def test_indexing(device):
    a = rand(5, 6, 7)
    x = kiln.asarray(a, device=device)
    for key in [1, -1, (slice(1, 3),), (slice(None, None, 2),),
                (1, slice(None), 3), (slice(1, 3), slice(None, None, 2), None),
                (Ellipsis, 2), (None, Ellipsis, slice(0, 4)),
                (slice(None, None, -1),), (slice(4, 0, -2), 1),
                (slice(2, 2),), (0, None, slice(1, 6, 3))]:
        close(x[key], a[key])
    idx = np.array([4, 0, 2])
    close(x[idx], a[idx])
    close(x[:, [1, 5]], a[:, [1, 5]])
    close(x[1][:, np.array([0, 6])], a[1][:, np.array([0, 6])])
    close(x[:, np.array([[0, 1], [5, 4]])], a[:, np.array([[0, 1], [5, 4]])])
    close(x[kiln.asarray([3, 3], device=device)], a[[3, 3]])


def test_functional_update():
    a = np.zeros((3, 4), np.float32)
    x = kiln.asarray(a)
    y = x.at[1, 1:3].set(5.0)
    a2 = a.copy()
    a2[1, 1:3] = 5
    close(y, a2)
    close(x, a)  # the original is unchanged
    with pytest.raises(TypeError, match="values"):
        x[0] = 1.0


@pytest.mark.parametrize("device", DEVICES, ids=str)
def test_more_ops(device):
    import math
    a, b = rand(4, 6), rand(4, 6)
    x, y = kiln.asarray(a, device=device), kiln.asarray(b, device=device)
    erf = np.vectorize(math.erf)
    close(kiln.erf(x), erf(a), rtol=1e-5, atol=1e-6)
    close(kiln.round(x * 3), np.round(a * 3))
    close(kiln.clip(x, -0.5, 0.5), np.clip(a, -0.5, 0.5))
    np.testing.assert_array_equal(kiln.isnan(kiln.log(x)).numpy(), a < 0)
    close(kiln.arctan2(x, y), np.arctan2(a, b), rtol=1e-5, atol=1e-6)
    close(kiln.remainder(x, kiln.abs(y) + 0.5),
          np.remainder(a, np.abs(b) + 0.5), rtol=1e-5, atol=1e-6)
    close(kiln.log_softmax(x, axis=1),
          a - np.log(np.exp(a).sum(1, keepdims=True)), rtol=1e-5, atol=1e-6)
    close(kiln.gelu(x), 0.5 * a * (1 + erf(a / np.sqrt(2))), rtol=1e-5,
          atol=1e-6)
    close(kiln.silu(x), a / (1 + np.exp(-a)), rtol=1e-5, atol=1e-6)
    idx = RNG.integers(0, 6, (4, 2))
    close(kiln.take_along_axis(x, idx, axis=1),
          np.take_along_axis(a, idx, axis=1))
    labels = RNG.integers(0, 6, 4)
    close(kiln.one_hot(kiln.asarray(labels, device=device), 6),
          np.eye(6, dtype=np.float32)[labels])
    lse = np.log(np.exp(a).sum(1))
    close(kiln.nn.cross_entropy(x, kiln.asarray(labels, device=device)),
          np.float32((lse - a[np.arange(4), labels]).mean()), rtol=1e-5)
    p, q = x > 0, y > 0
    np.testing.assert_array_equal(kiln.logical_or(p, q).numpy(),
                                  (a > 0) | (b > 0))
    np.testing.assert_array_equal(kiln.logical_and(p, q).numpy(),
                                  (a > 0) & (b > 0))
    np.testing.assert_array_equal(kiln.all(p, axis=1).numpy(),
                                  (a > 0).all(1))


def test_the_python_layer_s_own_errors():
    x = kiln.asarray(rand(4, 6))
    with pytest.raises(kiln.Error, match="do not split into 4 equal parts"):
        kiln.split(x, 4, axis=1)
    with pytest.raises(kiln.Error, match="only one ellipsis"):
        x[..., 0, ...]
    with pytest.raises(kiln.Error, match="more than one index array"):
        x[[0, 1], [1, 2]]
    with pytest.raises(kiln.Error, match="must hold integers"):
        x[np.array([0.5])]
    with pytest.raises(kiln.Error, match="argnums 1 but only 1 arguments"):
        kiln.grad(lambda a: kiln.sum(a), argnums=1)(x)
    with pytest.raises(kiln.Error, match="argument 0 is a float"):
        kiln.grad(lambda a: a)(1.0)
    with pytest.raises(kiln.Error, match="parameters must be kiln.Tensor"):
        kiln.optim.SGD([1.0], lr=0.1)
    with pytest.raises(kiln.Error, match="no parameters"):
        kiln.optim.AdamW([])
    with pytest.raises(kiln.Error, match="ints, slices"):
        x.at[None, 0].set(1.0)
    with pytest.raises(kiln.Error, match="kiln has no dtype"):
        kiln.from_dlpack(np.zeros(4, np.complex64))


def test_dtype_errors():
    with pytest.raises(kiln.Error, match="ragged|mixed"):
        kiln.asarray([[1, 2], [3]])
    with pytest.raises(kiln.Error, match="float"):
        kiln.grad(lambda x: kiln.sum(x))(kiln.asarray([1, 2]))
    with pytest.raises(kiln.Error, match="not an integer"):
        kiln.asarray([1, 2]) + 0.5


# --- Interop ----------------------------------------------------------------


def test_numpy_is_zero_copy_and_read_only():
    t = kiln.asarray(np.arange(12, dtype=np.float32).reshape(3, 4)) + 1
    a = t.numpy()
    b = t.numpy()
    assert a.ctypes.data == b.ctypes.data
    assert not a.flags.writeable
    np.testing.assert_array_equal(np.asarray(t), a)
    # A view (a transpose of a materialized tensor) keeps its strides.
    v = t.T
    np.testing.assert_array_equal(np.asarray(v), a.T)


def test_numpy_array_outlives_tensor():
    t = kiln.asarray(np.arange(1000, dtype=np.float64)) * 2
    a = t.numpy()
    del t
    import gc
    gc.collect()
    np.testing.assert_array_equal(a, np.arange(1000) * 2)


def test_item_and_conversions():
    t = kiln.sum(kiln.asarray([1.5, 2.5]))
    assert t.item() == 4.0 and float(t) == 4.0
    assert int(kiln.asarray([7])) == 7
    assert bool(kiln.asarray(True)) is True
    assert isinstance(kiln.asarray([3]).item(), int)
    with pytest.raises(kiln.Error, match="ambiguous"):
        bool(kiln.asarray([1, 2]))
    with pytest.raises(kiln.Error, match="3 elements, not one"):
        kiln.asarray([1, 2, 3]).item()


def test_eval_takes_trees():
    a = kiln.asarray([1.0]) + 1
    b = kiln.asarray([2.0]) * 2
    c = kiln.asarray([3.0]) - 1
    kiln.eval({"a": a, "rest": [b, (c,)]})
    assert not a.is_pending and not b.is_pending and not c.is_pending


def test_cpu_and_flex_agree():
    a = rand(16, 32)
    got = []
    for d in DEVICES:
        x = kiln.asarray(a, device=d)
        got.append(kiln.softmax(kiln.tanh(x) @ x.T * 0.1, axis=-1).numpy())
    np.testing.assert_allclose(got[0], got[1], rtol=1e-5, atol=1e-6)


# --- Errors ------------------------------------------------------------------


def test_errors_are_kiln_errors_with_the_message():
    assert issubclass(kiln.Error, ValueError)
    x = kiln.asarray(rand(2, 3))
    with pytest.raises(kiln.Error, match=r"\[2, 3\].*\[4\]|\[4\].*\[2, 3\]"):
        x + kiln.asarray(rand(4))
    with pytest.raises(kiln.Error, match="matmul"):
        x @ kiln.asarray(rand(2, 3))
    with pytest.raises(kiln.Error, match="out of bounds"):
        x[5]
    with pytest.raises(kiln.Error, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(kiln.Error, match="boolean mask"):
        x[np.array([True, False])]
    with pytest.raises(kiln.Error, match="reshape"):
        x.reshape(4, -1)
    with pytest.raises(kiln.Error, match="two devices|devices"):
        x + kiln.asarray(rand(2, 3), device=kiln.flex())


def test_a_bad_index_known_only_at_run_time_is_an_error():
    x = kiln.asarray(rand(4, 3))
    # The indices are computed: only the run sees them.
    bad = kiln.asarray([0, 4]) * 2 + 1
    assert bad.is_pending
    y = kiln.take(x, bad, axis=0)
    with pytest.raises(kiln.Error, match="9"):
        y.numpy()
    # Nothing was lost: x still reads.
    assert x.numpy().shape == (4, 3)


# --- Autodiff ----------------------------------------------------------------


def numeric_grad(f, a, eps=1e-6):
    g = np.zeros_like(a, dtype=np.float64)
    for i in np.ndindex(a.shape):
        p, m = a.copy(), a.copy()
        p[i] += eps
        m[i] -= eps
        g[i] = (f(p) - f(m)) / (2 * eps)
    return g


@pytest.mark.parametrize("device", DEVICES, ids=str)
def test_value_and_grad_matches_finite_differences(device):
    a = rand(3, 4).astype(np.float64)
    w = rand(4, 2).astype(np.float64)

    def loss(x, w):
        h = kiln.tanh(x @ w)
        return kiln.sum(kiln.softmax(h, axis=-1) * h) + kiln.mean(x * x)

    f = kiln.value_and_grad(loss, argnums=(0, 1))
    val, (gx, gw) = f(kiln.asarray(a, device=device),
                      kiln.asarray(w, device=device))

    def np_loss(x, w):
        h = np.tanh(x @ w)
        e = np.exp(h - h.max(-1, keepdims=True))
        s = e / e.sum(-1, keepdims=True)
        return float((s * h).sum() + (x * x).mean())

    assert abs(val.item() - np_loss(a, w)) < 1e-9
    close(gx, numeric_grad(lambda x: np_loss(x, w), a), rtol=1e-5, atol=1e-7)
    close(gw, numeric_grad(lambda v: np_loss(a, v), w), rtol=1e-5, atol=1e-7)


def test_grad_of_an_unused_argument_is_zero_and_no_grad_blocks():
    g = kiln.grad(lambda x, y: kiln.sum(x * 2), argnums=1)
    close(g(kiln.asarray([1.0, 2.0]), kiln.asarray([3.0])), np.zeros(1))

    def f(x):
        with kiln.no_grad():
            y = x * 3
        return kiln.sum(x * y)

    a = np.array([1.0, 2.0], np.float32)
    close(kiln.grad(f)(kiln.asarray(a)), 3 * a)
    with pytest.raises(kiln.Error, match="one-element"):
        kiln.grad(lambda x: x * 2)(kiln.asarray([1.0, 2.0]))


# --- Memory --------------------------------------------------------------------


RSS_SCRIPT = """
import numpy as np
import kiln

def resident_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

x = kiln.asarray(np.ones(16, np.float32))

def chain():
    y = x
    for _ in range(100_000):
        y = y * 1.0001 + 0.5
    del y

# Growth per chain after two warm-up chains (malloc's arenas and the node
# pool reach their steady state); a leak of one node per op grows ~70 MiB
# every chain, while the allocator may step once.
chain()
chain()
steps = []
for _ in range(6):
    before = resident_mib()
    chain()
    steps.append(resident_mib() - before)
print(" ".join("%.2f" % s for s in steps))
"""


def test_recording_and_dropping_ops_leaves_memory_flat():
    # In a process of its own: other tests' memory would blur the figure.
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", RSS_SCRIPT], check=True,
                         capture_output=True, text=True).stdout
    steps = sorted(float(v) for v in out.split())
    assert steps[len(steps) // 2] < 2, "MiB of growth per chain: " + out


# --- DLPack ----------------------------------------------------------------------


def aligned(values):
    """A float32 numpy array at a 64-byte boundary (whole 64-byte lines)."""
    n = len(values)
    buf = np.empty(n + 16, np.float32)
    off = (-buf.ctypes.data % 64) // 4
    a = buf[off:off + n]
    a[:] = values
    assert a.ctypes.data % 64 == 0
    return a


def test_dlpack_from_kiln_to_numpy_shares_memory():
    t = kiln.asarray(np.arange(48, dtype=np.float32).reshape(3, 16)) * 2
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.numpy().ctypes.data
    assert not a.flags.writeable
    np.testing.assert_array_equal(a, np.arange(48).reshape(3, 16) * 2)
    assert t.__dlpack_device__() == (1, 0)


def test_dlpack_from_numpy_to_kiln_shares_memory_and_never_writes_it():
    a = aligned(np.arange(32, dtype=np.float32))
    keep = a.copy()
    t = kiln.from_dlpack(a)
    assert t.numpy().ctypes.data == a.ctypes.data
    # A temporary over shared memory is neither reused for the result nor
    # written in place.
    y = kiln.from_dlpack(a) * 3 + 1
    np.testing.assert_array_equal(y.numpy(), keep * 3 + 1)
    np.testing.assert_array_equal(a, keep)
    # The memory stays alive as long as Kiln reads it.
    del a
    import gc
    gc.collect()
    np.testing.assert_array_equal((t + 0).numpy(), keep)


def test_dlpack_shares_numpy_memory_kiln_does_not_align():
    b = np.arange(40, dtype=np.float32)  # numpy aligns to 16 bytes only
    for device in DEVICES:
        t = kiln.from_dlpack(b, device=device)
        assert t.numpy().ctypes.data == b.ctypes.data
        close(kiln.exp(t * 0.1), np.exp(b * 0.1), rtol=1e-6)
    # Shared: a change to the array shows in the tensor's next use.
    t = kiln.from_dlpack(b)
    b[0] = 100.0
    assert float(kiln.sum(t)) == float(b.sum())
    # Negative strides are copied.
    r = kiln.from_dlpack(b[::-1].copy()[::-1])
    np.testing.assert_array_equal(r.numpy(), b)


# --- Interrupts ------------------------------------------------------------------


def test_ctrl_c_interrupts_a_long_eval_and_loses_nothing():
    import os
    import signal
    import threading
    import time

    a = (RNG.standard_normal((1536, 1536)) * (1 / 40)).astype(np.float32)
    x = kiln.asarray(a)
    y = x
    for _ in range(40):  # seconds of work
        y = kiln.tanh(y @ x)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        kiln.eval(y)
    waited = time.perf_counter() - t0
    timer.join()
    assert y.is_pending, "the eval ended before the interrupt: make it longer"
    assert waited < 1.0, waited
    # The graph goes on in the background; reading waits for it.
    want = a
    for _ in range(40):
        want = np.tanh(want @ a)
    close(y, want, rtol=1e-3, atol=1e-4)


def test_the_buffer_protocol_is_a_read_only_view():
    t = kiln.asarray(np.arange(12, dtype=np.int32).reshape(3, 4)) * 3
    m = memoryview(t)
    assert m.readonly and m.format == "i" and m.shape == (3, 4)
    assert m.tolist() == (np.arange(12).reshape(3, 4) * 3).tolist()
    a = np.frombuffer(t, dtype=np.int32)
    assert a.ctypes.data == t.numpy().ctypes.data
    # A transposed view keeps its strides.
    assert memoryview(t.T).strides == (4, 16)
    with pytest.raises(BufferError, match="bf16"):
        memoryview(t.astype(kiln.bfloat16))


def test_argsort_sort_and_topk_are_stable_and_match_numpy():
    a = np.array([[3, 1, 2, 1, np.nan, 0], [5, 5, -1, 2, 2, 7]],
                 dtype=np.float32)
    x = kiln.asarray(a, device=kiln.cpu())
    np.testing.assert_array_equal(np.asarray(kiln.argsort(x)),
                                  np.argsort(a, axis=-1, kind="stable"))
    np.testing.assert_array_equal(np.asarray(kiln.sort(x, axis=0)),
                                  np.sort(a, axis=0, kind="stable"))
    values, indices = kiln.topk(x, 2)
    np.testing.assert_array_equal(np.asarray(indices), [[4, 0], [5, 0]])
    np.testing.assert_array_equal(np.asarray(values)[1], [7, 5])
    assert np.isnan(np.asarray(values)[0, 0])
    with pytest.raises(kiln.Error, match="topk: k = 9 is not in"):
        kiln.topk(x, 9)
