#include "rig/analysis/carried.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <immintrin.h>

#include "rig/analysis/metrics.h"
#include "rig/analysis/soa_avx2.h"
#include "rig/platform/cpu_features.h"
#include "rig/model/math.h"

namespace rig {

namespace {

/// A unit vector perpendicular to unit a.
glm::vec3 perpendicular(const glm::vec3& a)
{
    const glm::vec3 helper = std::fabs(a.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    return glm::normalize(glm::cross(a, helper));
}

/// The minimal rotation taking unit a to unit b (Rodrigues).
glm::mat3 minimalRotation(const glm::vec3& a, const glm::vec3& b)
{
    const glm::vec3 axis = glm::cross(a, b);
    const float s = glm::length(axis), c = glm::dot(a, b);
    if (s < 1e-7f) {
        if (c > 0.0f)
            return glm::mat3(1.0f);
        // Opposite: 180° about any axis perpendicular to a.
        const glm::vec3 k = perpendicular(a);
        return 2.0f * glm::outerProduct(k, k) - glm::mat3(1.0f);
    }
    const glm::vec3 k = axis / s;
    const glm::mat3 K(glm::vec3(0, k.z, -k.y), glm::vec3(-k.z, 0, k.x), glm::vec3(k.y, -k.x, 0)); // columns
    return glm::mat3(1.0f) + s * K + (1.0f - c) * (K * K);
}

/// safeNormalize with its operations spelled out ((x² + y²) + z², 1 / sqrt, then the products), the order the SIMD
/// loop repeats.
inline glm::vec3 unitOrZero(float x, float y, float z)
{
    const float len2 = (x * x + y * y) + z * z;
    if (!(len2 >= kZeroLength2) || !(len2 < INFINITY))
        return glm::vec3(0.0f);
    const float inv = 1.0f / std::sqrt(len2);
    return glm::vec3(x * inv, y * inv, z * inv);
}

inline float dot3(const glm::vec3& a, const glm::vec3& b)
{
    return (a.x * b.x + a.y * b.y) + a.z * b.z;
}

inline glm::vec3 cross3(const glm::vec3& a, const glm::vec3& b)
{
    return glm::vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

/// R x = F_p (F_bᵀ x), F = (t, n × t, n): three dots, then three scaled columns summed in order.
inline glm::vec3 carryFrames(const glm::vec3& bn, const glm::vec3& bt, const glm::vec3& bb, const glm::vec3& pn,
                             const glm::vec3& pt, const glm::vec3& pb, const glm::vec3& x)
{
    const float y0 = dot3(bt, x), y1 = dot3(bb, x), y2 = dot3(bn, x);
    return glm::vec3((pt.x * y0 + pb.x * y1) + pn.x * y2, (pt.y * y0 + pb.y * y1) + pn.y * y2,
                     (pt.z * y0 + pb.z * y1) + pn.z * y2);
}

/// One vertex of CarryJob::run, the definition in carried.h: no rotation without both rebuilt normals; the UV frames
/// where both rebuilt tangents are defined, else the carrier edge's frames, else the minimal rotation from the bind to
/// the posed normal. The identity, exactly (not F Fᵀ rounded), where the two frames are the same (the bind pose).
inline void carryVertex(const CarryJob& job, size_t v, bool tangents)
{
    const glm::vec3 bn = job.bindNormals[v], pn = job.posedNormals[v];
    const glm::vec3 bt = job.bindTangents.empty() ? glm::vec3(0.0f) : glm::vec3(job.bindTangents[v]);
    const glm::vec3 pt = job.posedTangents.empty() ? glm::vec3(0.0f) : glm::vec3(job.posedTangents[v]);
    const glm::vec3 an = job.authoredNormals[v];
    const glm::vec3 a = unitOrZero(an.x, an.y, an.z);
    glm::vec3 at(0.0f);
    if (tangents)
        at = unitOrZero(job.authoredTangents[v].x, job.authoredTangents[v].y, job.authoredTangents[v].z);
    auto put = [&](const glm::vec3& n, const glm::vec3& t) {
        job.outNormals[v] = n;
        if (tangents)
            job.outTangents[v] = t;
    };
    if (!isDefined(bn) || !isDefined(pn))
        return put(glm::vec3(0.0f), glm::vec3(0.0f));
    glm::vec3 ft = bt, fp = pt; // the frames' tangents: UV, else the carrier edge's
    if (!isDefined(bt) || !isDefined(pt)) {
        ft = fp = glm::vec3(0.0f);
        const uint32_t q = job.edgePartners.empty() ? CarryEdges::kNone : job.edgePartners[v];
        if (q != CarryEdges::kNone) {
            ft = job.bindEdgeTangents[v];
            fp = carrierTangent(job.posedPositions[v], job.posedPositions[q], pn);
        }
    }
    if (bn == pn && ft == fp) // the same frame (the bind pose itself)
        return put(a, at);
    if (isDefined(ft) && isDefined(fp)) {
        const glm::vec3 bb = cross3(bn, ft), pb = cross3(pn, fp);
        return put(carryFrames(bn, ft, bb, pn, fp, pb, a), tangents ? carryFrames(bn, ft, bb, pn, fp, pb, at) : at);
    }
    const glm::mat3 r = minimalRotation(bn, pn);
    put(r * a, r * at);
}

// GCC 12 warns about its own _mm512_undefined_ps() (`__Y = __Y`) inside the intrinsics headers.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define RS_AVX512 __attribute__((target("avx512f,avx512dq,avx2")))

struct V3 {
    __m512 x, y, z;
};

struct SoaConstants {
    __m512i from3[3][2]; // component c of 16 vec3: two-step gather from the three zmm of 48 floats
    __m512i from4;       // component c = 0 of 8 vec4 in two zmm (add c)
    __m512i to3[3][2];   // output zmm k of 48 floats from x, y (step 0) then z (step 1)
};

RS_AVX512 SoaConstants makeSoaConstants()
{
    SoaConstants k;
    alignas(64) int32_t a[16], b[16];
    for (int c = 0; c < 3; ++c) {
        // Step 0 from zmm 0 and 1 (floats 0..31), step 1 the rest from zmm 2 (floats 32..47 as 16..31).
        for (int i = 0; i < 16; ++i) {
            const int f = 3 * i + c;
            a[i] = f < 32 ? f : 0;
            b[i] = f < 32 ? i : 16 + (f - 32);
        }
        k.from3[c][0] = _mm512_load_si512(a);
        k.from3[c][1] = _mm512_load_si512(b);
    }
    for (int i = 0; i < 16; ++i)
        a[i] = 4 * (i % 8);
    k.from4 = _mm512_load_si512(a);
    for (int z = 0; z < 3; ++z) {
        for (int i = 0; i < 16; ++i) {
            const int f = 16 * z + i, v = f / 3, c = f % 3;
            a[i] = c == 0 ? v : c == 1 ? 16 + v : 0;
            b[i] = c == 2 ? 16 + v : i;
        }
        k.to3[z][0] = _mm512_load_si512(a);
        k.to3[z][1] = _mm512_load_si512(b);
    }
    return k;
}

RS_AVX512 inline V3 load3(const SoaConstants& k, const float* p)
{
    const __m512 z0 = _mm512_loadu_ps(p), z1 = _mm512_loadu_ps(p + 16), z2 = _mm512_loadu_ps(p + 32);
    __m512 c[3];
    for (int i = 0; i < 3; ++i)
        c[i] = _mm512_permutex2var_ps(_mm512_permutex2var_ps(z0, k.from3[i][0], z1), k.from3[i][1], z2);
    return {c[0], c[1], c[2]};
}

RS_AVX512 inline V3 load4(const SoaConstants& k, const float* p)
{
    const __m512 z0 = _mm512_loadu_ps(p), z1 = _mm512_loadu_ps(p + 16), z2 = _mm512_loadu_ps(p + 32), z3 = _mm512_loadu_ps(p + 48);
    __m512 c[3];
    for (int i = 0; i < 3; ++i) {
        const __m512i idx = _mm512_add_epi32(k.from4, _mm512_set1_epi32(i));
        c[i] = _mm512_shuffle_f32x4(_mm512_permutex2var_ps(z0, idx, z1), _mm512_permutex2var_ps(z2, idx, z3), _MM_SHUFFLE(1, 0, 1, 0));
    }
    return {c[0], c[1], c[2]};
}

RS_AVX512 inline void store3(const SoaConstants& k, float* p, const V3& v)
{
    for (int z = 0; z < 3; ++z)
        _mm512_storeu_ps(p + 16 * z, _mm512_permutex2var_ps(_mm512_permutex2var_ps(v.x, k.to3[z][0], v.y), k.to3[z][1], v.z));
}

RS_AVX512 inline __m512 dot(const V3& a, const V3& b)
{
    return _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(a.x, b.x), _mm512_mul_ps(a.y, b.y)), _mm512_mul_ps(a.z, b.z));
}

RS_AVX512 inline V3 cross(const V3& a, const V3& b)
{
    return {_mm512_sub_ps(_mm512_mul_ps(a.y, b.z), _mm512_mul_ps(a.z, b.y)),
            _mm512_sub_ps(_mm512_mul_ps(a.z, b.x), _mm512_mul_ps(a.x, b.z)),
            _mm512_sub_ps(_mm512_mul_ps(a.x, b.y), _mm512_mul_ps(a.y, b.x))};
}

RS_AVX512 inline __mmask16 defined(const V3& v)
{
    const __m512 len2 = dot(v, v);
    return _mm512_cmp_ps_mask(len2, _mm512_set1_ps(0.25f), _CMP_GT_OQ) & _mm512_cmp_ps_mask(len2, _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
}

RS_AVX512 inline V3 unitOrZero(const V3& v)
{
    const __m512 len2 = dot(v, v);
    const __mmask16 ok = _mm512_cmp_ps_mask(len2, _mm512_set1_ps(kZeroLength2), _CMP_GE_OQ) &
                         _mm512_cmp_ps_mask(len2, _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(len2));
    return {_mm512_maskz_mul_ps(ok, v.x, inv), _mm512_maskz_mul_ps(ok, v.y, inv), _mm512_maskz_mul_ps(ok, v.z, inv)};
}

RS_AVX512 inline __mmask16 equal(const V3& a, const V3& b)
{
    return _mm512_cmp_ps_mask(a.x, b.x, _CMP_EQ_OQ) & _mm512_cmp_ps_mask(a.y, b.y, _CMP_EQ_OQ) & _mm512_cmp_ps_mask(a.z, b.z, _CMP_EQ_OQ);
}

/// carryFrames for 16 lanes, then the identity where `same`, zero outside `keep`.
RS_AVX512 inline V3 carry(const V3& bn, const V3& bt, const V3& bb, const V3& pn, const V3& pt, const V3& pb, const V3& x,
                          __mmask16 same, __mmask16 keep)
{
    const __m512 y0 = dot(bt, x), y1 = dot(bb, x), y2 = dot(bn, x);
    auto column = [&](__m512 t, __m512 b, __m512 n, __m512 xi) RS_AVX512 {
        const __m512 r = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(t, y0), _mm512_mul_ps(b, y1)), _mm512_mul_ps(n, y2));
        return _mm512_maskz_mov_ps(keep, _mm512_mask_mov_ps(r, same, xi));
    };
    return {column(pt.x, pb.x, pn.x, x.x), column(pt.y, pb.y, pn.y, x.y), column(pt.z, pb.z, pn.z, x.z)};
}

/// [first, last) 16 vertices at a time where every vertex of a block takes the UV frame product, the identity or no
/// rotation at all (a vertex without both UV tangents sends its block to carryVertex); returns where it stopped.
RS_AVX512 size_t carryAvx512(const CarryJob& job, size_t first, size_t last, bool tangents)
{
    static const SoaConstants k = makeSoaConstants();
    const float* bnP = &job.bindNormals.data()->x;
    const float* pnP = &job.posedNormals.data()->x;
    const float* btP = &job.bindTangents.data()->x;
    const float* ptP = &job.posedTangents.data()->x;
    const float* anP = &job.authoredNormals.data()->x;
    const float* atP = tangents ? &job.authoredTangents.data()->x : nullptr;
    float* onP = &job.outNormals.data()->x;
    float* otP = tangents ? &job.outTangents.data()->x : nullptr;
    size_t v = first;
    for (; v + 16 <= last; v += 16) {
        const V3 bn = load3(k, bnP + 3 * v), pn = load3(k, pnP + 3 * v);
        const V3 bt = load4(k, btP + 4 * v), pt = load4(k, ptP + 4 * v);
        const __mmask16 keep = defined(bn) & defined(pn);
        const __mmask16 same = equal(bn, pn) & equal(bt, pt);
        const __mmask16 frames = defined(bt) & defined(pt);
        if ((keep & ~frames) != 0) { // a vertex without both UV tangents: the edge frame or the minimal rotation
            for (size_t u = v; u < v + 16; ++u)
                carryVertex(job, u, tangents);
            continue;
        }
        const V3 bb = cross(bn, bt), pb = cross(pn, pt);
        store3(k, onP + 3 * v, carry(bn, bt, bb, pn, pt, pb, unitOrZero(load3(k, anP + 3 * v)), same, keep));
        if (tangents)
            store3(k, otP + 3 * v, carry(bn, bt, bb, pn, pt, pb, unitOrZero(load4(k, atP + 4 * v)), same, keep));
    }
    return v;
}

#pragma GCC diagnostic pop

// The same loop eight vertices at a time with AVX2 (the machines without AVX-512): the same operations in the same
// order (masks as all-ones lanes), so the same bits.
#define RS_AVX2 __attribute__((target("avx2")))

struct V8 {
    __m256 x, y, z;
};

RS_AVX2 inline V8 load8(const float* p, int stride)
{
    V8 v;
    detail::loadSoa8(p, stride, v.x, v.y, v.z);
    return v;
}

RS_AVX2 inline __m256 dot(const V8& a, const V8& b)
{
    return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a.x, b.x), _mm256_mul_ps(a.y, b.y)), _mm256_mul_ps(a.z, b.z));
}

RS_AVX2 inline V8 cross(const V8& a, const V8& b)
{
    return {_mm256_sub_ps(_mm256_mul_ps(a.y, b.z), _mm256_mul_ps(a.z, b.y)),
            _mm256_sub_ps(_mm256_mul_ps(a.z, b.x), _mm256_mul_ps(a.x, b.z)),
            _mm256_sub_ps(_mm256_mul_ps(a.x, b.y), _mm256_mul_ps(a.y, b.x))};
}

RS_AVX2 inline __m256 defined(const V8& v)
{
    return detail::defined8(v.x, v.y, v.z);
}

RS_AVX2 inline V8 unitOrZero(const V8& v)
{
    const __m256 len2 = dot(v, v);
    const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_set1_ps(kZeroLength2), _CMP_GE_OQ),
                                    _mm256_cmp_ps(len2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
    const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(len2));
    // Zeroed after the product: an infinite or NaN input times a zeroed factor would still be NaN.
    return {_mm256_and_ps(ok, _mm256_mul_ps(v.x, inv)), _mm256_and_ps(ok, _mm256_mul_ps(v.y, inv)),
            _mm256_and_ps(ok, _mm256_mul_ps(v.z, inv))};
}

RS_AVX2 inline __m256 equal(const V8& a, const V8& b)
{
    return _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(a.x, b.x, _CMP_EQ_OQ), _mm256_cmp_ps(a.y, b.y, _CMP_EQ_OQ)),
                         _mm256_cmp_ps(a.z, b.z, _CMP_EQ_OQ));
}

/// carryFrames for eight lanes, then the identity where `same`, zero outside `keep`.
RS_AVX2 inline V8 carry(const V8& bn, const V8& bt, const V8& bb, const V8& pn, const V8& pt, const V8& pb, const V8& x,
                        __m256 same, __m256 keep)
{
    const __m256 y0 = dot(bt, x), y1 = dot(bb, x), y2 = dot(bn, x);
    auto column = [&](__m256 t, __m256 b, __m256 n, __m256 xi) RS_AVX2 {
        const __m256 r = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(t, y0), _mm256_mul_ps(b, y1)), _mm256_mul_ps(n, y2));
        return _mm256_and_ps(keep, _mm256_blendv_ps(r, xi, same));
    };
    return {column(pt.x, pb.x, pn.x, x.x), column(pt.y, pb.y, pn.y, x.y), column(pt.z, pb.z, pn.z, x.z)};
}

/// carryAvx512 eight vertices at a time; returns where it stopped.
RS_AVX2 size_t carryAvx2(const CarryJob& job, size_t first, size_t last, bool tangents)
{
    const float* bnP = &job.bindNormals.data()->x;
    const float* pnP = &job.posedNormals.data()->x;
    const float* btP = &job.bindTangents.data()->x;
    const float* ptP = &job.posedTangents.data()->x;
    const float* anP = &job.authoredNormals.data()->x;
    const float* atP = tangents ? &job.authoredTangents.data()->x : nullptr;
    float* onP = &job.outNormals.data()->x;
    float* otP = tangents ? &job.outTangents.data()->x : nullptr;
    size_t v = first;
    for (; v + 8 <= last; v += 8) {
        const V8 bn = load8(bnP + 3 * v, 3), pn = load8(pnP + 3 * v, 3);
        const V8 bt = load8(btP + 4 * v, 4), pt = load8(ptP + 4 * v, 4);
        const __m256 keep = _mm256_and_ps(defined(bn), defined(pn));
        const __m256 same = _mm256_and_ps(equal(bn, pn), equal(bt, pt));
        const __m256 frames = _mm256_and_ps(defined(bt), defined(pt));
        if (_mm256_movemask_ps(_mm256_andnot_ps(frames, keep)) != 0) { // no UV frame: the edge frame or minimal rotation
            for (size_t u = v; u < v + 8; ++u)
                carryVertex(job, u, tangents);
            continue;
        }
        const V8 bb = cross(bn, bt), pb = cross(pn, pt);
        const V8 n = carry(bn, bt, bb, pn, pt, pb, unitOrZero(load8(anP + 3 * v, 3)), same, keep);
        detail::storeSoa3x8(onP + 3 * v, n.x, n.y, n.z);
        if (tangents) {
            const V8 t = carry(bn, bt, bb, pn, pt, pb, unitOrZero(load8(atP + 4 * v, 4)), same, keep);
            detail::storeSoa3x8(otP + 3 * v, t.x, t.y, t.z);
        }
    }
    return v;
}

} // namespace

glm::vec3 carrierTangent(const glm::vec3& from, const glm::vec3& to, const glm::vec3& n)
{
    const glm::vec3 e = to - from;
    const float len2 = dot3(e, e);
    if (!(len2 >= kZeroLength2) || !(len2 < INFINITY))
        return glm::vec3(0.0f);
    const float along = dot3(e, n);
    const glm::vec3 p(e.x - along * n.x, e.y - along * n.y, e.z - along * n.z);
    const float p2 = dot3(p, p);
    if (!(p2 >= 1e-6f * len2))
        return glm::vec3(0.0f);
    return unitOrZero(p.x, p.y, p.z);
}

CarryEdges buildCarryEdges(std::span<const glm::vec3> positions, std::span<const uint32_t> indices,
                           std::span<const glm::vec3> bindNormals)
{
    const size_t n = positions.size();
    assert(bindNormals.size() == n);
    CarryEdges edges;
    edges.partner.assign(n, CarryEdges::kNone);
    edges.bindTangents.assign(n, glm::vec3(0.0f));
    std::vector<float> score(n, 0.0f); // |projection|² / |edge|² of the edge chosen so far
    constexpr float kGood = 0.25f;     // sin² 30°: the first edge this far off the normal is kept
    for (size_t t = 0; t + 3 <= indices.size(); t += 3) {
        for (int c = 0; c < 3; ++c) {
            const uint32_t v = indices[t + size_t(c)];
            if (v >= n || score[v] >= kGood || !isDefined(bindNormals[v]))
                continue;
            for (const int o : {(c + 1) % 3, (c + 2) % 3}) { // the next corner, then the previous one
                const uint32_t q = indices[t + size_t(o)];
                if (q >= n || q == v)
                    continue;
                const glm::vec3 tangent = carrierTangent(positions[v], positions[q], bindNormals[v]);
                if (!isDefined(tangent))
                    continue;
                const glm::vec3 e = positions[q] - positions[v];
                const float along = dot3(e, bindNormals[v]);
                const float s = 1.0f - along * along / dot3(e, e);
                if (s > score[v]) {
                    score[v] = s;
                    edges.partner[v] = q;
                    edges.bindTangents[v] = tangent;
                    if (s >= kGood)
                        break;
                }
            }
        }
    }
    return edges;
}

void CarryJob::run(size_t first, size_t last) const
{
    const size_t n = authoredNormals.size();
    assert(bindNormals.size() == n && posedNormals.size() == n && outNormals.size() == n);
    const bool tangents = !outTangents.empty();
    assert(!tangents || (authoredTangents.size() == n && bindTangents.size() == n && posedTangents.size() == n));
    assert(edgePartners.empty() || (edgePartners.size() == n && bindEdgeTangents.size() == n && posedPositions.size() == n));
    last = std::min(last, n);
    size_t v = first;
    // The SIMD loops need both rebuilt tangents (else every vertex takes the minimal rotation).
    if (first < last && bindTangents.size() == n && posedTangents.size() == n)
        v = cpuHasAvx512() ? carryAvx512(*this, first, last, tangents)
            : cpuHasAvx2() ? carryAvx2(*this, first, last, tangents)
                           : first;
    for (; v < last; ++v)
        carryVertex(*this, v, tangents);
}

} // namespace rig
