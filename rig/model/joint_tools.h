// Joint editing helpers for the UI and the presets: Euler angles in the pose file's convention back from a rotation,
// a joint's bone axis, and the classic lesson edits (twist, bend, squash) about it.
#pragma once

#include <glm/glm.hpp>

#include "rig/model/model.h"
#include "rig/model/pose.h"

namespace rig {

/// XYZ Euler angles in degrees (X applied first: R = Rz Ry Rx, as eulerXYZ) of a rotation matrix, each chosen among its
/// equivalents (±360°) nearest to `near`, so that a drag keeps its angles continuous. At gimbal lock (|Y| = 90°) X
/// takes what it had in `near` and Z the rest.
glm::vec3 eulerXYZFromMatrix(const glm::mat3& r, const glm::vec3& nearDeg = glm::vec3(0.0f));
/// The same for any order: angles (about X, Y, Z) with eulerRotation(result, order) = r, nearest to `nearDeg`; at
/// gimbal lock the first axis of the order keeps its angle from `nearDeg`.
glm::vec3 eulerFromMatrix(const glm::mat3& r, RotateOrder order, const glm::vec3& nearDeg = glm::vec3(0.0f));

/// The rotation of `degrees` about unit `axis` (right-handed).
glm::mat3 axisAngle(const glm::vec3& axis, float degrees);

/// The direction of a joint's bone in its own local frame (where edits apply): towards its first child (the child's
/// rest translation), else away from its parent (the node's own rest translation seen from the node), else +X.
glm::vec3 boneAxis(const Rig& rig, int node);

/// The local axis (0 x, 1 y, 2 z) most aligned with `dir`.
int dominantAxis(const glm::vec3& dir);

/// Lesson edits of a joint with bone axis `bone` (unit, local), angles in `order`. A rotation about a local axis keeps
/// the angle as set (twist 180° about +Y is rotate (0, 180, 0), not its decomposition (−180, 0, −180)):
/// twist: rotate `degrees` about the bone (the candy wrapper at 180°);
JointEdit twistEdit(const glm::vec3& bone, float degrees, RotateOrder order = RotateOrder::XYZ);
/// bend: rotate `degrees` about the local axis perpendicular to the bone that is least aligned with it, made
/// perpendicular to it;
JointEdit bendEdit(const glm::vec3& bone, float degrees, RotateOrder order = RotateOrder::XYZ);
/// squash: scale `along` on the local axis of the bone and `across` on the other two (non-uniform: where normal
/// transforms differ).
JointEdit squashEdit(const glm::vec3& bone, float along, float across);

} // namespace rig
