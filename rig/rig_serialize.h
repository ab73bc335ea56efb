// A compact binary form of rig::Rig, for handing a rig from the isolated import process to its parent.
#pragma once

#include <string>
#include <string_view>

#include "model.h"
#include "result.h"

namespace rig {

/// Appends the rig to `out` (native endianness and layout: both ends are the same binary).
void serializeRig(const Rig& rig, std::string& out);

/// Reads a rig written by serializeRig; fails on truncated or inconsistent data (every read is bounds-checked).
Result<Rig> deserializeRig(std::string_view data);

} // namespace rig
