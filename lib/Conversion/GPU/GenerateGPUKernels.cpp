//===- GenerateGPUKernels.cpp - Kiln's GPU kernel generator ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// --kiln-generate-gpu-kernels: the pass, the pieces its generators share,
// and the math lowering that keeps the PTX free of libdevice calls (the
// GPU machines Kiln runs on have a driver, not a CUDA toolkit).
//
//===----------------------------------------------------------------------===//

#include "GPUKernelGen.h"
#include "kiln/Conversion/ElementwiseEmitter.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGENERATEGPUKERNELS
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;
using namespace mlir::kiln::gpugen;

//===----------------------------------------------------------------------===//
// Host functions and launches
//===----------------------------------------------------------------------===//

int64_t gpugen::numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

HostFunction gpugen::createHostFunction(OpBuilder &b, func::FuncOp tmpl,
                                        int64_t workspaceBytes) {
  MLIRContext *ctx = tmpl.getContext();
  HostFunction host;
  SmallVector<Type> args;
  auto add = [&](Type t) {
    auto shaped = llvm::cast<RankedTensorType>(t);
    int64_t n = numElements(shaped.getShape());
    if (auto q = getQuantScheme(t)) {
      int64_t bytes = q.getValueBits() == 4 ? (n + 1) / 2 : n;
      int64_t scales = q.isPerTensor() ? 1 : n / q.getBlockSize();
      args.push_back(MemRefType::get({bytes}, IntegerType::get(ctx, 8)));
      args.push_back(MemRefType::get({scales}, q.getScaleType()));
      return 2u;
    }
    args.push_back(MemRefType::get({n}, storageElementOf(t)));
    return 1u;
  };
  unsigned numInputs = 0, numOutputs = 0;
  for (Type t : tmpl.getArgumentTypes()) {
    host.slotOf.push_back(numInputs);
    numInputs += add(t);
  }
  for (Type t : tmpl.getResultTypes())
    numOutputs += add(t);
  if (workspaceBytes > 0)
    args.push_back(MemRefType::get({workspaceBytes}, IntegerType::get(ctx, 8)));

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(tmpl);
  std::string name = (tmpl.getName() + kHostSuffix).str();
  host.fn = func::FuncOp::create(b, tmpl.getLoc(), name,
                                 b.getFunctionType(args, {}));
  host.fn->setAttr(kKernelOfAttr, b.getStringAttr(tmpl.getName()));
  if (workspaceBytes > 0)
    host.fn->setAttr(kWorkspaceAttr, b.getI64IntegerAttr(workspaceBytes));
  Block *entry = host.fn.addEntryBlock();
  for (unsigned i = 0; i < numInputs; ++i)
    host.inputs.push_back(entry->getArgument(i));
  for (unsigned i = 0; i < numOutputs; ++i)
    host.outputs.push_back(entry->getArgument(numInputs + i));
  if (workspaceBytes > 0)
    host.workspace = entry->getArguments().back();
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, tmpl.getLoc());
  return host;
}

gpu::LaunchOp gpugen::createLaunch(OpBuilder &b, HostFunction &host,
                                   std::array<int64_t, 3> grid,
                                   std::array<int64_t, 3> block) {
  Location loc = host.fn.getLoc();
  b.setInsertionPoint(host.fn.getBody().front().getTerminator());
  auto c = [&](int64_t v) { return cidx(b, loc, v); };
  auto launch = gpu::LaunchOp::create(b, loc, c(grid[0]), c(grid[1]),
                                      c(grid[2]), c(block[0]), c(block[1]),
                                      c(block[2]));
  b.setInsertionPointToEnd(&launch.getBody().front());
  auto term = gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(term);
  return launch;
}

int64_t gpugen::blocksFor(int64_t units, int64_t perBlock) {
  return std::max<int64_t>(
      1, std::min<int64_t>((units + perBlock - 1) / perBlock, kMaxBlocks));
}

/// The constant value of a launch size operand.
static int64_t constantSize(Value v) {
  return *getConstantIntValue(v);
}

scf::ForOp gpugen::gridStrideLoop(OpBuilder &b, Location loc,
                                  gpu::LaunchOp launch, int64_t total) {
  int64_t grid = constantSize(launch.getGridSizeOperandValues().x);
  int64_t block = constantSize(launch.getBlockSizeOperandValues().x);
  Value start = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                            cidx(b, loc, block)),
      launch.getThreadIds().x);
  auto loop = scf::ForOp::create(b, loc, start, cidx(b, loc, total),
                                 cidx(b, loc, grid * block));
  b.setInsertionPointToStart(loop.getBody());
  return loop;
}

Value gpugen::addSharedBuffer(gpu::LaunchOp launch, Type element,
                              int64_t size) {
  auto space = gpu::AddressSpaceAttr::get(launch.getContext(),
                                          gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({size}, element, MemRefLayoutAttrInterface(),
                              space);
  return launch.addWorkgroupAttribution(type, launch.getLoc());
}

static int64_t byteWidth(Type element) {
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

Value gpugen::loadVector(OpBuilder &b, Location loc, Value buffer,
                         Value offset, int64_t lanes) {
  Type e = llvm::cast<MemRefType>(buffer.getType()).getElementType();
  auto type = VectorType::get({lanes}, e);
  return vector::LoadOp::create(b, loc, type, buffer, ValueRange{offset},
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(lanes * byteWidth(e)));
}

void gpugen::storeVector(OpBuilder &b, Location loc, Value value,
                         Value buffer, Value offset) {
  auto type = llvm::cast<VectorType>(value.getType());
  vector::StoreOp::create(
      b, loc, value, buffer, ValueRange{offset}, /*nontemporal=*/false,
      llvm::MaybeAlign(type.getNumElements() *
                       byteWidth(type.getElementType())));
}

Value gpugen::blockReduce(OpBuilder &b, Location loc, Value value,
                          Value threadId, int64_t blockSize, Value scratch,
                          function_ref<Value(Value, Value)> combine) {
  Type t = value.getType();
  Type i32 = b.getI32Type();
  // Shuffles move 32 or 64 bits; narrower integers travel widened.
  bool widen = llvm::isa<IntegerType>(t) && t.getIntOrFloatBitWidth() < 32;
  auto shuffle = [&](Value x, int32_t offset) -> Value {
    Value y = widen ? Value(arith::ExtUIOp::create(b, loc, i32, x)) : x;
    auto s = gpu::ShuffleOp::create(b, loc, y, offset, 32,
                                    gpu::ShuffleMode::XOR);
    Value r = s.getShuffleResult();
    return widen ? Value(arith::TruncIOp::create(b, loc, t, r)) : r;
  };
  // A butterfly leaves the warp's total in every lane, and the same bits in
  // every lane, since each step combines the same pair in either order.
  Value v = value;
  for (int32_t offset = 16; offset >= 1; offset /= 2)
    v = combine(v, shuffle(v, offset));
  if (blockSize <= 32)
    return v;
  Value c32 = cidx(b, loc, 32);
  Value lane = arith::RemUIOp::create(b, loc, threadId, c32);
  Value warp = arith::DivUIOp::create(b, loc, threadId, c32);
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                       cidx(b, loc, 0));
  auto ifLeader = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
    memref::StoreOp::create(b, loc, v, scratch, ValueRange{warp});
  }
  gpu::BarrierOp::create(b, loc);
  Value acc = memref::LoadOp::create(b, loc, scratch, cidx(b, loc, 0));
  for (int64_t w = 1; w < blockSize / 32; ++w)
    acc = combine(acc, memref::LoadOp::create(b, loc, scratch, cidx(b, loc, w)));
  return acc;
}

//===----------------------------------------------------------------------===//
// Math without libdevice
//===----------------------------------------------------------------------===//

namespace {

/// math ops with a native PTX instruction become a call of the LLVM
/// intrinsic. Not the LLVM dialect's intrinsic op: convert-gpu-to-nvvm marks
/// llvm.intr.sqrt/fabs/floor/ceil/roundeven/copysign illegal (for some types
/// NVPTX would turn them into libm calls), and with the math op itself it
/// calls libdevice, which the runtime cannot count on. For the float types
/// Kiln uses, NVPTX selects one instruction (sqrt.rn, abs, cvt.rmi...) or
/// widens f16/bf16 to f32 first, so the generic call is safe.
template <typename MathOp>
struct MathToIntrinsicCall : OpRewritePattern<MathOp> {
  MathToIntrinsicCall(MLIRContext *ctx, StringRef intrinsic)
      : OpRewritePattern<MathOp>(ctx), intrinsic(intrinsic) {}
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    if (!llvm::isa<FloatType>(getElementTypeOrSelf(op.getType())))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr(intrinsic),
        op->getOperands());
    return success();
  }
  StringRef intrinsic;
};

/// |x| for integers, wrapping at the minimum as the CPU backends do.
struct AbsIToArith : OpRewritePattern<math::AbsIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsIOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Value zero = constantOf(rewriter, loc, x.getType(), 0.0);
    Value neg = arith::SubIOp::create(rewriter, loc, zero, x);
    rewriter.replaceOpWithNewOp<arith::MaxSIOp>(op, x, neg);
    return success();
  }
};

/// Float remainder as NVPTX expands frem itself: x - trunc(x / y) * y, and
/// x where |y| is infinite. convert-gpu-to-nvvm rejects llvm.frem (and would
/// call libdevice's fmod for arith.remf). Like NVPTX's expansion, it loses
/// exactness when x / y is far beyond the mantissa.
struct RemFToArith : OpRewritePattern<arith::RemFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::RemFOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = op.getLhs(), y = op.getRhs();
    Value q = math::TruncOp::create(b, loc, arith::DivFOp::create(b, loc, x, y));
    Value r = arith::SubFOp::create(b, loc, x,
                                    arith::MulFOp::create(b, loc, q, y));
    Value inf = constantOf(b, loc, x.getType(),
                           std::numeric_limits<double>::infinity());
    Value yIsInf =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                              math::AbsFOp::create(b, loc, y), inf);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, yIsInf, x, r);
    return success();
  }
};

/// pow(a, b) = exp(b * log|a|), with the sign and special cases of C's pow:
/// a negative base with an integer exponent keeps its sign when the
/// exponent is odd (NaN for a fractional one), x^0 = 1 and 1^y = 1. The
/// exp and log are then approximated like every other f32 transcendental.
struct PowFToExpLog : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value a = op.getLhs(), e = op.getRhs();
    Type t = a.getType();
    auto c = [&](double v) { return constantOf(b, loc, t, v); };
    using P = arith::CmpFPredicate;
    auto cmp = [&](P p, Value x, Value y) {
      return arith::CmpFOp::create(b, loc, p, x, y);
    };
    Value absA = math::AbsFOp::create(b, loc, a);
    Value r = math::ExpOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, e, math::LogOp::create(b, loc, absA)));
    Value isInt = cmp(P::OEQ, math::FloorOp::create(b, loc, e), e);
    Value half = arith::MulFOp::create(b, loc, e, c(0.5));
    Value isOdd = arith::AndIOp::create(
        b, loc, isInt, cmp(P::ONE, math::FloorOp::create(b, loc, half), half));
    Value negBase = cmp(P::OLT, a, c(0.0));
    Value signed_ = arith::SelectOp::create(
        b, loc, isOdd, arith::NegFOp::create(b, loc, r), r);
    Value nan = c(std::numeric_limits<double>::quiet_NaN());
    Value forNeg = arith::SelectOp::create(b, loc, isInt, signed_, nan);
    Value result = arith::SelectOp::create(b, loc, negBase, forNeg, r);
    Value one = c(1.0);
    Value trivial = arith::OrIOp::create(b, loc, cmp(P::OEQ, e, c(0.0)),
                                         cmp(P::OEQ, a, one));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, trivial, one, result);
    return success();
  }
};

} // namespace

LogicalResult gpugen::lowerMathForNVVM(Operation *root) {
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  patterns.add<PowFToExpLog, AbsIToArith, RemFToArith>(ctx);
  patterns.add<MathToIntrinsicCall<math::SqrtOp>>(ctx, "llvm.sqrt");
  patterns.add<MathToIntrinsicCall<math::AbsFOp>>(ctx, "llvm.fabs");
  patterns.add<MathToIntrinsicCall<math::FloorOp>>(ctx, "llvm.floor");
  patterns.add<MathToIntrinsicCall<math::CeilOp>>(ctx, "llvm.ceil");
  patterns.add<MathToIntrinsicCall<math::TruncOp>>(ctx, "llvm.trunc");
  patterns.add<MathToIntrinsicCall<math::RoundEvenOp>>(ctx, "llvm.roundeven");
  patterns.add<MathToIntrinsicCall<math::FmaOp>>(ctx, "llvm.fma");
  patterns.add<MathToIntrinsicCall<math::CopySignOp>>(ctx, "llvm.copysign");
  // The CPU backend's approximations (f32; f16 and bf16 go through f32), so
  // that both backends round the same way.
  populateMathPolynomialApproximationPatterns(patterns);
  return applyPatternsGreedily(root, std::move(patterns));
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Makes every launch of `host` read nothing from outside but the host
/// function's buffers. The rewrite driver of the math lowering moves the
/// constants it creates or folds to the entry of the host function (a
/// gpu.launch is not isolated from above); gpu-kernel-outlining would turn
/// each into a scalar kernel parameter, which the runtime, passing one
/// pointer per buffer, cannot supply. They are sunk back, and anything else
/// captured is an error of the generator.
static LogicalResult sinkConstantsIntoLaunches(func::FuncOp host) {
  Block *entry = &host.getBody().front();
  WalkResult walk = host.walk([&](gpu::LaunchOp launch) {
    if (failed(sinkOperationsIntoLaunchOp(launch, [](Operation *op) {
          return op->hasTrait<mlir::OpTrait::ConstantLike>();
        })))
      return WalkResult::interrupt();
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(launch.getBody(), captured);
    for (Value v : captured) {
      auto arg = llvm::dyn_cast<BlockArgument>(v);
      if (arg && arg.getOwner() == entry)
        continue;
      launch.emitError() << "kiln-generate-gpu-kernels: a launch of @"
                         << host.getName()
                         << " reads a value that is not one of its buffers";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // The constants left behind are read by no launch.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*entry)))
    if (op.hasTrait<mlir::OpTrait::ConstantLike>() && op.use_empty())
      op.erase();
  return success();
}

namespace {

struct KilnGenerateGPUKernelsPass
    : public mlir::kiln::impl::KilnGenerateGPUKernelsBase<
          KilnGenerateGPUKernelsPass> {
  using KilnGenerateGPUKernelsBase::KilnGenerateGPUKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Options options;
    options.mma = mma;
    StringRef chipName(chip);
    if (!chipName.consume_front("sm_") ||
        chipName.getAsInteger(10, options.sm) || options.sm < 50) {
      module.emitError() << "kiln-generate-gpu-kernels: chip '" << chip
                         << "' is not of the form sm_NN (sm_50 or later)";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> kernels;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(kKernelKindAttr))
        kernels.push_back(fn);
    auto runNested = [&](OpPassManager &pm, Operation *op) {
      return runPipeline(pm, op);
    };
    for (func::FuncOp k : kernels) {
      KernelKind kind = *kernelKindOf(k);
      if (!isSupported(k))
        return signalPassFailure();
      LogicalResult ok = failure();
      if (kind == KernelKind::Elementwise)
        ok = generateElementwise(k, options);
      else if (kind == KernelKind::Reduction)
        ok = generateReduction(k, options);
      else if (kind == KernelKind::Matmul)
        ok = generateMatmul(k, options);
      // Shapes the dedicated generators do not cover (several outputs of a
      // row kernel, a reduction over scattered axes, a non-f32 matmul...)
      // still run, through linalg.
      if (failed(ok))
        ok = generateGeneric(k, runNested);
      if (failed(ok)) {
        k.emitError() << "kiln-generate-gpu-kernels: cannot generate the "
                      << stringifyKernelKind(kind) << " kernel @"
                      << k.getName();
        return signalPassFailure();
      }
    }
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kKernelOfAttr))
        continue;
      if (failed(lowerMathForNVVM(fn))) {
        fn.emitError() << "kiln-generate-gpu-kernels: math lowering failed";
        return signalPassFailure();
      }
      if (failed(sinkConstantsIntoLaunches(fn)))
        return signalPassFailure();
    }
    if (!keepGraph) {
      // The graph is the runtime's plan, not device code.
      for (auto fn :
           llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
        if (!fn->hasAttr(kKernelOfAttr))
          fn.erase();
      return;
    }
    for (func::FuncOp k : kernels)
      if (k.symbolKnownUseEmpty(module))
        k.erase();
  }

  /// Kernel buffers are passed as bare pointers, which needs static shapes.
  bool isSupported(func::FuncOp k) {
    auto isStatic = [](Type t) {
      return llvm::cast<RankedTensorType>(t).hasStaticShape();
    };
    if (llvm::all_of(k.getArgumentTypes(), isStatic) &&
        llvm::all_of(k.getResultTypes(), isStatic))
      return true;
    k.emitError() << "kiln-generate-gpu-kernels: @" << k.getName()
                  << " has dynamic dims; GPU kernels need static shapes";
    return false;
  }
};

} // namespace
