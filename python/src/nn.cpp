//===- nn.cpp - kiln.nn and kiln.optim bindings ---------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The C++ modules own their parameters; Python sees each one as a
// kiln.Tensor that aliases the member (and keeps the module alive), so an
// optimizer's update, which rebinds the member, is what Python reads next.
// An optimizer takes a list of such tensors (or of any kiln.Tensor objects:
// a Python module's attributes) and updates them in place.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "kiln/Kiln.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;
using kiln::DispatchDevice;
using kiln::DispatchTensor;
namespace knn = kiln::nn;
namespace optim = kiln::optim;

namespace {

/// Name -> tensor, each aliasing the parameter it names (kept alive by
/// `owner`).
nb::dict namedDict(const knn::NamedParameters &params, nb::handle owner) {
  nb::dict d;
  for (const auto &[name, p] : params)
    d[name.c_str()] = nb::cast(p, nb::rv_policy::reference_internal, owner);
  return d;
}

nb::list paramList(const knn::NamedParameters &params, nb::handle owner) {
  nb::list l;
  for (const auto &[name, p] : params)
    l.append(nb::cast(p, nb::rv_policy::reference_internal, owner));
  return l;
}

/// The tensors of a Python dict name -> kiln.Tensor, by address: loading
/// rebinds them in place.
knn::NamedParameters fromDict(const nb::dict &d) {
  knn::NamedParameters params;
  for (auto [k, v] : d)
    params.emplace_back(nb::cast<std::string>(k),
                        &nb::cast<DispatchTensor &>(v));
  return params;
}

std::vector<DispatchTensor *> tensorsOf(const nb::list &l) {
  std::vector<DispatchTensor *> out;
  for (nb::handle h : l) {
    if (!nb::isinstance<DispatchTensor>(h))
      throw kiln::Error("optimizer: parameters must be kiln.Tensor objects, "
                        "got " +
                        nb::cast<std::string>(nb::str(h.type())));
    out.push_back(&nb::cast<DispatchTensor &>(h));
  }
  if (out.empty())
    throw kiln::Error("optimizer: no parameters");
  return out;
}

DispatchDevice deviceOr(std::optional<DispatchDevice> d) {
  return d ? *d : DispatchDevice::defaultDevice();
}

kiln::CheckpointingStrategy strategyNamed(const std::string &s) {
  using S = kiln::CheckpointingStrategy;
  if (s == "disabled")
    return S::Disabled;
  if (s == "balanced")
    return S::Balanced;
  if (s.rfind("budget=", 0) == 0) {
    try {
      size_t used = 0;
      long long bytes = std::stoll(s.substr(7), &used);
      if (used == s.size() - 7 && bytes > 0)
        return S::Budget(bytes);
    } catch (const std::exception &) {
    }
  }
  throw kiln::Error("checkpointing strategy '" + s +
                    "': expected 'disabled', 'balanced' or 'budget=BYTES'");
}

/// Writes (`save`) or reads the safetensors file at `path`, after any
/// interrupted work and with the GIL released; `p` points into memory
/// Python owns, so this runs here rather than on the worker.
void saveOrLoad(bool save, const knn::NamedParameters &p,
                const std::string &path) {
  kiln::python::finishInterrupted();
  nb::gil_scoped_release release;
  if (save)
    knn::save(p, path);
  else
    knn::load(p, path);
}

/// named_parameters / parameters / save_weights / load_weights of a C++
/// module whose parameters `named` lists.
/// The same, for a module with state besides its parameters (batch norm's
/// running statistics): `state` lists both, and is what save_weights and
/// load_weights carry and named_state returns.
template <typename C, typename Named, typename State>
void moduleMethods(nb::class_<C> &c, Named named, State state) {
  c.def("named_parameters",
        [named](nb::handle self) {
          return namedDict(named(nb::cast<C &>(self)), self);
        })
      .def("parameters",
           [named](nb::handle self) {
             return paramList(named(nb::cast<C &>(self)), self);
           })
      .def("named_state",
           [state](nb::handle self) {
             return namedDict(state(nb::cast<C &>(self)), self);
           })
      .def(
          "save_weights",
          [state](C &m, const std::string &path) {
            saveOrLoad(true, state(m), path);
          },
          "path"_a)
      .def(
          "load_weights",
          [state](C &m, const std::string &path) {
            saveOrLoad(false, state(m), path);
          },
          "path"_a);
}

template <typename C, typename Named>
void moduleMethods(nb::class_<C> &c, Named named) {
  moduleMethods(c, named, named);
}

/// A module made from (dim, heads, device, seed): attention, a block.
template <typename C> void bindDimHeads(nb::module_ &nn, const char *name) {
  nb::class_<C> c(nn, name);
  c.def(
       "__init__",
       [](C *self, int64_t dim, int64_t heads, std::optional<DispatchDevice> d,
          uint64_t seed) { new (self) C(dim, heads, deviceOr(d), seed); },
       "dim"_a, "heads"_a, "device"_a = nb::none(), "seed"_a = 0)
      .def("__call__",
           [](const C &m, const DispatchTensor &x) { return m.forward(x); });
  moduleMethods(c, [](C &m) { return m.namedParameters(""); });
}

/// Adam or AdamW over a list of tensors, which it keeps alive.
template <typename Opt>
nb::class_<Opt> bindAdam(nb::module_ &op, const char *name,
                         double weightDecay) {
  nb::class_<Opt> c(op, name);
  c.def(
       "__init__",
       [](Opt *self, const nb::list &params, double lr,
          std::pair<double, double> betas, double eps, double wd) {
         new (self)
             Opt(tensorsOf(params), lr, betas.first, betas.second, eps, wd);
       },
       "params"_a, "lr"_a = 1e-3, "betas"_a = std::make_pair(0.9, 0.999),
       "eps"_a = 1e-8, "weight_decay"_a = weightDecay, nb::keep_alive<1, 2>())
      .def("step", &Opt::step, "grads"_a)
      .def_rw("lr", &Opt::lr)
      .def_rw("steps", &Opt::steps);
  return c;
}

} // namespace

void kiln::python::bindNN(nb::module_ &m) {
  m.def(
      "autodiff",
      [](const DispatchDevice &d, const std::string &strategy) {
        return DispatchDevice::autodiff(d, strategyNamed(strategy));
      },
      "device"_a, "checkpointing"_a = "balanced",
      "The device with autodiff: tensors made on it are tracked, with "
      "the checkpointing strategy named ('disabled', 'balanced', "
      "'budget=BYTES').");
  m.def("save_tensors", [](const nb::dict &d, const std::string &path) {
    saveOrLoad(true, fromDict(d), path);
  });
  m.def("load_tensors", [](const nb::dict &d, const std::string &path) {
    saveOrLoad(false, fromDict(d), path);
  });

  using T = const DispatchTensor &;
  nb::module_ nn = m.def_submodule("nn", "Modules over Kiln's C++ blocks");

  nb::class_<knn::Linear> linear(nn, "Linear");
  linear
      .def(
          "__init__",
          [](knn::Linear *self, int64_t in, int64_t out, bool bias,
             std::optional<DispatchDevice> d, uint64_t seed) {
            new (self) knn::Linear(in, out, deviceOr(d), seed, bias);
          },
          "in_features"_a, "out_features"_a, "bias"_a = true,
          "device"_a = nb::none(), "seed"_a = 0)
      .def("__call__", [](const knn::Linear &l, T x) { return l.forward(x); })
      .def_prop_ro(
          "weight", [](knn::Linear &l) { return &l.weight; },
          nb::rv_policy::reference_internal);
  moduleMethods(linear, [](knn::Linear &l) { return l.namedParameters(); });

  // Conv1d and Conv2d (kiln/nn.py) take their sizes numpy-style and make
  // this one with a list per spatial dim.
  nb::class_<knn::Conv> conv(nn, "_Conv");
  conv.def(
          "__init__",
          [](knn::Conv *self, int64_t in, int64_t out,
             std::vector<int64_t> kernel, std::vector<int64_t> stride,
             std::vector<int64_t> padding, std::vector<int64_t> dilation,
             int64_t groups, bool bias, std::optional<DispatchDevice> d,
             uint64_t seed) {
            new (self) knn::Conv(in, out, std::move(kernel), deviceOr(d), seed,
                                 {std::move(stride), std::move(padding),
                                  std::move(dilation), groups},
                                 bias);
          },
          "in_channels"_a, "out_channels"_a, "kernel"_a, "stride"_a,
          "padding"_a, "dilation"_a, "groups"_a, "bias"_a, "device"_a, "seed"_a)
      .def("__call__", [](const knn::Conv &c, T x) { return c.forward(x); })
      .def_prop_ro(
          "weight", [](knn::Conv &c) { return &c.weight; },
          nb::rv_policy::reference_internal)
      .def_prop_ro(
          "bias",
          [](knn::Conv &c) -> DispatchTensor * {
            return c.bias ? &*c.bias : nullptr;
          },
          nb::rv_policy::reference_internal);
  moduleMethods(conv, [](knn::Conv &c) { return c.namedParameters(); });

  nb::class_<knn::ConvTranspose> convT(nn, "_ConvTranspose");
  convT
      .def(
          "__init__",
          [](knn::ConvTranspose *self, int64_t in, int64_t out,
             std::vector<int64_t> kernel, std::vector<int64_t> stride,
             std::vector<int64_t> padding, std::vector<int64_t> outputPadding,
             std::vector<int64_t> dilation, int64_t groups, bool bias,
             std::optional<DispatchDevice> d, uint64_t seed) {
            new (self) knn::ConvTranspose(
                in, out, std::move(kernel), deviceOr(d), seed,
                {std::move(stride), std::move(padding),
                 std::move(outputPadding), std::move(dilation), groups},
                bias);
          },
          "in_channels"_a, "out_channels"_a, "kernel"_a, "stride"_a,
          "padding"_a, "output_padding"_a, "dilation"_a, "groups"_a, "bias"_a,
          "device"_a, "seed"_a)
      .def("__call__",
           [](const knn::ConvTranspose &c, T x) { return c.forward(x); });
  moduleMethods(convT,
                [](knn::ConvTranspose &c) { return c.namedParameters(); });

  nb::class_<knn::LayerNorm> layerNorm(nn, "LayerNorm");
  layerNorm
      .def(
          "__init__",
          [](knn::LayerNorm *self, int64_t dim, double eps,
             std::optional<DispatchDevice> d) {
            new (self) knn::LayerNorm(dim, deviceOr(d), eps);
          },
          "dim"_a, "eps"_a = 1e-5, "device"_a = nb::none())
      .def("__call__",
           [](const knn::LayerNorm &l, T x) { return l.forward(x); });
  moduleMethods(layerNorm,
                [](knn::LayerNorm &l) { return l.namedParameters(); });

  nb::class_<knn::Embedding> embedding(nn, "Embedding");
  embedding
      .def(
          "__init__",
          [](knn::Embedding *self, int64_t vocab, int64_t dim,
             std::optional<DispatchDevice> d, uint64_t seed, double std) {
            new (self) knn::Embedding(vocab, dim, deviceOr(d), seed, std);
          },
          "num_embeddings"_a, "dim"_a, "device"_a = nb::none(), "seed"_a = 0,
          "std"_a = 1.0)
      .def("__call__",
           [](const knn::Embedding &e, T i) { return e.forward(i); });
  moduleMethods(embedding,
                [](knn::Embedding &e) { return e.namedParameters(); });

  nb::class_<knn::BatchNorm> batchNorm(nn, "_BatchNorm");
  batchNorm
      .def(
          "__init__",
          [](knn::BatchNorm *self, int64_t channels, double eps,
             double momentum, bool affine, std::optional<DispatchDevice> d) {
            new (self)
                knn::BatchNorm(channels, deviceOr(d), eps, momentum, affine);
          },
          "channels"_a, "eps"_a, "momentum"_a, "affine"_a, "device"_a)
      .def("__call__", [](knn::BatchNorm &b, T x) { return b.forward(x); })
      .def("train", &knn::BatchNorm::train, "on"_a = true)
      .def_ro("training", &knn::BatchNorm::training)
      .def_prop_ro(
          "running_mean", [](knn::BatchNorm &b) { return &b.runningMean; },
          nb::rv_policy::reference_internal)
      .def_prop_ro(
          "running_var", [](knn::BatchNorm &b) { return &b.runningVar; },
          nb::rv_policy::reference_internal);
  moduleMethods(
      batchNorm, [](knn::BatchNorm &b) { return b.namedParameters(); },
      [](knn::BatchNorm &b) { return b.namedState(); });

  nb::class_<knn::GroupNorm> groupNorm(nn, "GroupNorm");
  groupNorm
      .def(
          "__init__",
          [](knn::GroupNorm *self, int64_t groups, int64_t channels, double eps,
             std::optional<DispatchDevice> d) {
            new (self) knn::GroupNorm(groups, channels, deviceOr(d), eps);
          },
          "num_groups"_a, "num_channels"_a, "eps"_a = 1e-5,
          "device"_a = nb::none())
      .def("__call__",
           [](const knn::GroupNorm &g, T x) { return g.forward(x); });
  moduleMethods(groupNorm,
                [](knn::GroupNorm &g) { return g.namedParameters(); });

  nb::class_<knn::ResNet> resnet(nn, "_ResNet");
  resnet
      .def(
          "__init__",
          [](knn::ResNet *self, std::vector<int64_t> blocks, int64_t classes,
             int64_t inChannels, bool smallInputs,
             std::optional<DispatchDevice> d, uint64_t seed) {
            knn::ResNetConfig c;
            c.blocks = std::move(blocks);
            c.classes = classes;
            c.inChannels = inChannels;
            c.smallInputs = smallInputs;
            new (self) knn::ResNet(c, deviceOr(d), seed);
          },
          "blocks"_a, "classes"_a, "in_channels"_a, "small_inputs"_a,
          "device"_a, "seed"_a)
      .def("__call__", [](knn::ResNet &r, T x) { return r.forward(x); })
      .def("train", &knn::ResNet::train, "on"_a = true)
      .def_prop_ro("training", &knn::ResNet::training);
  moduleMethods(
      resnet, [](knn::ResNet &r) { return r.namedParameters(); },
      [](knn::ResNet &r) { return r.namedState(); });

  bindDimHeads<knn::MultiheadAttention>(nn, "MultiheadAttention");
  bindDimHeads<knn::TransformerBlock>(nn, "TransformerBlock");

  nb::class_<knn::GPT> gpt(nn, "GPT");
  gpt.def(
         "__init__",
         [](knn::GPT *self, int64_t vocab, int64_t layers, int64_t heads,
            int64_t dim, int64_t context, std::optional<DispatchDevice> d,
            uint64_t seed) {
           knn::GPTConfig c;
           c.vocab = vocab;
           c.layers = layers;
           c.heads = heads;
           c.dim = dim;
           c.context = context;
           new (self) knn::GPT(c, deviceOr(d), seed);
         },
         "vocab"_a = 256, "layers"_a = 4, "heads"_a = 4, "dim"_a = 256,
         "context"_a = 128, "device"_a = nb::none(), "seed"_a = 0)
      .def("__call__",
           [](const knn::GPT &g, T tokens) { return g.forward(tokens); })
      .def("loss", &knn::GPT::loss, "tokens"_a, "targets"_a)
      .def(
          "generate",
          [](knn::GPT &g, const std::vector<int64_t> &prompt, int64_t n,
             double temperature, int64_t topK, uint64_t seed, bool q8,
             double topP) {
            knn::SampleOptions o{temperature, topK, seed, q8, topP};
            kiln::python::finishInterrupted();
            nb::gil_scoped_release release;
            return g.generate(prompt, n, o);
          },
          "prompt"_a, "n"_a, "temperature"_a = 1.0, "top_k"_a = 0, "seed"_a = 0,
          "q8"_a = false, "top_p"_a = 1.0)
      .def_prop_ro("context",
                   [](const knn::GPT &g) { return g.config.context; })
      .def_prop_ro("vocab", [](const knn::GPT &g) { return g.config.vocab; });
  moduleMethods(gpt, [](knn::GPT &g) { return g.namedParameters(); });

  nb::class_<knn::RMSNorm> rms(nn, "RMSNorm");
  rms.def(
         "__init__",
         [](knn::RMSNorm *self, int64_t dim, double eps,
            std::optional<DispatchDevice> d) {
           new (self) knn::RMSNorm(dim, deviceOr(d), eps);
         },
         "dim"_a, "eps"_a = 1e-6, "device"_a = nb::none())
      .def("__call__", &knn::RMSNorm::forward);
  moduleMethods(rms, [](knn::RMSNorm &r) { return r.namedParameters(); });

  nb::class_<knn::SwiGLU> swiglu(nn, "SwiGLU");
  swiglu
      .def(
          "__init__",
          [](knn::SwiGLU *self, int64_t dim, int64_t hidden,
             std::optional<DispatchDevice> d, uint64_t seed) {
            new (self) knn::SwiGLU(dim, hidden, deviceOr(d), seed);
          },
          "dim"_a, "hidden"_a, "device"_a = nb::none(), "seed"_a = 0)
      .def("__call__", &knn::SwiGLU::forward);
  moduleMethods(swiglu, [](knn::SwiGLU &s) { return s.namedParameters(); });

  // What from_pretrained returns; kiln.nn wraps it for numpy ids.
  nb::class_<knn::CausalLM> lm(nn, "_CausalLM");
  lm.def("__call__",
         [](const knn::CausalLM &model, T ids) { return model.forward(ids); })
      .def(
          "generate",
          [](knn::CausalLM &model, const std::vector<int64_t> &prompt,
             int64_t n, double temperature, int64_t topK, double topP,
             uint64_t seed, bool q8) {
            knn::SampleOptions o{temperature, topK, seed, q8, topP};
            kiln::python::finishInterrupted();
            nb::gil_scoped_release release;
            return model.generate(prompt, n, o);
          },
          "prompt"_a, "n"_a, "temperature"_a = 1.0, "top_k"_a = 0,
          "top_p"_a = 1.0, "seed"_a = 0, "q8"_a = false)
      .def_prop_ro("vocab", &knn::CausalLM::vocab);
  moduleMethods(lm,
                [](knn::CausalLM &model) { return model.namedParameters(); });
  nn.def(
      "_from_pretrained",
      [](const std::string &dir, std::optional<DispatchDevice> d) {
        kiln::python::finishInterrupted();
        return knn::fromPretrained(dir, deviceOr(d));
      },
      "dir"_a, "device"_a = nb::none());

  m.def(
      "scaled_dot_product_attention",
      [](T q, T k, T v, std::optional<DispatchTensor> mask, bool causal,
         std::optional<double> scale) {
        kiln::AttentionOptions o;
        o.mask = std::move(mask);
        o.causal = causal;
        o.scale = scale;
        return kiln::scaledDotProductAttention(q, k, v, o);
      },
      "q"_a, "k"_a, "v"_a, "mask"_a = nb::none(), "causal"_a = false,
      "scale"_a = nb::none());

  // Optimizers update the tensors of the list they were given, in place.
  nb::module_ op = m.def_submodule("optim", "Optimizers and clipping");
  nb::class_<optim::SGD>(op, "SGD")
      .def(
          "__init__",
          [](optim::SGD *self, const nb::list &params, double lr,
             double momentum, double weightDecay, bool nesterov) {
            new (self) optim::SGD(tensorsOf(params), lr, momentum, weightDecay,
                                  nesterov);
          },
          "params"_a, "lr"_a, "momentum"_a = 0.0, "weight_decay"_a = 0.0,
          "nesterov"_a = false, nb::keep_alive<1, 2>())
      .def("step", &optim::SGD::step, "grads"_a)
      .def_rw("lr", &optim::SGD::lr);
  bindAdam<optim::Adam>(op, "Adam", 0.0);
  bindAdam<optim::AdamW>(op, "AdamW", 0.01)
      .def(
          "named_state",
          [](nb::handle self, const nb::dict &params) {
            optim::AdamW &a = nb::cast<optim::AdamW &>(self);
            return namedDict(a.namedState(fromDict(params)), self);
          },
          "named_parameters"_a);
  op.def(
      "clip_grad_norm",
      [](const kiln::Gradients &g, double maxNorm) {
        return optim::clipGradNorm(g, maxNorm);
      },
      "grads"_a, "max_norm"_a);
  op.def("warmup_cosine", &optim::warmupCosine, "step"_a, "warmup"_a, "total"_a,
         "max_lr"_a, "min_lr"_a);
}
