// Per-joint data every skinning method needs, computed once per pose from the skin matrices.
#pragma once

#include <cstddef>
#include <span>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace rig {

/// A dual quaternion: real part (rotation) and dual part (translation), unit when real is unit.
struct DualQuat {
    glm::quat real{1, 0, 0, 0};
    glm::quat dual{0, 0, 0, 0};
};

/// Derived data of one skin matrix M = [R | t].
struct JointFrame {
    glm::mat4 matrix{1.0f};        ///< M, the skin matrix (joint world × inverse bind)
    glm::mat3 inverseTranspose{1.0f}; ///< R^{-T}; zero when R is singular
    DualQuat dq;                   ///< rigid part Q of the polar decomposition R = Q S, with M's translation
    glm::mat3 stretch{1.0f};       ///< S, symmetric scale/shear, applied before the rigid part
    bool mirrored = false;         ///< det(R) < 0: no dual-quaternion form exists
    bool singular = false;         ///< |det(R)| too small to invert or decompose
};

/// Polar decomposition R = Q S with Q a rotation (det +1 when det R > 0) and S symmetric.
/// Returns false (and leaves q = identity, s = R) when R is singular or mirrored.
bool polarDecompose(const glm::mat3& r, glm::mat3& q, glm::mat3& s);

/// Fills frames[i] from matrices[i]. frames must hold matrices.size() elements.
void buildJointFrames(std::span<const glm::mat4> matrices, std::span<JointFrame> frames);

} // namespace rig
