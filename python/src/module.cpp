//===- module.cpp - The kiln Python extension (_kiln) ---------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// nanobind bindings of the public C++ API (kiln/Kiln.h): tensors, devices,
// dtypes, the ops, autodiff and materialization. The Python conventions
// (axis=, keepdims=, indexing, trees of tensors) live in kiln/__init__.py
// over these. Every call that compiles or runs a graph releases the GIL;
// kiln::Error becomes kiln.Error, a ValueError.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "kiln/Kiln.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>

#include <unistd.h>

namespace nb = nanobind;
using namespace nb::literals;
using kiln::DispatchDevice;
using kiln::DispatchTensor;
using kiln::DType;
using kiln::DTypeKind;
using kiln::Shape;

namespace {

/// Each kiln dtype with its DLPack code and bits (one lane) and its
/// struct-module format (the buffer protocol's; none for bf16).
struct DLPackDType {
  DTypeKind kind;
  nb::dlpack::dtype_code code;
  uint8_t bits;
  const char *format;
};
constexpr DLPackDType kDLPackDTypes[] = {
    {DTypeKind::F64, nb::dlpack::dtype_code::Float, 64, "d"},
    {DTypeKind::F32, nb::dlpack::dtype_code::Float, 32, "f"},
    {DTypeKind::F16, nb::dlpack::dtype_code::Float, 16, "e"},
    {DTypeKind::BF16, nb::dlpack::dtype_code::Bfloat, 16, nullptr},
    {DTypeKind::I64, nb::dlpack::dtype_code::Int, 64, "q"},
    {DTypeKind::I32, nb::dlpack::dtype_code::Int, 32, "i"},
    {DTypeKind::I16, nb::dlpack::dtype_code::Int, 16, "h"},
    {DTypeKind::I8, nb::dlpack::dtype_code::Int, 8, "b"},
    {DTypeKind::U8, nb::dlpack::dtype_code::UInt, 8, "B"},
    {DTypeKind::Bool, nb::dlpack::dtype_code::Bool, 8, "?"},
};

/// The DLPack dtype of a kiln dtype numpy can hold.
nb::dlpack::dtype dlpackOf(DType d) {
  if (d.kind() != DTypeKind::BF16)
    for (const DLPackDType &e : kDLPackDTypes)
      if (e.kind == d.kind())
        return {static_cast<uint8_t>(e.code), e.bits, 1};
  throw kiln::Error("numpy has no " + d.str() +
                    " dtype: cast the tensor first (t.astype(kiln.float32))");
}

/// The kiln dtype of a DLPack dtype, or an error naming it.
DType dtypeOf(nb::dlpack::dtype t) {
  if (t.lanes == 1)
    for (const DLPackDType &e : kDLPackDTypes)
      if (static_cast<uint8_t>(e.code) == t.code && e.bits == t.bits)
        return DType(e.kind);
  throw kiln::Error("kiln has no dtype for an array of code " +
                    std::to_string(t.code) + ", " + std::to_string(t.bits) +
                    " bits, " + std::to_string(t.lanes) + " lanes");
}

/// The host view of a materialized tensor (a Cuda tensor is copied to the
/// Cpu backend first). Releases the GIL while the graph runs.
kiln::BackendTensor hostTensor(const DispatchTensor &t) {
  // Shared with the work, which an interrupt leaves running.
  auto out = std::make_shared<kiln::BackendTensor>();
  kiln::python::runReleased([out, t] {
    switch (t.device().kind()) {
    case kiln::DeviceKind::Flex:
      *out = t.try_into_backend<kiln::Flex>();
      break;
    case kiln::DeviceKind::Cpu:
      *out = t.try_into_backend<kiln::Cpu>();
      break;
    default:
      *out = t.to(DispatchDevice::cpu()).try_into_backend<kiln::Cpu>();
    }
  });
  return *out;
}

/// A read-only view of the tensor's host buffer for `Framework` (numpy; or
/// array_api: the buffer protocol, __dlpack__ and __dlpack_device__): no
/// copy, and the buffer lives as long as the view does.
template <typename Framework>
nb::ndarray<Framework, nb::ro> hostView(const DispatchTensor &t,
                                        const char *what) {
  if (t.dtype().isQuantized())
    throw kiln::Error(std::string(what) + ": a quantized tensor has no such "
                                          "form; dequantize it first");
  nb::dlpack::dtype dt = dlpackOf(t.dtype());
  auto *held = new kiln::BackendTensor(hostTensor(t));
  nb::capsule owner(held, [](void *p) noexcept {
    delete static_cast<kiln::BackendTensor *>(p);
  });
  std::vector<size_t> shape(held->shape.begin(), held->shape.end());
  std::vector<int64_t> strides(held->strides.begin(), held->strides.end());
  return nb::ndarray<Framework, nb::ro>(const_cast<void *>(held->data()),
                                        shape.size(), shape.data(), owner,
                                        strides.data(), dt);
}

nb::ndarray<nb::numpy, nb::ro> toNumpy(const DispatchTensor &t) {
  return hostView<nb::numpy>(t, "numpy");
}

nb::ndarray<nb::array_api, nb::ro> toDLPack(const DispatchTensor &t) {
  return hostView<nb::array_api>(t, "__dlpack__");
}

using HostArray = nb::ndarray<nb::ro, nb::device::cpu>;

/// A tensor sharing the memory of any DLPack or buffer-protocol host array
/// (nothing, for the caller to copy, with negative strides or on Cuda).
std::optional<DispatchTensor> shareArray(HostArray a,
                                         std::optional<DispatchDevice> device) {
  DispatchDevice dev = device ? *device : DispatchDevice::defaultDevice();
  if (dev.kind() == kiln::DeviceKind::Cuda)
    return std::nullopt;
  DType d = dtypeOf(a.dtype());
  std::vector<int64_t> dims, strides;
  int64_t last = 0;
  for (size_t i = 0; i < a.ndim(); ++i) {
    dims.push_back(static_cast<int64_t>(a.shape(i)));
    strides.push_back(a.stride(i));
    if (a.stride(i) < 0)
      return std::nullopt;
    if (a.shape(i) == 0)
      last = -1;
    if (last >= 0)
      last += (static_cast<int64_t>(a.shape(i)) - 1) * a.stride(i);
  }
  size_t extent = last < 0 ? 0 : size_t(last + 1) * d.byteSize();
  auto *keep = new HostArray(a);
  auto release = [keep] {
    // The last reference may go on any thread, or after the interpreter.
    if (!nb::is_alive())
      return;
    nb::gil_scoped_acquire gil;
    delete keep;
  };
  return DispatchTensor::fromExternal(d, Shape(dims), strides,
                                      const_cast<void *>(a.data()), extent,
                                      release, dev);
}

/// What a buffer-protocol view of a tensor holds: the host buffer (kept
/// alive) and the shape and byte strides the view points at.
struct BufferView {
  kiln::BackendTensor host;
  std::vector<Py_ssize_t> shape, strides;
};

/// The struct-module format of an element of `d` (null: none).
const char *bufferFormat(DType d) {
  for (const DLPackDType &e : kDLPackDTypes)
    if (e.kind == d.kind())
      return e.format;
  return nullptr;
}

/// bf_getbuffer of kiln.Tensor: a read-only view of the materialized host
/// buffer (memoryview(t), numpy without __array__), no copy.
int tensorGetBuffer(PyObject *self, Py_buffer *view, int flags) {
  try {
    const DispatchTensor &t =
        nb::cast<const DispatchTensor &>(nb::handle(self));
    if (flags & PyBUF_WRITABLE)
      throw nb::buffer_error("kiln tensors are read-only");
    const char *format = bufferFormat(t.dtype());
    if (!format)
      throw kiln::Error("the buffer protocol has no " + t.dtype().str() +
                        " format: cast the tensor first");
    auto held = std::make_unique<BufferView>();
    held->host = hostTensor(t);
    Py_ssize_t item = static_cast<Py_ssize_t>(t.dtype().byteSize());
    for (size_t i = 0; i < held->host.shape.rank(); ++i) {
      held->shape.push_back(held->host.shape[i]);
      held->strides.push_back(held->host.strides[i] * item);
    }
    view->buf = const_cast<void *>(held->host.data());
    view->obj = self;
    Py_INCREF(self);
    view->len = t.numel() * item;
    view->readonly = 1;
    view->itemsize = item;
    view->format =
        (flags & PyBUF_FORMAT) ? const_cast<char *>(format) : nullptr;
    view->ndim = static_cast<int>(held->shape.size());
    view->shape = held->shape.data();
    view->strides = held->strides.data();
    view->suboffsets = nullptr;
    view->internal = held.release();
    return 0;
  } catch (nb::python_error &e) {
    e.restore();
  } catch (const nb::builtin_exception &e) {
    PyErr_SetString(PyExc_BufferError, e.what());
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_BufferError, e.what());
  }
  view->obj = nullptr;
  return -1;
}

void tensorReleaseBuffer(PyObject *, Py_buffer *view) {
  delete static_cast<BufferView *>(view->internal);
}

PyType_Slot tensorSlots[] = {
    {Py_bf_getbuffer, reinterpret_cast<void *>(tensorGetBuffer)},
    {Py_bf_releasebuffer, reinterpret_cast<void *>(tensorReleaseBuffer)},
    {0, nullptr}};

/// A tensor with a copy of a host array's values.
DispatchTensor fromArray(nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu> a,
                         std::optional<DispatchDevice> device) {
  std::vector<int64_t> dims;
  for (size_t i = 0; i < a.ndim(); ++i)
    dims.push_back(static_cast<int64_t>(a.shape(i)));
  DType d = dtypeOf(a.dtype());
  DispatchDevice dev = device ? *device : DispatchDevice::defaultDevice();
  return DispatchTensor::fromData(d, a.data(), a.size(), Shape(dims), dev);
}

std::vector<int64_t> dimsOf(const DispatchTensor &t) {
  return t.shape().dims();
}

nb::tuple shapeTuple(const DispatchTensor &t) {
  nb::list l;
  for (int64_t d : t.shape())
    l.append(d);
  return nb::tuple(l);
}

/// The value of a one-element tensor as a Python number or bool.
nb::object itemOf(const DispatchTensor &t) {
  if (t.numel() != 1)
    throw kiln::Error("item: the tensor has " + std::to_string(t.numel()) +
                      " elements, not one (shape " + t.shape().str() + ")");
  DType d = t.dtype();
  // As a double (exact for every int32 and bool; int64 through I64).
  auto value = std::make_shared<std::pair<int64_t, double>>();
  kiln::python::runReleased([value, t, d] {
    if (d.isBool())
      value->first = t.item<bool>();
    else if (d.isInteger())
      value->first = kiln::cast(t, DType::I64).item<int64_t>();
    else
      value->second = kiln::cast(t, DType::F64).item<double>();
  });
  if (d.isBool())
    return nb::bool_(value->first != 0);
  if (d.isInteger())
    return nb::int_(value->first);
  return nb::float_(value->second);
}

/// The guards of the no_grad() contexts this thread is inside.
std::deque<kiln::NoGradGuard> &noGradGuards() {
  thread_local std::deque<kiln::NoGradGuard> guards;
  return guards;
}

} // namespace

NB_MODULE(_kiln, m) {
  m.doc() = "Kiln's C++ API: lazy tensors recorded into a graph that is "
            "fused, compiled once and cached";
  nb::exception<kiln::Error>(m, "Error", PyExc_ValueError);

  nb::class_<DType>(m, "Dtype")
      .def_prop_ro("name", &DType::str)
      .def_prop_ro("itemsize", &DType::byteSize)
      .def_prop_ro("is_floating", &DType::isFloat)
      .def_prop_ro("is_integer", &DType::isInteger)
      .def(
          "__eq__", [](const DType &a, const DType &b) { return a == b; },
          nb::is_operator())
      .def(
          "__ne__", [](const DType &a, const DType &b) { return a != b; },
          nb::is_operator())
      .def("__hash__",
           [](const DType &d) { return std::hash<std::string>()(d.str()); })
      .def("__repr__", [](const DType &d) { return "kiln." + d.str(); });
  m.attr("float64") = DType::F64;
  m.attr("float32") = DType::F32;
  m.attr("float16") = DType::F16;
  m.attr("bfloat16") = DType::BF16;
  m.attr("int64") = DType::I64;
  m.attr("int32") = DType::I32;
  m.attr("int16") = DType::I16;
  m.attr("int8") = DType::I8;
  m.attr("uint8") = DType::U8;
  m.attr("bool_") = DType::Bool;

  nb::class_<DispatchDevice>(m, "Device")
      .def_prop_ro("kind",
                   [](const DispatchDevice &d) {
                     return d.backend().str().substr(0, 4) == "cuda"
                                ? std::string("cuda")
                                : d.backend().str();
                   })
      .def_prop_ro("index", &DispatchDevice::index)
      .def("sync",
           [](const DispatchDevice &d) {
             kiln::python::runReleased([d] { d.sync(); });
           })
      .def(
          "__eq__",
          [](const DispatchDevice &a, const DispatchDevice &b) {
            return a == b;
          },
          nb::is_operator())
      .def(
          "__ne__",
          [](const DispatchDevice &a, const DispatchDevice &b) {
            return a != b;
          },
          nb::is_operator())
      .def("__hash__",
           [](const DispatchDevice &d) {
             return std::hash<std::string>()(d.str());
           })
      .def("__repr__", [](const DispatchDevice &d) {
        return "kiln.Device(" + d.str() + ")";
      });
  // Reads one byte from file descriptor `fd` the way a materialization
  // runs (runReleased): a test that another thread can run Python while
  // it blocks, i.e. that the GIL is released.
  m.def("_released_read", [](int fd) {
    kiln::python::runReleased([fd] {
      char c;
      while (::read(fd, &c, 1) < 0 && errno == EINTR) {
      }
    });
  });
  m.def("cpu", &DispatchDevice::cpu);
  m.def("flex", &DispatchDevice::flex);
  m.def("cuda", &DispatchDevice::cuda, "index"_a = 0);
  m.def("default_device", &DispatchDevice::defaultDevice);
  m.def("available_devices", &DispatchDevice::available);
  m.def("set_num_threads", &kiln::setNumThreads);
  m.def("num_threads", &kiln::numThreads);
  m.def("compile_count", [](const DispatchDevice &d) {
    return kiln::backendCounters(d).compiles;
  });

  nb::class_<DispatchTensor> tensor(m, "Tensor", nb::type_slots(tensorSlots));
  tensor.def_prop_ro("shape", &shapeTuple)
      .def_prop_ro("dims", &dimsOf)
      .def_prop_ro("dtype", &DispatchTensor::dtype)
      .def_prop_ro("device", &DispatchTensor::device)
      .def_prop_ro("ndim", [](const DispatchTensor &t) { return t.rank(); })
      .def_prop_ro("size", &DispatchTensor::numel)
      .def_prop_ro("is_pending", &DispatchTensor::isPending)
      .def_prop_ro(
          "is_tracked",
          [](const DispatchTensor &t) { return t.checkpointing.has_value(); })
      .def("__len__",
           [](const DispatchTensor &t) {
             if (t.rank() == 0)
               throw nb::type_error("len() of a 0-d tensor");
             return t.shape()[0];
           })
      .def("numpy", &toNumpy)
      .def("item", &itemOf)
      .def("eval",
           [](const DispatchTensor &t) {
             kiln::python::runReleased([t] { t.sync(); });
           })
      .def("to",
           [](const DispatchTensor &t, const DispatchDevice &d) {
             auto out = std::make_shared<DispatchTensor>();
             kiln::python::runReleased([out, t, d] { *out = t.to(d); });
             return *out;
           })
      .def("astype",
           [](const DispatchTensor &t, DType d) { return kiln::cast(t, d); })
      .def("detach", &DispatchTensor::detach)
      .def("mark_dynamic", [](DispatchTensor &t, int64_t dim) {
        t.markDynamic(dim);
        return t;
      });

  // Operators: tensors and Python numbers (a number takes the tensor's
  // dtype).
  using T = const DispatchTensor &;
  tensor.def("__neg__", [](T x) { return -x; })
      .def("__abs__", [](T x) { return kiln::abs(x); })
      .def(
          "__add__", [](T x, T y) { return x + y; }, nb::is_operator())
      .def(
          "__add__", [](T x, double y) { return x + y; }, nb::is_operator())
      .def(
          "__radd__", [](T x, double y) { return y + x; }, nb::is_operator())
      .def(
          "__sub__", [](T x, T y) { return x - y; }, nb::is_operator())
      .def(
          "__sub__", [](T x, double y) { return x - y; }, nb::is_operator())
      .def(
          "__rsub__", [](T x, double y) { return y - x; }, nb::is_operator())
      .def(
          "__mul__", [](T x, T y) { return x * y; }, nb::is_operator())
      .def(
          "__mul__", [](T x, double y) { return x * y; }, nb::is_operator())
      .def(
          "__rmul__", [](T x, double y) { return y * x; }, nb::is_operator())
      .def(
          "__truediv__", [](T x, T y) { return x / y; }, nb::is_operator())
      .def(
          "__truediv__", [](T x, double y) { return x / y; }, nb::is_operator())
      .def(
          "__rtruediv__", [](T x, double y) { return y / x; },
          nb::is_operator())
      .def(
          "__mod__", [](T x, T y) { return x % y; }, nb::is_operator())
      .def(
          "__mod__", [](T x, double y) { return x % y; }, nb::is_operator())
      .def(
          "__pow__", [](T x, T y) { return kiln::pow(x, y); },
          nb::is_operator())
      .def(
          "__pow__", [](T x, double y) { return kiln::pow(x, y); },
          nb::is_operator())
      .def(
          "__matmul__", [](T x, T y) { return kiln::matmul(x, y); },
          nb::is_operator())
      .def(
          "__eq__", [](T x, T y) { return x == y; }, nb::is_operator())
      .def(
          "__eq__", [](T x, double y) { return x == y; }, nb::is_operator())
      .def(
          "__ne__", [](T x, T y) { return x != y; }, nb::is_operator())
      .def(
          "__ne__", [](T x, double y) { return x != y; }, nb::is_operator())
      .def(
          "__lt__", [](T x, T y) { return x < y; }, nb::is_operator())
      .def(
          "__lt__", [](T x, double y) { return x < y; }, nb::is_operator())
      .def(
          "__le__", [](T x, T y) { return x <= y; }, nb::is_operator())
      .def(
          "__le__", [](T x, double y) { return x <= y; }, nb::is_operator())
      .def(
          "__gt__", [](T x, T y) { return x > y; }, nb::is_operator())
      .def(
          "__gt__", [](T x, double y) { return x > y; }, nb::is_operator())
      .def(
          "__ge__", [](T x, T y) { return x >= y; }, nb::is_operator())
      .def(
          "__ge__", [](T x, double y) { return x >= y; }, nb::is_operator())
      .def(
          "__and__", [](T x, T y) { return x & y; }, nb::is_operator())
      .def(
          "__or__", [](T x, T y) { return x | y; }, nb::is_operator())
      .def("__invert__", [](T x) { return !x; })
      .def("__hash__",
           [](T x) { return reinterpret_cast<uintptr_t>(x.kind.node.get()); });

  // Creation.
  m.def("_from_array", &fromArray, "array"_a, "device"_a = nb::none());
  m.def("_share_array", &shareArray, "array"_a, "device"_a = nb::none());
  m.def("_dlpack_view", &toDLPack);
  m.def("full", [](std::vector<int64_t> shape, double value, DType d,
                   DispatchDevice dev) {
    return DispatchTensor::full(Shape(shape), value, d, dev);
  });
  m.def("arange",
        [](double start, double end, double step, DType d, DispatchDevice dev) {
          return DispatchTensor::arange(start, end, step, d, dev);
        });
  m.def("eye", [](int64_t n, int64_t k, DType d, DispatchDevice dev) {
    return DispatchTensor::eye(n, k, d, dev);
  });
  m.def("rand", [](std::vector<int64_t> shape, DType d, DispatchDevice dev,
                   uint64_t seed, double low, double high) {
    return DispatchTensor::rand(Shape(shape), d, dev, seed, low, high);
  });
  m.def("randn", [](std::vector<int64_t> shape, DType d, DispatchDevice dev,
                    uint64_t seed, double mean, double std) {
    return DispatchTensor::randn(Shape(shape), d, dev, seed, mean, std);
  });

  // Elementwise.
  m.def("neg", &kiln::neg);
  m.def("abs", &kiln::abs);
  m.def("exp", &kiln::exp);
  m.def("log", &kiln::log);
  m.def("log1p", &kiln::log1p);
  m.def("sqrt", &kiln::sqrt);
  m.def("rsqrt", &kiln::rsqrt);
  m.def("reciprocal", &kiln::recip);
  m.def("sin", &kiln::sin);
  m.def("cos", &kiln::cos);
  m.def("tan", &kiln::tan);
  m.def("tanh", &kiln::tanh);
  m.def("sigmoid", &kiln::sigmoid);
  m.def("erf", &kiln::erf);
  m.def("relu", &kiln::relu);
  m.def("silu", &kiln::silu);
  m.def("argsort", &kiln::argsort, "x"_a, "axis"_a = -1,
        "descending"_a = false);
  m.def("sort", &kiln::sort, "x"_a, "axis"_a = -1, "descending"_a = false);
  m.def(
      "topk",
      [](T x, int64_t k, int64_t axis, bool largest) {
        auto [values, indices] = kiln::topk(x, k, axis, largest);
        return nb::make_tuple(values, indices);
      },
      "x"_a, "k"_a, "axis"_a = -1, "largest"_a = true);
  m.def("log_sigmoid", &kiln::logSigmoid);
  m.def("hardswish", &kiln::hardswish);
  m.def("mish", &kiln::mish);
  m.def("leaky_relu", &kiln::leakyRelu, "x"_a, "negative_slope"_a = 0.01);
  m.def("elu", &kiln::elu, "x"_a, "alpha"_a = 1.0);
  m.def("softplus", &kiln::softplus, "x"_a, "beta"_a = 1.0,
        "threshold"_a = 20.0);
  m.def("rope", &kiln::rope, "x"_a, "theta"_a = 10000.0,
        "offset"_a = nb::none(), "interleaved"_a = false);
  m.def("rms_norm", &kiln::rmsNorm, "x"_a, "weight"_a = nb::none(),
        "eps"_a = 1e-6);
  m.def("gelu", &kiln::gelu, "x"_a, "approximate"_a = false);
  m.def("floor", &kiln::floor);
  m.def("ceil", &kiln::ceil);
  m.def("round", &kiln::round);
  m.def("sign", &kiln::sign);
  m.def("isnan", &kiln::isNan);
  m.def("logical_not", &kiln::logicalNot);
  m.def("clip", &kiln::clamp);
  m.def("add", &kiln::add);
  m.def("subtract", &kiln::sub);
  m.def("multiply", &kiln::mul);
  m.def("divide", &kiln::div);
  m.def("power", [](T x, T y) { return kiln::pow(x, y); });
  m.def("maximum", &kiln::maximum);
  m.def("minimum", &kiln::minimum);
  m.def("remainder", &kiln::rem);
  m.def("arctan2", &kiln::atan2);
  m.def("equal", &kiln::eq);
  m.def("not_equal", &kiln::ne);
  m.def("less", &kiln::lt);
  m.def("less_equal", &kiln::le);
  m.def("greater", &kiln::gt);
  m.def("greater_equal", &kiln::ge);
  m.def("logical_and", &kiln::logicalAnd);
  m.def("logical_or", &kiln::logicalOr);
  m.def("where", [](T c, T x, T y) { return kiln::where(c, x, y); });
  m.def("where", [](T c, T x, double y) { return kiln::where(c, x, y); });
  m.def("cast", &kiln::cast);

  // Reductions: axes already normalized by the Python layer.
  m.def("sum", &kiln::sum);
  m.def("mean", &kiln::mean);
  m.def("prod", &kiln::prod);
  m.def("max", &kiln::max);
  m.def("min", &kiln::min);
  m.def("any", &kiln::any);
  m.def("all", &kiln::all);
  m.def("logsumexp", &kiln::logsumexp);
  m.def("argmax", &kiln::argmax);
  m.def("argmin", &kiln::argmin);
  m.def("cumsum", &kiln::cumsum);
  m.def("softmax", &kiln::softmax);
  m.def("log_softmax", &kiln::logSoftmax);

  // Shapes and indexing.
  m.def("matmul", &kiln::matmul);
  m.def("reshape", [](T x, std::vector<int64_t> shape) {
    return kiln::reshape(x, Shape(shape));
  });
  m.def("permute", &kiln::permute);
  m.def("swapaxes", &kiln::transpose);
  m.def("broadcast_to", [](T x, std::vector<int64_t> shape) {
    return kiln::expand(x, Shape(shape));
  });
  m.def("slice", &kiln::slice);
  m.def("slice_update", &kiln::sliceAssign);
  m.def("concatenate", &kiln::concat);
  m.def("split_sizes", &kiln::split);
  m.def("squeeze", &kiln::squeeze);
  m.def("expand_dims", &kiln::unsqueeze);
  m.def("flip", &kiln::flip);
  m.def("tile", &kiln::repeat);
  m.def("pad", &kiln::pad);
  m.def("take_along_axis", [](T x, T indices, int64_t axis) {
    return kiln::gather(x, axis, indices);
  });
  m.def("take", [](T x, T indices, int64_t axis) {
    return kiln::indexSelect(x, axis, indices);
  });
  m.def("scatter_add", &kiln::scatterAdd);
  m.def("one_hot", &kiln::oneHot);
  m.def("embedding", &kiln::embedding);
  m.def("layer_norm", &kiln::layerNorm, "x"_a, "weight"_a = nb::none(),
        "bias"_a = nb::none(), "eps"_a = 1e-5);
  // Convolution and pooling with a list per spatial dim (kiln/__init__.py
  // takes numpy-style ints or tuples).
  m.def("_conv", [](T x, T w, std::optional<DispatchTensor> bias,
                    std::vector<int64_t> stride, std::vector<int64_t> padding,
                    std::vector<int64_t> dilation, int64_t groups) {
    kiln::ConvOptions o{std::move(stride), std::move(padding),
                        std::move(dilation), groups};
    return w.rank() == 3 ? kiln::conv1d(x, w, bias, std::move(o))
                         : kiln::conv2d(x, w, bias, std::move(o));
  });
  m.def(
      "batch_norm",
      [](T x, DispatchTensor *runningMean, DispatchTensor *runningVar,
         std::optional<DispatchTensor> weight,
         std::optional<DispatchTensor> bias, bool training, double momentum,
         double eps) {
        if (training)
          return kiln::batchNormTraining(x, runningMean, runningVar, weight,
                                         bias, momentum, eps);
        if (!runningMean || !runningVar)
          throw kiln::Error("kiln.batch_norm: evaluation (training=False) "
                            "needs running_mean and running_var");
        return kiln::batchNorm(x, *runningMean, *runningVar, weight, bias, eps);
      },
      "input"_a, "running_mean"_a.none(), "running_var"_a.none(),
      "weight"_a = nb::none(), "bias"_a = nb::none(), "training"_a = false,
      "momentum"_a = 0.1, "eps"_a = 1e-5);
  m.def("group_norm", &kiln::groupNorm, "input"_a, "num_groups"_a,
        "weight"_a = nb::none(), "bias"_a = nb::none(), "eps"_a = 1e-5);
  m.def("instance_norm", &kiln::instanceNorm, "input"_a,
        "weight"_a = nb::none(), "bias"_a = nb::none(), "eps"_a = 1e-5);
  m.def("_adaptive_avg_pool2d", &kiln::adaptiveAvgPool2d);
  m.def("_adaptive_max_pool2d", &kiln::adaptiveMaxPool2d);
  m.def("_conv_transpose", [](T x, T w, std::optional<DispatchTensor> bias,
                              std::vector<int64_t> stride,
                              std::vector<int64_t> padding,
                              std::vector<int64_t> outputPadding,
                              std::vector<int64_t> dilation, int64_t groups) {
    kiln::ConvTransposeOptions o{std::move(stride), std::move(padding),
                                 std::move(outputPadding), std::move(dilation),
                                 groups};
    return w.rank() == 3 ? kiln::convTranspose1d(x, w, bias, std::move(o))
                         : kiln::convTranspose2d(x, w, bias, std::move(o));
  });
  m.def("_interpolate",
        [](T x, std::vector<int64_t> size, std::vector<double> scale,
           std::string mode, bool alignCorners) {
          return kiln::interpolate(x, {std::move(size), std::move(scale),
                                       std::move(mode), alignCorners});
        });
  m.def("_max_pool",
        [](T x, std::vector<int64_t> kernel, std::vector<int64_t> stride,
           std::vector<int64_t> padding, std::vector<int64_t> dilation,
           bool ceilMode, bool indices) -> nb::object {
          kiln::PoolOptions o{std::move(kernel), std::move(stride),
                              std::move(padding), std::move(dilation),
                              ceilMode};
          if (!indices)
            return nb::cast(kiln::maxPool(x, std::move(o)));
          auto [values, where] = kiln::maxPoolWithIndices(x, std::move(o));
          return nb::make_tuple(values, where);
        });
  m.def("_avg_pool",
        [](T x, std::vector<int64_t> kernel, std::vector<int64_t> stride,
           std::vector<int64_t> padding, bool ceilMode, bool countIncludePad) {
          return kiln::avgPool(x, {std::move(kernel),
                                   std::move(stride),
                                   std::move(padding),
                                   {},
                                   ceilMode,
                                   countIncludePad});
        });
  m.def(
      "cross_entropy",
      [](T logits, T labels, int64_t ignoreIndex, double labelSmoothing,
         const std::string &reduction) {
        kiln::CrossEntropyOptions o;
        o.ignoreIndex = ignoreIndex;
        o.labelSmoothing = labelSmoothing;
        if (reduction == "none")
          o.reduction = kiln::LossReduction::None;
        else if (reduction == "sum")
          o.reduction = kiln::LossReduction::Sum;
        else if (reduction != "mean")
          throw kiln::Error("cross_entropy: reduction must be 'none', 'sum' "
                            "or 'mean', got '" +
                            reduction + "'");
        return kiln::crossEntropy(logits, labels, o);
      },
      "logits"_a, "labels"_a, "ignore_index"_a = -100,
      "label_smoothing"_a = 0.0, "reduction"_a = "mean");
  m.def("dropout", &kiln::dropout, nb::arg("x"), nb::arg("p"), nb::arg("seed"),
        nb::arg("offset") = nb::none());

  // Materialization and autodiff.
  m.def("sync", [](const std::vector<DispatchTensor> &ts) {
    kiln::python::runReleased([ts] { kiln::sync(ts); });
  });
  m.def("require_grad", [](DispatchTensor &t) { t.requireGrad(); });
  nb::class_<kiln::Gradients>(m, "Gradients")
      .def("get", &kiln::Gradients::get)
      .def("has", &kiln::Gradients::has)
      .def("__len__", &kiln::Gradients::size);
  m.def("backward", &kiln::backward);
  // kiln.no_grad(): a guard per entered context, on this thread.
  m.def("_no_grad_enter", [] { noGradGuards().emplace_back(); });
  m.def("_no_grad_exit", [] {
    if (!noGradGuards().empty())
      noGradGuards().pop_back();
  });
  kiln::python::bindNN(m);
#ifdef KILN_HAVE_ONNX
  kiln::python::bindOnnx(m);
#endif
  m.def("dump_graph", [](T t) { return kiln::dumpGraph(t); });
}
