//===- CheckpointingStrategy.h - What autodiff keeps ------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_CHECKPOINTINGSTRATEGY_H
#define KILN_SUPPORT_CHECKPOINTINGSTRATEGY_H

#include <cstdint>
#include <string>

namespace kiln {

/// Which forward values autodiff keeps for the backward pass.
class CheckpointingStrategy {
public:
  enum class Kind : uint8_t { Disabled, Balanced, Budget };

  /// Save every forward value that backward needs.
  static const CheckpointingStrategy Disabled;
  /// Save compute-bound results; recompute memory-bound ones in backward.
  static const CheckpointingStrategy Balanced;
  /// Keep the step's peak memory under `bytes` with the least recompute.
  static CheckpointingStrategy Budget(int64_t bytes) {
    return CheckpointingStrategy(Kind::Budget, bytes);
  }

  constexpr Kind kind() const { return kind_; }
  constexpr int64_t budgetBytes() const { return bytes_; }
  /// "disabled", "balanced", "budget=1048576".
  std::string str() const;

  bool operator==(const CheckpointingStrategy &o) const {
    return kind_ == o.kind_ && bytes_ == o.bytes_;
  }
  bool operator!=(const CheckpointingStrategy &o) const {
    return !(*this == o);
  }

  constexpr CheckpointingStrategy(Kind k, int64_t bytes)
      : kind_(k), bytes_(bytes) {}

private:
  Kind kind_;
  int64_t bytes_;
};

inline constexpr CheckpointingStrategy CheckpointingStrategy::Disabled{
    CheckpointingStrategy::Kind::Disabled, 0};
inline constexpr CheckpointingStrategy CheckpointingStrategy::Balanced{
    CheckpointingStrategy::Kind::Balanced, 0};

} // namespace kiln

#endif // KILN_SUPPORT_CHECKPOINTINGSTRATEGY_H
