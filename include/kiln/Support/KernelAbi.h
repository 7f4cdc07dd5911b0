//===- KernelAbi.h - What generated Cpu code and the runtime share -*- C++
//-*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The symbols that connect the Cpu kernels the compiler generates
// (lib/Conversion, lib/Target/Cpu) with the runtime that loads and runs
// them (lib/Runtime/Cpu), named once for both sides.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_KERNELABI_H
#define KILN_SUPPORT_KERNELABI_H

namespace kiln::abi {

/// `kiln_call_<phase>(begin, end, descriptors)`: runs units [begin, end) of
/// a phase; `descriptors` points at one flat memref descriptor per buffer.
inline constexpr const char kPhaseEntryPrefix[] = "kiln_call_";

/// kBadIndexFn(site: i64, index: i64, size: i64): an index out of range
/// (kiln::IndexSite names the op); the kernel goes on with it clamped and
/// the runtime throws after the call.
inline constexpr const char kBadIndexFn[] = "kiln_bad_index";

/// kStreamStoreFn(dst: i64, src: i64, bytes: i64) copies a block of a
/// streamed output with non-temporal stores; kStreamFenceFn() orders them.
inline constexpr const char kStreamStoreFn[] = "kiln_stream_store";
inline constexpr const char kStreamFenceFn[] = "kiln_stream_fence";

} // namespace kiln::abi

#endif // KILN_SUPPORT_KERNELABI_H
