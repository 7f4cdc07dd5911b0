//===- Mgpu.h - Kiln's mgpu* entry points over the driver -------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The operations MLIR's GPU host lowering calls mgpu* (module loading,
// kernel launch, streams, memory), written over the dlopen'ed driver. They
// keep MLIR's names and argument lists so that the two read alike, but live
// in Kiln's namespace and report failures as kiln::Error instead of
// printing them: they are called from Kiln's runtime, not from JIT'd host
// code.
//
// Every call runs in the primary context of the calling thread's current
// device (mgpuSetDefaultDevice; device 0 until set).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_CUDA_MGPU_H
#define KILN_LIB_RUNTIME_CUDA_MGPU_H

#include "CudaDriver.h"

#include <cstdint>

namespace kiln::detail::cuda {

void mgpuSetDefaultDevice(int32_t device);

/// Loads PTX text (`assemblySize` bytes, NUL-terminated or not), letting
/// the driver compile it for the device at `optLevel` (0-4). A rejected
/// module throws with the driver's log.
CUmodule mgpuModuleLoadJIT(void *data, int optLevel, size_t assemblySize);
/// Loads a cubin or fatbin.
CUmodule mgpuModuleLoad(void *data, size_t gpuBlobSize);
void mgpuModuleUnload(CUmodule module);
CUfunction mgpuModuleGetFunction(CUmodule module, const char *name);

void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t paramsCount);

CUstream mgpuStreamCreate();
void mgpuStreamDestroy(CUstream stream);
void mgpuStreamSynchronize(CUstream stream);
/// Makes `stream` wait for the work `event` recorded.
void mgpuStreamWaitEvent(CUstream stream, CUevent event);

/// Events without timing, to order streams.
CUevent mgpuEventCreate();
void mgpuEventDestroy(CUevent event);
void mgpuEventRecord(CUevent event, CUstream stream);
/// Whether the work `event` recorded has finished (never blocks).
bool mgpuEventQuery(CUevent event);

/// Makes the current device's context current on the calling thread, for
/// libraries that work in it (NCCL).
void mgpuEnterDevice();

/// Device memory; host-shared (managed) memory is not supported.
void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream, bool isHostShared);
void mgpuMemFree(void *ptr, CUstream stream);
/// Copies in one direction each, ordered on `stream`.
void mgpuMemcpyHtoD(void *dst, const void *src, size_t sizeBytes,
                    CUstream stream);
void mgpuMemcpyDtoH(void *dst, const void *src, size_t sizeBytes,
                    CUstream stream);
void mgpuMemcpyDtoD(void *dst, const void *src, size_t sizeBytes,
                    CUstream stream);
void mgpuMemset8(void *dst, uint8_t value, size_t count, CUstream stream);

/// Free and total bytes of the current device.
void mgpuMemGetInfo(size_t *freeBytes, size_t *totalBytes);

} // namespace kiln::detail::cuda

#endif // KILN_LIB_RUNTIME_CUDA_MGPU_H
