#include "rig/deform/joint_frames.h"

#include <cassert>
#include <cmath>

namespace rig {

namespace {

bool nearlySingular(const glm::dmat3& r)
{
    const double det = glm::determinant(r);
    double f2 = 0.0;
    for (int c = 0; c < 3; ++c)
        f2 += glm::dot(r[c], r[c]);
    const double scale3 = std::pow(f2 / 3.0, 1.5); // det of a uniform scale with the same Frobenius norm
    return !std::isfinite(det) || !(std::fabs(det) > 1e-9 * scale3);
}

double frobenius(const glm::dmat3& m)
{
    double f2 = 0.0;
    for (int c = 0; c < 3; ++c)
        f2 += glm::dot(m[c], m[c]);
    return std::sqrt(f2);
}

} // namespace

bool polarDecompose(const glm::mat3& rf, glm::mat3& q, glm::mat3& s)
{
    const glm::dmat3 r(rf);
    q = glm::mat3(1.0f);
    s = rf;
    if (nearlySingular(r) || glm::determinant(r) < 0.0)
        return false;
    // Scaled Newton iteration X <- (g X + X^{-T} / g) / 2 converges quadratically to the rotation factor.
    glm::dmat3 x = r;
    for (int it = 0; it < 32; ++it) {
        const glm::dmat3 xit = glm::transpose(glm::inverse(x));
        const double g = std::sqrt(frobenius(xit) / frobenius(x));
        const glm::dmat3 next = 0.5 * (g * x + xit / g);
        const glm::dmat3 d = next - x;
        x = next;
        if (frobenius(d) < 1e-14)
            break;
    }
    glm::dmat3 sd = glm::transpose(x) * r;
    sd = 0.5 * (sd + glm::transpose(sd));
    q = glm::mat3(x);
    s = glm::mat3(sd);
    return true;
}

void buildJointFrames(std::span<const glm::mat4> matrices, std::span<JointFrame> frames)
{
    assert(frames.size() == matrices.size());
    for (size_t i = 0; i < matrices.size(); ++i) {
        JointFrame& f = frames[i];
        f.matrix = matrices[i];
        const glm::mat3 r(matrices[i]);
        const glm::dmat3 rd(r);
        f.singular = nearlySingular(rd);
        f.mirrored = !f.singular && glm::determinant(rd) < 0.0;
        f.inverseTranspose = f.singular ? glm::mat3(0.0f) : glm::mat3(glm::transpose(glm::inverse(rd)));
        glm::mat3 q, s;
        if (polarDecompose(r, q, s)) {
            const glm::quat qr = glm::normalize(glm::quat_cast(q));
            const glm::vec3 t(matrices[i][3]);
            f.dq.real = qr;
            f.dq.dual = 0.5f * (glm::quat(0.0f, t.x, t.y, t.z) * qr);
            f.stretch = s;
        } else {
            f.dq = DualQuat{};
            f.stretch = r;
        }
    }
}

} // namespace rig
