//===- FlexQuant.cpp - Quantization kernels of Flex -----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Symmetric quantization, per tensor or per block of consecutive row-major
// elements: scale = max|x| / maxLevel, rounded to the scale dtype (through
// f32 for f16/bf16, as every Flex cast to a half type does), and
// q = clamp(round_half_even(x / scale), -maxLevel, maxLevel), with x / scale
// in f64. q8 stores one int8 per element; q4 packs two 4-bit two's-complement
// values per byte, element 2k in the low nibble.
//
// A block whose scale would be 0 (all zeros, or so small that the rounded
// scale underflows) or not finite gets scale 1; its values then round to 0
// (or clamp, for infinities), so an all-zero block dequantizes to zeros. NaN
// quantizes to 0.
//
//===----------------------------------------------------------------------===//

#include "FlexKernels.h"

#include <algorithm>

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;

namespace {

bool isQ4(const QuantScheme &s) { return s.values == QuantScheme::Values::Q4; }

/// The 4-bit value `e` of a q4 storage, sign-extended.
inline int q4At(const uint8_t *bytes, int64_t e) {
  int nibble = (bytes[e >> 1] >> ((e & 1) * 4)) & 0xF;
  return nibble >= 8 ? nibble - 16 : nibble;
}

Step buildQuantize(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const QuantScheme &scheme = dt.scheme();
    Buffer q = allocateBuffer(ctx.allocator, dt, shape);
    res[0] = q;
    const int64_t n = q.numel();
    if (n == 0)
      return;
    const int64_t block = scheme.isPerTensor() ? n : scheme.blockSize;
    const int64_t blocks = scheme.isPerTensor() ? 1 : n / block;
    const double maxLevel = scheme.maxLevel();
    Buffer x = contiguous(*ops[0], ctx.allocator);
    dispatchFloat(x.dtype, "kiln.quantize", [&](auto inTag) {
      using T = typename decltype(inTag)::type;
      const T *src = x.as<T>();
      dispatchFloat(DType(scheme.scale), "kiln.quantize", [&](auto sTag) {
        using S = typename decltype(sTag)::type;
        using SC = typename ComputeOf<S>::type;
        S *scales = static_cast<S *>(q.scales->data);

        // Largest magnitude per block; a single block (per tensor) is split
        // into chunks so that it, too, uses every thread.
        const int64_t chunk = std::min<int64_t>(block, 1 << 16);
        const int64_t chunksPerBlock = (block + chunk - 1) / chunk;
        std::vector<double> chunkMax(blocks * chunksPerBlock, 0.0);
        parallelFor(
            blocks * chunksPerBlock, std::max<int64_t>(1, (1 << 15) / chunk),
            [&](int64_t begin, int64_t end) {
              for (int64_t u = begin; u < end; ++u) {
                int64_t b = u / chunksPerBlock, c = u % chunksPerBlock;
                int64_t lo = b * block + c * chunk;
                int64_t hi = std::min(b * block + block, lo + chunk);
                double m = 0;
                for (int64_t k = lo; k < hi; ++k)
                  m = std::max(m, std::fabs(static_cast<double>(load(src[k]))));
                chunkMax[u] = m;
              }
            });
        std::vector<double> scale(blocks);
        for (int64_t b = 0; b < blocks; ++b) {
          double m =
              *std::max_element(chunkMax.begin() + b * chunksPerBlock,
                                chunkMax.begin() + (b + 1) * chunksPerBlock);
          S s = storeAs<S>(static_cast<SC>(m / maxLevel));
          double sd = static_cast<double>(load(s));
          if (!(sd > 0) || !std::isfinite(sd)) {
            s = storeAs<S>(static_cast<SC>(1));
            sd = 1;
          }
          scales[b] = s;
          scale[b] = sd;
        }

        auto level = [&](int64_t k) -> int {
          double r = std::nearbyint(static_cast<double>(load(src[k])) /
                                    scale[k / block]);
          if (!(r == r))
            return 0;
          return static_cast<int>(std::clamp(r, -maxLevel, maxLevel));
        };
        // Threads own whole bytes, so q4 neighbours never share a write.
        auto *bytes = static_cast<uint8_t *>(q.storage->data);
        const bool q4 = isQ4(scheme);
        const int64_t pairs = (n + 1) / 2;
        parallelFor(pairs, 1 << 13, [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) {
            int64_t k = 2 * p;
            int lo = level(k), hi = k + 1 < n ? level(k + 1) : 0;
            if (q4) {
              bytes[p] = static_cast<uint8_t>((lo & 0xF) | ((hi & 0xF) << 4));
            } else {
              bytes[k] = static_cast<uint8_t>(static_cast<int8_t>(lo));
              if (k + 1 < n)
                bytes[k + 1] = static_cast<uint8_t>(static_cast<int8_t>(hi));
            }
          }
        });
      });
    });
  };
}

Step buildDequantize(const OpDesc &op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> res, StepContext &ctx) {
    const Buffer &q = *ops[0];
    const QuantScheme &scheme = q.dtype.scheme();
    if (!q.isContiguous())
      throw Error("flex: kiln.dequantize of a strided view of a quantized "
                  "tensor");
    Buffer out = allocateBuffer(ctx.allocator, dt, shape);
    res[0] = out;
    const int64_t n = out.numel();
    if (n == 0)
      return;
    const int64_t block = scheme.isPerTensor() ? n : scheme.blockSize;
    const bool q4 = isQ4(scheme);
    const auto *bytes = static_cast<const uint8_t *>(q.storage->data);
    const int64_t base = q.offset;
    dispatchFloat(dt, "kiln.dequantize", [&](auto outTag) {
      using T = typename decltype(outTag)::type;
      using C = typename ComputeOf<T>::type;
      T *dst = out.as<T>();
      dispatchFloat(DType(scheme.scale), "kiln.dequantize", [&](auto sTag) {
        using S = typename decltype(sTag)::type;
        const S *scales = static_cast<const S *>(q.scales->data);
        parallelFor(n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t k = begin; k < end; ++k) {
            int64_t e = base + k;
            int v = q4 ? q4At(bytes, e) : static_cast<int8_t>(bytes[e]);
            C s = static_cast<C>(load(scales[e / block]));
            dst[k] = storeAs<T>(s * static_cast<C>(v));
          }
        });
      });
    });
  };
}

} // namespace

void flex::registerQuantKernels(KernelRegistry &r) {
  r.add("kiln.quantize", buildQuantize);
  r.add("kiln.dequantize", buildDequantize);
}
