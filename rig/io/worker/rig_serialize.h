// A compact binary form of rig::Rig, for handing a rig from the import worker (worker_protocol.h) to RigScope.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig {

/// The format's version, written after its magic; a reader refuses any other (a worker of another build).
inline constexpr uint32_t kRigFormatVersion = 5;

/// Appends the rig to `out` (native endianness and layout: both ends are the same binary). Images travel as decoded
/// pixels only: Image::encoded is not written (the worker decodes before it replies).
void serializeRig(const Rig& rig, std::string& out);

/// Reads a rig written by serializeRig; fails on another format version, on truncated or inconsistent data (every read
/// is bounds-checked, booleans and enumerations are range-checked) and on a rig that breaks checkStructure().
Result<Rig> deserializeRig(std::string_view data);

} // namespace rig
