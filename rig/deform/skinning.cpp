#include "rig/deform/skinning.h"

#include <array>
#include <cassert>
#include <cmath>
#include <cstring>
#include <vector>

#include "rig/model/math.h"
#include "rig/deform/kernels/skinning_internal.h"
#include "rig/deform/weight_gradients.h"
#include "rig/platform/cpu_features.h"

namespace rig {

namespace {

constexpr std::array<std::string_view, kMethodCount> kIds = {
    "positions-only", "linear", "blend-inverse-transpose", "inverse-transpose",
    "cofactor",       "dual-quaternion", "jacobian",       "center-of-rotation", "rebuilt",
};

// Affine 3x4 blend Σ w M, accumulated over the compact palette (detail::PaletteMatrix): columns c0, c1, c2 and the
// translation at floats 0, 4, 8, 12, each padded with a 0. Element for element the same products and sums (same
// order) as blending the glm::mat4 columns, in four 4-float rows the compiler keeps in registers.
struct Affine {
    alignas(16) float m[16] = {};
    void add(const detail::PaletteMatrix& p, float w)
    {
        for (int i = 0; i < 16; ++i)
            m[i] += w * p.m[i];
    }
    glm::vec3 column(int c) const { return glm::vec3(m[4 * c], m[4 * c + 1], m[4 * c + 2]); }
    glm::mat3 linear() const { return glm::mat3(column(0), column(1), column(2)); }
    glm::vec3 point(const glm::vec3& p) const
    {
        return column(0) * p.x + column(1) * p.y + column(2) * p.z + column(3);
    }
};

// M p for one compact palette entry (the jacobian's weight-gradient term).
glm::vec3 transformPoint(const detail::PaletteMatrix& e, const glm::vec3& p)
{
    const float* m = e.m;
    return glm::vec3(m[0], m[1], m[2]) * p.x + glm::vec3(m[4], m[5], m[6]) * p.y + glm::vec3(m[8], m[9], m[10]) * p.z +
           glm::vec3(m[12], m[13], m[14]);
}

// |det| below this fraction of a same-norm uniform scale's determinant counts as singular. scale3 = s^1.5 as
// s·sqrt(s), the form the GPU (deform_skin.comp) uses.
bool singular3(const glm::mat3& a, float det)
{
    const float f2 = glm::dot(a[0], a[0]) + glm::dot(a[1], a[1]) + glm::dot(a[2], a[2]);
    const float s = f2 * (1.0f / 3.0f);
    const float scale3 = s * std::sqrt(s);
    return !(std::fabs(det) > 1e-6f * scale3) || !std::isfinite(det);
}

glm::vec3 rotate(const glm::quat& q, const glm::vec3& v)
{
    const glm::vec3 u(q.x, q.y, q.z);
    const glm::vec3 t = 2.0f * glm::cross(u, v);
    return v + q.w * t + glm::cross(u, t);
}

template <size_t K, typename PerVertex>
void loop(const SkinJob& job, size_t first, size_t last, PerVertex&& body)
{
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    for (size_t v = first; v < last; ++v)
        body(v, joints + v * K, weights + v * K);
}

template <size_t K>
Affine blend(const detail::PaletteMatrix* palette, const uint16_t* j, const float* w)
{
    Affine a;
    for (size_t i = 0; i < K; ++i)
        if (w[i] != 0.0f)
            a.add(palette[j[i]], w[i]);
    return a;
}

// The scalar reference of every method. `affine` is the job's palette in compact form (buildCompactPalette).
// flatten: every helper (blend, cofactor, safeNormalize, glm) is inlined into the per-method loops, so that the
// per-vertex temporaries stay in registers.
template <size_t K>
__attribute__((flatten)) void runMethod(const SkinJob& job, const detail::PaletteMatrix* affine, size_t first,
                                        size_t last)
{
    const JointFrame* pal = job.palette.data();
    const glm::vec3* inP = job.positions.data();
    const glm::vec3* inN = job.normals.data();
    const glm::vec4* inT = job.tangents.data();
    glm::vec3* outP = job.outPositions.empty() ? nullptr : job.outPositions.data();
    glm::vec3* outN = job.outNormals.empty() ? nullptr : job.outNormals.data();
    glm::vec4* outT = job.outTangents.data();
    uint8_t* flags = job.outFlags.empty() ? nullptr : job.outFlags.data();
    const bool tangents = !job.tangents.empty() && !job.outTangents.empty();

    auto writeTangent = [&](size_t v, const glm::vec3& t) {
        if (tangents)
            outT[v] = glm::vec4(safeNormalize(t), inT[v].w);
    };
    auto setFlag = [&](size_t v, uint8_t f) {
        if (flags)
            flags[v] = f;
    };

    switch (job.method) {
    case Method::PositionsOnly:
        loop<K>(job, first, last, [&](size_t v, const uint16_t* j, const float* w) {
            if (outP)
                outP[v] = blend<K>(affine, j, w).point(inP[v]);
            if (outN) // positions only: the rest normals and tangents may be left unwritten
                outN[v] = safeNormalize(inN[v]);
            writeTangent(v, glm::vec3(inT ? inT[v] : glm::vec4(0.0f)));
            setFlag(v, SkinFlagNone);
        });
        break;
    case Method::Linear:
        loop<K>(job, first, last, [&](size_t v, const uint16_t* j, const float* w) {
            const Affine a = blend<K>(affine, j, w);
            if (outP)
                outP[v] = a.point(inP[v]);
            const glm::mat3 a3 = a.linear();
            outN[v] = safeNormalize(a3 * inN[v]);
            if (tangents)
                writeTangent(v, a3 * glm::vec3(inT[v]));
            setFlag(v, SkinFlagNone);
        });
        break;
    case Method::BlendInverseTranspose:
        loop<K>(job, first, last, [&](size_t v, const uint16_t* j, const float* w) {
            const Affine a = blend<K>(affine, j, w);
            if (outP)
                outP[v] = a.point(inP[v]);
            glm::mat3 nm(0.0f);
            bool singular = false;
            for (size_t i = 0; i < K; ++i)
                if (w[i] != 0.0f) {
                    nm += w[i] * pal[j[i]].inverseTranspose;
                    singular |= pal[j[i]].singular;
                }
            outN[v] = singular ? glm::vec3(0.0f) : safeNormalize(nm * inN[v]);
            if (tangents)
                writeTangent(v, a.linear() * glm::vec3(inT[v]));
            setFlag(v, singular ? SkinFlagSingular : SkinFlagNone);
        });
        break;
    case Method::InverseTranspose:
    case Method::Cofactor: {
        const bool inverse = job.method == Method::InverseTranspose;
        loop<K>(job, first, last, [&](size_t v, const uint16_t* j, const float* w) {
            const Affine a = blend<K>(affine, j, w);
            if (outP)
                outP[v] = a.point(inP[v]);
            const glm::mat3 a3 = a.linear();
            const glm::vec3 cn = cofactor(a3) * inN[v];
            uint8_t f = SkinFlagNone;
            if (inverse) {
                // A^{-T} n = cof(A) n / det(A): same direction as the cofactor, flipped when det < 0.
                const float det = glm::determinant(a3);
                if (singular3(a3, det)) {
                    outN[v] = glm::vec3(0.0f);
                    f = SkinFlagSingular;
                } else {
                    outN[v] = safeNormalize(det < 0.0f ? -cn : cn);
                }
            } else {
                outN[v] = safeNormalize(cn);
            }
            if (tangents)
                writeTangent(v, a3 * glm::vec3(inT[v]));
            setFlag(v, f);
        });
        break;
    }
    case Method::DualQuaternion:
    case Method::CenterOfRotation: {
        const bool dq = job.method == Method::DualQuaternion;
        const glm::vec3* centers = job.centers.data();
        loop<K>(job, first, last, [&](size_t v, const uint16_t* j, const float* w) {
            bool fallback = false;
            for (size_t i = 0; i < K; ++i)
                if (w[i] != 0.0f && (pal[j[i]].mirrored || pal[j[i]].singular))
                    fallback = true;
            if (fallback) {
                const Affine a = blend<K>(affine, j, w);
                if (outP)
                    outP[v] = a.point(inP[v]);
                const glm::mat3 a3 = a.linear();
                outN[v] = safeNormalize(a3 * inN[v]);
                if (tangents)
                    writeTangent(v, a3 * glm::vec3(inT[v]));
                setFlag(v, SkinFlagDqFallback);
                return;
            }
            // The pivot is the largest weight: slot 0 of the sorted stream.
            const glm::quat pivot = pal[j[0]].dq.real;
            glm::quat real(0, 0, 0, 0), dual(0, 0, 0, 0);
            glm::mat3 s(0.0f);
            for (size_t i = 0; i < K; ++i) {
                if (w[i] == 0.0f)
                    continue;
                const JointFrame& fr = pal[j[i]];
                const float sw = glm::dot(fr.dq.real, pivot) < 0.0f ? -w[i] : w[i];
                real += sw * fr.dq.real;
                if (dq)
                    dual += sw * fr.dq.dual;
                s += w[i] * fr.stretch;
            }
            const float len = glm::length(real);
            if (!(len > 1e-12f) || !std::isfinite(len)) {
                if (outP)
                    outP[v] = glm::vec3(0.0f);
                outN[v] = glm::vec3(0.0f);
                if (tangents)
                    outT[v] = glm::vec4(0.0f);
                setFlag(v, SkinFlagSingular);
                return;
            }
            real = real * (1.0f / len);
            if (outP) {
                if (dq) {
                    dual = dual * (1.0f / len);
                    const glm::quat tq = dual * glm::conjugate(real);
                    const glm::vec3 translation = 2.0f * glm::vec3(tq.x, tq.y, tq.z);
                    outP[v] = rotate(real, s * inP[v]) + translation;
                } else {
                    // About the centre c: the blended rotation (after the blended stretch) of p - c, plus the linear
                    // blend of c itself: Q S (p - c) + A c, which is M p for a vertex bound to one joint.
                    const glm::vec3 c = centers[v];
                    outP[v] = rotate(real, s * (inP[v] - c)) + blend<K>(affine, j, w).point(c);
                }
            }
            outN[v] = safeNormalize(rotate(real, cofactor(s) * inN[v]));
            if (tangents)
                writeTangent(v, rotate(real, s * glm::vec3(inT[v])));
            setFlag(v, SkinFlagNone);
        });
        break;
    }
    case Method::Jacobian: {
        const uint32_t* off = job.gradients.offsets.data();
        const uint16_t* gj = job.gradients.joints.data();
        const glm::vec3* gg = job.gradients.gradients.data();
        loop<K>(job, first, last, [&](size_t v, const uint16_t* j, const float* w) {
            const Affine a = blend<K>(affine, j, w);
            const glm::vec3 p = inP[v];
            if (outP)
                outP[v] = a.point(p);
            glm::mat3 jac = a.linear();
            for (uint32_t g = off[v]; g < off[v + 1]; ++g) {
                const glm::vec3 mp = transformPoint(affine[gj[g]], p);
                const glm::vec3 grad = gg[g];
                // J += (M_j p) ∇w_jᵀ : column c gains (M_j p) * ∇w_j[c].
                jac[0] += mp * grad.x;
                jac[1] += mp * grad.y;
                jac[2] += mp * grad.z;
            }
            outN[v] = safeNormalize(cofactor(jac) * inN[v]);
            if (tangents)
                writeTangent(v, jac * glm::vec3(inT[v]));
            setFlag(v, SkinFlagNone);
        });
        break;
    }
    case Method::Rebuilt:
        assert(false && "rebuilt is not a skin job");
        break;
    }
}

} // namespace

namespace detail {

PaletteMatrix* compactPaletteBuffer(size_t count)
{
    thread_local std::vector<PaletteMatrix> buffer;
    if (buffer.size() < count)
        buffer.resize(std::max(count, 2 * buffer.size()));
    return buffer.data();
}

bool buildCompactPalette(std::span<const JointFrame> palette, PaletteMatrix* out)
{
    bool finite = true;
    for (size_t i = 0; i < palette.size(); ++i) {
        const glm::mat4& m = palette[i].matrix;
        float* d = out[i].m;
        for (int c = 0; c < 4; ++c) {
            d[4 * c + 0] = m[c][0];
            d[4 * c + 1] = m[c][1];
            d[4 * c + 2] = m[c][2];
            d[4 * c + 3] = 0.0f;
            finite = finite && std::isfinite(m[c][0] + m[c][1] + m[c][2]);
        }
    }
    return finite;
}

bool buildMethodTables(std::span<const JointFrame> palette, Method m, MethodTables& out)
{
    struct Buffers {
        std::vector<PaletteMatrix> inverseTranspose, stretch;
        std::vector<float, std::allocator<float>> dq; // 8 per joint, 32-byte aligned by the offset below
        std::vector<uint8_t> flags;
    };
    thread_local Buffers b;
    const size_t n = palette.size();
    if (b.flags.size() < n)
        b.flags.resize(std::max(n, 2 * b.flags.size()));
    bool finite = true;
    out = MethodTables{};
    for (size_t i = 0; i < n; ++i) {
        b.flags[i] = uint8_t((palette[i].singular ? MethodTables::Singular : 0) | (palette[i].mirrored ? MethodTables::Mirrored : 0));
        out.anySingular = out.anySingular || palette[i].singular;
        out.anyMirrored = out.anyMirrored || palette[i].mirrored;
    }
    out.jointFlags = b.flags.data();
    auto put3x3 = [&finite](const glm::mat3& m3, PaletteMatrix& e) {
        for (int c = 0; c < 3; ++c) {
            e.m[4 * c + 0] = m3[c][0];
            e.m[4 * c + 1] = m3[c][1];
            e.m[4 * c + 2] = m3[c][2];
            e.m[4 * c + 3] = 0.0f;
            finite = finite && std::isfinite(m3[c][0] + m3[c][1] + m3[c][2]);
        }
        for (int k = 12; k < 16; ++k)
            e.m[k] = 0.0f;
    };
    if (m == Method::BlendInverseTranspose) {
        if (b.inverseTranspose.size() < n)
            b.inverseTranspose.resize(std::max(n, 2 * b.inverseTranspose.size()));
        for (size_t i = 0; i < n; ++i)
            put3x3(palette[i].inverseTranspose, b.inverseTranspose[i]);
        out.inverseTranspose = b.inverseTranspose.data();
    }
    if (m == Method::DualQuaternion || m == Method::CenterOfRotation) { // the rotation and stretch blends
        if (b.stretch.size() < n)
            b.stretch.resize(std::max(n, 2 * b.stretch.size()));
        if (b.dq.size() < 8 * n + 8)
            b.dq.resize(std::max(8 * n + 8, 2 * b.dq.size()));
        float* dq = b.dq.data();
        while (reinterpret_cast<uintptr_t>(dq) % 32)
            ++dq;
        out.unitStretch = true;
        for (size_t i = 0; i < n; ++i) {
            put3x3(palette[i].stretch, b.stretch[i]);
            for (int c = 0; c < 3; ++c)
                for (int r = 0; r < 3; ++r)
                    out.unitStretch = out.unitStretch &&
                                      std::fabs(palette[i].stretch[c][r] - (c == r ? 1.0f : 0.0f)) <= kUnitStretchTolerance;
            const glm::quat& r = palette[i].dq.real;
            const glm::quat& d = palette[i].dq.dual;
            const float q[8] = {r.x, r.y, r.z, r.w, d.x, d.y, d.z, d.w};
            std::memcpy(dq + 8 * i, q, sizeof q);
            for (float x : q)
                finite = finite && std::isfinite(x);
        }
        out.stretch = b.stretch.data();
        out.dualQuaternions = dq;
    }
    return finite;
}

} // namespace detail

namespace {

LinearKernel detectLinearKernel()
{
    if (cpuHasAvx512())
        return LinearKernel::Avx512;
    if (cpuHasAvx2Fma())
        return LinearKernel::Avx2;
    return LinearKernel::Scalar;
}

// Runs [first, last) of a linear job with a SIMD kernel; false (nothing written) when the scalar path must do it.
bool runLinearSimd(const SkinJob& job, LinearKernel k, size_t first, size_t last)
{
    if (k == LinearKernel::Scalar)
        return false;
    detail::PaletteMatrix* pal = detail::compactPaletteBuffer(job.palette.size());
    if (!detail::buildCompactPalette(job.palette, pal))
        return false;
    if (k == LinearKernel::Avx512)
        detail::runLinearAvx512(job, pal, first, last);
    else
        detail::runLinearAvx2(job, pal, first, last);
    return true;
}

// Whether an AVX-512 kernel runs this job when one is asked for (else the AVX2 one does): linear and the methods
// that have one, positions-only only for its positions alone — with the rest frames copied, their copy and
// normalisation bound it, not the blend, and the AVX2 kernel does both.
bool avx512Runs(const SkinJob& job)
{
    return (job.method == Method::Linear || detail::hasMethodAvx512(job.method)) &&
           (job.method != Method::PositionsOnly || (job.outNormals.empty() && job.outTangents.empty()));
}

// Runs [first, last) of a job of any method but Linear with kernel k (AVX-512 where avx512Runs, else AVX2); false
// (nothing written) when the scalar path must do it.
bool runMethodSimd(const SkinJob& job, LinearKernel k, size_t first, size_t last)
{
    if (k == LinearKernel::Scalar || job.method == Method::Linear || job.method == Method::Rebuilt)
        return false;
    detail::PaletteMatrix* pal = detail::compactPaletteBuffer(job.palette.size());
    detail::MethodTables tables;
    if (!detail::buildCompactPalette(job.palette, pal) || !detail::buildMethodTables(job.palette, job.method, tables))
        return false;
    if (k == LinearKernel::Avx512 && avx512Runs(job))
        detail::runMethodAvx512(job, pal, tables, first, last);
    else if (avx2KernelsUseEvex(job.method))
        detail::runMethodAvx2Evex(job, pal, tables, first, last);
    else
        detail::runMethodAvx2(job, pal, tables, first, last);
    return true;
}

// The scalar reference of the job's method on [first, last).
void runScalar(const SkinJob& job, size_t first, size_t last)
{
    detail::PaletteMatrix* affine = detail::compactPaletteBuffer(job.palette.size());
    detail::buildCompactPalette(job.palette, affine);
    if (job.influencesPerVertex == 8)
        runMethod<8>(job, affine, first, last);
    else
        runMethod<4>(job, affine, first, last);
}

} // namespace

LinearKernel methodKernel(Method m)
{
    if (m == Method::Linear)
        return linearKernel();
    if (m == Method::Rebuilt)
        return LinearKernel::Scalar;
    // The AVX-512 method kernels hand flagged blocks and partial blocks to the AVX2 ones: both must be there.
    if (detail::hasMethodAvx512(m) && linearKernelAvailable(LinearKernel::Avx512) && linearKernelAvailable(LinearKernel::Avx2))
        return LinearKernel::Avx512;
    return linearKernelAvailable(LinearKernel::Avx2) ? LinearKernel::Avx2 : LinearKernel::Scalar;
}

LinearKernel jobKernel(const SkinJob& job)
{
    const LinearKernel k = methodKernel(job.method);
    // Where AVX-512 runs as two 256-bit halves, the AVX2 loops of positions alone and of blend-inverse-transpose (pairs
    // of vertices in 256-bit registers, no transposes) beat the AVX-512 blocks (measured in BENCHMARKS.md).
    // So does linear's, but for jobs whose outputs pass kHalfWidthLinearStreamingBytes (halfWidthLinearKernel).
    const bool linearAvx2 = job.method == Method::Linear &&
                            halfWidthLinearKernel(job.positions.size(), !job.outPositions.empty(), !job.outNormals.empty(),
                                                  !job.outTangents.empty()) == LinearKernel::Avx2;
    // And the jacobian's, for jobs its plan covers, short of kHalfWidthJacobianAvx2Vertices.
    const size_t blocks = job.gradients.blockSlots.empty() ? 0 : job.gradients.blockSlots.size() - 1;
    const bool jacobianAvx2 = job.method == Method::Jacobian &&
                              halfWidthJacobianKernel(job.positions.size(), blocks, job.gradients.unplannedBlocks) ==
                                  LinearKernel::Avx2;
    const bool avx2Faster = cpuHasHalfWidthAvx512() && (job.method == Method::PositionsOnly ||
                                                        job.method == Method::BlendInverseTranspose || linearAvx2 ||
                                                        jacobianAvx2);
    if (k == LinearKernel::Avx512 && (!avx512Runs(job) || avx2Faster))
        return LinearKernel::Avx2;
    return k;
}

LinearKernel halfWidthLinearKernel(size_t vertices, bool positions, bool normals, bool tangents)
{
    const size_t bytes = detail::outputBytes(vertices, positions, normals, tangents);
    return bytes >= kHalfWidthLinearStreamingBytes ? LinearKernel::Avx512 : LinearKernel::Avx2;
}

LinearKernel halfWidthJacobianKernel(size_t vertices, size_t blocks, size_t unplannedBlocks)
{
    const bool planned = blocks > 0 && 16 * unplannedBlocks <= blocks;
    return planned && vertices < kHalfWidthJacobianAvx2Vertices ? LinearKernel::Avx2 : LinearKernel::Avx512;
}

void runMethodKernel(const SkinJob& job, LinearKernel k)
{
    assert(linearKernelAvailable(k));
    if (job.method == Method::Linear) {
        runLinearKernel(job, k);
        return;
    }
    const size_t last = std::min(job.last, job.positions.size());
    if (job.first >= last)
        return;
    // The AVX-512 method kernels hand some blocks to the AVX2 ones: AVX-512 only where both are there.
    if (k == LinearKernel::Avx512 && !(avx512Runs(job) && linearKernelAvailable(LinearKernel::Avx2)))
        k = LinearKernel::Avx2;
    if (k != LinearKernel::Scalar && runMethodSimd(job, k, job.first, last))
        return;
    runScalar(job, job.first, last);
}

std::string_view methodId(Method m)
{
    return kIds[size_t(m)];
}

std::optional<Method> methodFromId(std::string_view id)
{
    for (size_t i = 0; i < kIds.size(); ++i)
        if (kIds[i] == id)
            return Method(i);
    return std::nullopt;
}

const std::vector<Method>& allMethods()
{
    static const std::vector<Method> all = {Method::PositionsOnly, Method::Linear,         Method::BlendInverseTranspose,
                                            Method::InverseTranspose, Method::Cofactor,   Method::DualQuaternion,
                                            Method::Jacobian,         Method::CenterOfRotation, Method::Rebuilt};
    return all;
}

bool SkinJob::validate() const
{
    if (method == Method::Rebuilt)
        return false;
    if (influencesPerVertex != 4 && influencesPerVertex != 8)
        return false;
    const size_t n = positions.size();
    const size_t k = size_t(influencesPerVertex);
    if (palette.empty() || normals.size() != n || joints.size() != n * k || weights.size() != n * k)
        return false;
    // Positions may be left out except for the methods whose positions are their own (linear, dual quaternion); the
    // normals and tangents only for positions-only (they are the rest ones).
    const bool positionsOptional = method != Method::Linear && !ownPositions(method);
    const bool framesOptional = method == Method::PositionsOnly;
    if (!(outPositions.size() == n || (positionsOptional && outPositions.empty())))
        return false;
    if (!(outNormals.size() == n || (framesOptional && outNormals.empty())))
        return false;
    if (!tangents.empty() && tangents.size() != n)
        return false;
    if (!(outTangents.size() == tangents.size() || (framesOptional && outTangents.empty())))
        return false;
    if (n > 0 && outPositions.empty() && outNormals.empty())
        return false; // nothing to write (an empty mesh has nothing either way)
    if (!outFlags.empty() && outFlags.size() != n)
        return false;
    if (method == Method::CenterOfRotation && centers.size() != n)
        return false;
    if (method == Method::Jacobian) {
        if (gradients.offsets.size() != n + 1 || gradients.joints.size() != gradients.gradients.size())
            return false;
        if (gradients.offsets.back() > gradients.joints.size())
            return false;
        // The block plan, where given, covers this mesh (its contents are the builder's: planGradientBlocks).
        const size_t blocks = (n + 15) / 16;
        if (!gradients.blockSlots.empty() &&
            (gradients.blockSlots.size() != blocks + 1 || gradients.blockData.size() != blocks + 1 ||
             gradients.blockHalves.size() != blocks ||
             (gradients.blockSlots.back() & ~WeightGradients::kUnplanned) != gradients.slotEntries.size() ||
             size_t(gradients.blockData.back()) + WeightGradients::kSlotGradientPadding != gradients.slotGradients.size()))
            return false;
        if (!gradients.slotWeights.empty() &&
            (gradients.blockSlots.empty() || gradients.blockFolded.size() != blocks ||
             size_t(gradients.blockData.back()) / 3 + WeightGradients::kSlotGradientPadding != gradients.slotWeights.size()))
            return false;
        if (gradients.slotWeights.empty() != gradients.blockFolded.empty())
            return false;
    }
    return true;
}

bool linearKernelAvailable(LinearKernel k)
{
    switch (k) {
    case LinearKernel::Scalar:
        return true;
    case LinearKernel::Avx2:
        return cpuHasAvx2Fma();
    case LinearKernel::Avx512:
        return cpuHasAvx512();
    }
    return false;
}

LinearKernel linearKernel()
{
    static const LinearKernel kernel = detectLinearKernel();
    return kernel;
}

bool avx2KernelsUseEvex(Method m)
{
    return cpuHasAvx512() && m != Method::Linear && m != Method::Rebuilt && m != Method::PositionsOnly;
}

std::string methodKernelName(Method m, LinearKernel k)
{
    std::string name(linearKernelName(k));
    if (k == LinearKernel::Avx2 && avx2KernelsUseEvex(m))
        name += ", 32 registers";
    return name;
}

std::string_view linearKernelName(LinearKernel k)
{
    switch (k) {
    case LinearKernel::Scalar:
        return "scalar";
    case LinearKernel::Avx2:
        return "AVX2+FMA";
    case LinearKernel::Avx512:
        return "AVX-512";
    }
    return "?";
}

void runLinearKernel(const SkinJob& job, LinearKernel k)
{
    assert(linearKernelAvailable(k));
    const size_t last = std::min(job.last, job.positions.size());
    if (job.first >= last)
        return;
    if (!runLinearSimd(job, k, job.first, last))
        runLinearScalar(job);
}

bool linearFastPathAvailable()
{
    return linearKernel() != LinearKernel::Scalar;
}

void runLinearScalar(const SkinJob& job)
{
    SkinJob copy = job;
    copy.method = Method::Linear;
    const size_t last = std::min(job.last, job.positions.size());
    if (job.first >= last)
        return;
    runScalar(copy, job.first, last);
}

void SkinJob::run() const
{
    assert(validate());
    const size_t end = std::min(last, positions.size());
    if (first >= end)
        return;
    const LinearKernel k = jobKernel(*this);
    if (method == Method::Linear ? runLinearSimd(*this, k, first, end) : runMethodSimd(*this, k, first, end))
        return;
    runScalar(*this, first, end);
}

} // namespace rig
