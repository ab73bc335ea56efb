// The structural invariants every Rig that reaches the rest of RigScope satisfies, whatever file it came from: the
// importer establishes them, the import worker's reply is checked against them (a worker is not trusted), and the
// fuzzer asserts them. They are about shape (sizes, indices, order), never about values: NaN weights or singular
// bind matrices are the audit's business, not a structural fault.
#pragma once

#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig {

/// Limits the runtime relies on (16-bit joint indices with one value to spare).
inline constexpr size_t kMaxJointsPerSkin = 65534;
/// The largest texture side the import decodes (the largest a GPU of this tool's era is sure to take).
inline constexpr uint32_t kMaxImageSide = 16384;

/// Ok when:
/// - every node's parent is -1 or an earlier node;
/// - every skin has one inverse bind per joint, at most kMaxJointsPerSkin joints, each a node index or -1 (a bone the
///   file names but no node matches);
/// - there is at least one mesh, and every mesh has vertices, a whole triangle list with indices below its vertex
///   count, one normal per vertex, one tangent and one UV per vertex or none, a node index in range or -1;
/// - a skinned mesh has a skin in range and influence offsets (vertex count + 1, starting at 0, never decreasing,
///   ending at the influence count); an unskinned one has no influences;
/// - every morph target has one position delta per vertex and one normal / tangent delta per vertex or none, and the
///   mesh has one default weight per target;
/// - a mesh's base colour image is -1 or an image index in range; every decoded image is at most kMaxImageSide on a
///   side with exactly width * height * 4 bytes of pixels, and one that is not decoded has no size and no pixels;
/// - every clip has a finite duration >= 0, and channels whose node / mesh indices are in range.
/// Otherwise fails with what is wrong first ("mesh 2: index out of range").
Result<void> checkStructure(const Rig& rig);

} // namespace rig
