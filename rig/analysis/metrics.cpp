#include "rig/analysis/metrics.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "rig/analysis/soa_avx2.h"
#include "rig/platform/cpu_features.h"
#include "rig/model/math.h"

namespace rig {

namespace {

/// atan(lo / hi) for 0 <= lo <= hi, hi > 0: Cephes' atanf (one range reduction at tan(π/8), a degree-9 odd
/// polynomial) with one division — lo / hi, or (lo - hi) / (lo + hi) = (t - 1) / (t + 1) above the reduction point —
/// branch-free, so that the loops below vectorise; |error| < 2e-7 rad.
inline float atanRatio(float lo, float hi)
{
    const bool big = lo > 0.41421356f * hi;
    const float x = (big ? lo - hi : lo) / (big ? lo + hi : hi); // selects, not branches
    const float z = x * x;
    const float p = (((8.05374449538e-2f * z - 1.38776856032e-1f) * z + 1.99777106478e-1f) * z - 3.33329491539e-1f) * z * x + x;
    return (big ? 0.78539816339744831f : 0.0f) + p;
}

/// The angle in degrees between a and b, both defined (|v|² > 0.25, finite) or kUndefinedError: atan2(|a × b|, a · b)
/// in float with atanUnit (within 2e-5° of the double-precision angleDeg).
inline float angleOrUndefined(float ax, float ay, float az, float bx, float by, float bz)
{
    const float la = ax * ax + ay * ay + az * az, lb = bx * bx + by * by + bz * bz;
    const float cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
    const float s = std::sqrt(cx * cx + cy * cy + cz * cz), c = ax * bx + ay * by + az * bz;
    const float ac = std::fabs(c);
    const float hi = std::max(std::max(s, ac), 1e-30f), lo = std::min(s, ac); // 0 / tiny = 0 for two zero vectors
    float r = atanRatio(lo, hi);
    r = s > ac ? 1.5707963267948966f - r : r;
    r = c < 0.0f ? 3.14159265358979323846f - r : r;
    const bool defined = (la > 0.25f) & (lb > 0.25f) & (la < INFINITY) & (lb < INFINITY); // NaN compares false
    return defined ? r * 57.295779513082320876f : kUndefinedError;
}

/// Eight vertices a step with AVX2, K independent steps interleaved phase by phase (each of three phases — the
/// products and the square root, the range reduction and its division, the polynomial and the output — done for the K
/// steps before the next): the same operations as angleOrUndefined in the same order (no FMA contraction: separate
/// multiplies and adds), so that the result is bit-identical to the scalar loop, which does the tail. One step is a
/// chain of ~25 dependent operations (a square root and a division among them, ~95 cycles of latency) for ~70
/// instructions: one step after the other, the out-of-order core's schedulers fill with the waiting chain of one or
/// two and the loop runs at its latency; interleaved in the program, four chains advance together (Zen 4: 200k angles
/// 0.365 -> 0.281 ms with AVX2, 0.293 -> 0.228 with AVX-512; two interleaved gave 0.301 and 0.266).
/// SA, SB0, SB1: the floats a vector of a, b0, b1 (3 or 4); SB1 = 0: b0 alone (b1, out1 unused), else a against both,
/// a's components loaded and its length tested once for the two angles (two chains a step: K * 2 in all).
template <int K, int SA, int SB0, int SB1>
__attribute__((target("avx2"), always_inline)) inline void anglesAvx2(const float* a, const float* b0, const float* b1,
                                                                       float* out0, float* out1)
{
    constexpr int NB = SB1 == 0 ? 1 : 2, C = K * NB; // chain k NB + j: step k against b_j
    const __m256 signMask = _mm256_set1_ps(-0.0f);
    __m256 defined[C], c[C], sn[C];
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k) {
        __m256 ax, ay, az;
        detail::loadSoa8(a + 8 * k * SA, SA, ax, ay, az);
        const __m256 definedA = detail::defined8(ax, ay, az);
#pragma GCC unroll 2
        for (int j = 0; j < NB; ++j) {
            const int i = k * NB + j;
            __m256 bx, by, bz;
            if (j == 0)
                detail::loadSoa8(b0 + 8 * k * SB0, SB0, bx, by, bz);
            else
                detail::loadSoa8(b1 + 8 * k * SB1, SB1, bx, by, bz);
            defined[i] = _mm256_and_ps(definedA, detail::defined8(bx, by, bz));
            const __m256 cx = _mm256_sub_ps(_mm256_mul_ps(ay, bz), _mm256_mul_ps(az, by));
            const __m256 cy = _mm256_sub_ps(_mm256_mul_ps(az, bx), _mm256_mul_ps(ax, bz));
            const __m256 cz = _mm256_sub_ps(_mm256_mul_ps(ax, by), _mm256_mul_ps(ay, bx));
            sn[i] = _mm256_sqrt_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(cx, cx), _mm256_mul_ps(cy, cy)), _mm256_mul_ps(cz, cz)));
            c[i] = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(ax, bx), _mm256_mul_ps(ay, by)), _mm256_mul_ps(az, bz));
        }
    }
    __m256 ac[C], x[C], big[C];
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) {
        ac[i] = _mm256_andnot_ps(signMask, c[i]);
        const __m256 hi = _mm256_max_ps(_mm256_max_ps(sn[i], ac[i]), _mm256_set1_ps(1e-30f)), lo = _mm256_min_ps(sn[i], ac[i]);
        big[i] = _mm256_cmp_ps(lo, _mm256_mul_ps(_mm256_set1_ps(0.41421356f), hi), _CMP_GT_OQ);
        x[i] = _mm256_div_ps(_mm256_blendv_ps(lo, _mm256_sub_ps(lo, hi), big[i]), _mm256_blendv_ps(hi, _mm256_add_ps(lo, hi), big[i]));
    }
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) {
        const __m256 z = _mm256_mul_ps(x[i], x[i]);
        __m256 p = _mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(8.05374449538e-2f), z), _mm256_set1_ps(1.38776856032e-1f));
        p = _mm256_add_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(1.99777106478e-1f));
        p = _mm256_sub_ps(_mm256_mul_ps(p, z), _mm256_set1_ps(3.33329491539e-1f));
        p = _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(p, z), x[i]), x[i]);
        __m256 r = _mm256_add_ps(_mm256_and_ps(big[i], _mm256_set1_ps(0.78539816339744831f)), p);
        r = _mm256_blendv_ps(r, _mm256_sub_ps(_mm256_set1_ps(1.5707963267948966f), r), _mm256_cmp_ps(sn[i], ac[i], _CMP_GT_OQ));
        r = _mm256_blendv_ps(r, _mm256_sub_ps(_mm256_set1_ps(3.14159265358979323846f), r),
                             _mm256_cmp_ps(c[i], _mm256_setzero_ps(), _CMP_LT_OQ));
        float* out = (i % NB == 0 ? out0 : out1) + 8 * (i / NB);
        _mm256_storeu_ps(out, _mm256_blendv_ps(_mm256_set1_ps(kUndefinedError),
                                               _mm256_mul_ps(r, _mm256_set1_ps(57.295779513082320876f)), defined[i]));
    }
}

/// The angles of [0, n) with AVX2: four chains a step (thirty-two vertices against one array, sixteen against two),
/// then eight vertices at a time; returns where it stopped (the scalar loop does the rest).
template <int SA, int SB0, int SB1>
__attribute__((target("avx2"))) size_t errorsAvx2(const float* a, const float* b0, const float* b1, float* out0, float* out1,
                                                 size_t n)
{
    constexpr int K = SB1 == 0 ? 4 : 2;
    size_t i = 0;
    for (; i + 8 * K <= n; i += 8 * K)
        anglesAvx2<K, SA, SB0, SB1>(a + i * SA, b0 + i * SB0, b1 + i * SB1, out0 + i, out1 + i);
    for (; i + 8 <= n; i += 8)
        anglesAvx2<1, SA, SB0, SB1>(a + i * SA, b0 + i * SB0, b1 + i * SB1, out0 + i, out1 + i);
    return i;
}

// GCC 12 warns about its own _mm512_undefined_ps() (`__Y = __Y`) inside the intrinsics headers.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// Sixteen rows of four floats as one register per component by the 4x4 transpose of four 512-bit rows: lane
/// 4 L + j holds row 4 j + L (handednessMismatches only counts; anglesAvx512 puts its angles back in order).
__attribute__((target("avx512f,avx512dq,avx2"), always_inline)) inline void columns16(const float* p, __m512& x, __m512& y, __m512& z, __m512& w)
{
    const __m512 r0 = _mm512_loadu_ps(p), r1 = _mm512_loadu_ps(p + 16), r2 = _mm512_loadu_ps(p + 32), r3 = _mm512_loadu_ps(p + 48);
    const __m512 t0 = _mm512_unpacklo_ps(r0, r1), t1 = _mm512_unpackhi_ps(r0, r1);
    const __m512 t2 = _mm512_unpacklo_ps(r2, r3), t3 = _mm512_unpackhi_ps(r2, r3);
    x = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    y = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    z = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    w = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/// Lane l of anglesAvx512's registers holds vector order(l) of its sixteen: in order (l) where both arrays are
/// 3-vectors, transposed (4 (l % 4) + l / 4) where either is a 4-vector — the order in which a 4x4 transpose of four
/// 512-bit rows leaves sixteen 4-vectors, the cheapest to reach for them (and any order is as cheap for 3-vectors).
/// The angles are per lane, so the order changes no value, only where it is stored (one permute when transposed).
constexpr int soaVector(bool transposed, int l) { return transposed ? 4 * (l % 4) + l / 4 : l; }

/// The permutes that take sixteen 3-vectors (three 512-bit loads, floats 0-47) to one register per component in
/// soaVector's order: component c of lane l is float f = 3 v + c; lanes with f < 32 come from the first two loads (one
/// two-source permute), the others from the third (one masked permute).
struct Vec3Permutes {
    alignas(64) int32_t low[3][16];
    alignas(64) int32_t high[3][16];
    __mmask16 fromHigh[3];
};

constexpr Vec3Permutes makeVec3Permutes(bool transposed)
{
    Vec3Permutes t{};
    for (int c = 0; c < 3; ++c) {
        t.fromHigh[c] = 0;
        for (int l = 0; l < 16; ++l) {
            const int f = 3 * soaVector(transposed, l) + c;
            t.low[c][l] = f < 32 ? f : 0;
            t.high[c][l] = f < 32 ? 0 : f - 32;
            if (f >= 32)
                t.fromHigh[c] = __mmask16(t.fromHigh[c] | 1u << l);
        }
    }
    return t;
}

constexpr Vec3Permutes kVec3InOrder = makeVec3Permutes(false);
constexpr Vec3Permutes kVec3Transposed = makeVec3Permutes(true);

/// x, y, z of sixteen consecutive vectors at p, S floats each, lane l = vector soaVector(kTransposed, l): for S = 3 six
/// permutes (Vec3Permutes), for S = 4 (transposed only) columns16's transpose (seven shuffles once w is dropped).
/// Intel's 512-bit shuffles all issue on one port (Ice Lake: port 5), so their count bounds the loop: two loadSoa8s and
/// their inserts cost thirteen (stride 3) and nineteen (stride 4).
template <int S, bool kTransposed>
__attribute__((target("avx512f,avx512dq,avx2"), always_inline)) inline void loadSoa16(const float* p, __m512& x, __m512& y,
                                                                                      __m512& z)
{
    static_assert(S == 3 || (S == 4 && kTransposed), "4-vectors load transposed");
    if constexpr (S == 3) {
        const Vec3Permutes& t = kTransposed ? kVec3Transposed : kVec3InOrder;
        const __m512 r0 = _mm512_loadu_ps(p), r1 = _mm512_loadu_ps(p + 16), r2 = _mm512_loadu_ps(p + 32);
        __m512* out[3] = {&x, &y, &z};
        for (int c = 0; c < 3; ++c)
            *out[c] = _mm512_mask_permutexvar_ps(
                _mm512_permutex2var_ps(r0, _mm512_load_si512(t.low[c]), r1), t.fromHigh[c], _mm512_load_si512(t.high[c]), r2);
    } else {
        __m512 unused; // w: its shuffle is dead code once inlined
        columns16(p, x, y, z, unused);
    }
}

/// isDefined per lane: (x x + y y) + z z > 0.25 and finite.
__attribute__((target("avx512f,avx512dq,avx2"), always_inline)) inline __mmask16 defined16(__m512 x, __m512 y, __m512 z)
{
    const __m512 len2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(x, x), _mm512_mul_ps(y, y)), _mm512_mul_ps(z, z));
    return __mmask16(_mm512_cmp_ps_mask(len2, _mm512_set1_ps(0.25f), _CMP_GT_OQ) &
                     _mm512_cmp_ps_mask(len2, _mm512_set1_ps(INFINITY), _CMP_LT_OQ));
}

/// Sixteen vertices a step with AVX-512, K steps interleaved: anglesAvx2's operations again, against b0 alone or
/// b0 and b1 (SB1 = 0 or not, as there), on 3- or 4-float vectors (loadSoa16; in transposed order where any is a
/// 4-vector, the angles put back in order before the store).
template <int K, int SA, int SB0, int SB1>
__attribute__((target("avx512f,avx512dq,avx2"), always_inline)) inline void anglesAvx512(const float* a, const float* b0,
                                                                                        const float* b1, float* out0,
                                                                                        float* out1)
{
    constexpr int NB = SB1 == 0 ? 1 : 2, C = K * NB; // chain k NB + j: step k against b_j
    constexpr bool kTransposed = SA == 4 || SB0 == 4 || SB1 == 4;
    __mmask16 defined[C], big[C];
    __m512 c[C], sn[C], ac[C], x[C];
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k) {
        __m512 ax, ay, az;
        loadSoa16<SA, kTransposed>(a + 16 * k * SA, ax, ay, az);
        const __mmask16 definedA = defined16(ax, ay, az);
#pragma GCC unroll 2
        for (int j = 0; j < NB; ++j) {
            const int i = k * NB + j;
            __m512 bx, by, bz;
            if (j == 0)
                loadSoa16<SB0, kTransposed>(b0 + 16 * k * SB0, bx, by, bz);
            else
                loadSoa16<SB1 == 0 ? SB0 : SB1, kTransposed>(b1 + 16 * k * SB1, bx, by, bz);
            defined[i] = definedA & defined16(bx, by, bz);
            const __m512 cx = _mm512_sub_ps(_mm512_mul_ps(ay, bz), _mm512_mul_ps(az, by));
            const __m512 cy = _mm512_sub_ps(_mm512_mul_ps(az, bx), _mm512_mul_ps(ax, bz));
            const __m512 cz = _mm512_sub_ps(_mm512_mul_ps(ax, by), _mm512_mul_ps(ay, bx));
            sn[i] = _mm512_sqrt_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(cx, cx), _mm512_mul_ps(cy, cy)), _mm512_mul_ps(cz, cz)));
            c[i] = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(ax, bx), _mm512_mul_ps(ay, by)), _mm512_mul_ps(az, bz));
        }
    }
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) {
        ac[i] = _mm512_abs_ps(c[i]);
        const __m512 hi = _mm512_max_ps(_mm512_max_ps(sn[i], ac[i]), _mm512_set1_ps(1e-30f)), lo = _mm512_min_ps(sn[i], ac[i]);
        big[i] = _mm512_cmp_ps_mask(lo, _mm512_mul_ps(_mm512_set1_ps(0.41421356f), hi), _CMP_GT_OQ);
        x[i] = _mm512_div_ps(_mm512_mask_sub_ps(lo, big[i], lo, hi), _mm512_mask_add_ps(hi, big[i], lo, hi));
    }
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) {
        const __m512 z = _mm512_mul_ps(x[i], x[i]);
        __m512 p = _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(8.05374449538e-2f), z), _mm512_set1_ps(1.38776856032e-1f));
        p = _mm512_add_ps(_mm512_mul_ps(p, z), _mm512_set1_ps(1.99777106478e-1f));
        p = _mm512_sub_ps(_mm512_mul_ps(p, z), _mm512_set1_ps(3.33329491539e-1f));
        p = _mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(p, z), x[i]), x[i]);
        __m512 r = _mm512_add_ps(_mm512_maskz_mov_ps(big[i], _mm512_set1_ps(0.78539816339744831f)), p);
        r = _mm512_mask_sub_ps(r, _mm512_cmp_ps_mask(sn[i], ac[i], _CMP_GT_OQ), _mm512_set1_ps(1.5707963267948966f), r);
        r = _mm512_mask_sub_ps(r, _mm512_cmp_ps_mask(c[i], _mm512_setzero_ps(), _CMP_LT_OQ), _mm512_set1_ps(3.14159265358979323846f), r);
        __m512 deg = _mm512_mask_mul_ps(_mm512_set1_ps(kUndefinedError), defined[i], r, _mm512_set1_ps(57.295779513082320876f));
        if constexpr (kTransposed) // the transpose is its own inverse: lane i of the store is lane soaVector(true, i)
            deg = _mm512_permutexvar_ps(_mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0), deg);
        _mm512_storeu_ps((i % NB == 0 ? out0 : out1) + 16 * (i / NB), deg);
    }
}

/// errorsAvx2's loop with AVX-512: four chains a step (sixty-four vertices against one array, thirty-two against two),
/// then sixteen vertices at a time; returns where it stopped.
template <int SA, int SB0, int SB1>
__attribute__((target("avx512f,avx512dq,avx2"))) size_t errorsAvx512(const float* a, const float* b0, const float* b1,
                                                                    float* out0, float* out1, size_t n)
{
    constexpr int K = SB1 == 0 ? 4 : 2;
    size_t i = 0;
    for (; i + 16 * K <= n; i += 16 * K)
        anglesAvx512<K, SA, SB0, SB1>(a + i * SA, b0 + i * SB0, b1 + i * SB1, out0 + i, out1 + i);
    for (; i + 16 <= n; i += 16)
        anglesAvx512<1, SA, SB0, SB1>(a + i * SA, b0 + i * SB0, b1 + i * SB1, out0 + i, out1 + i);
    return i;
}

/// errorStats' buckets: a defined error's float bits (sign 0) shifted right by kBucketShift — its exponent and five
/// mantissa bits, 1/32 of an octave — between 2^-16 and 256, each end lumped into one bucket (0: below 2^-16, zero
/// included; kBuckets - 1: 256 and above). Below 64 a bucket lies inside one 1° bin (its width divides 1), and 45 is a
/// bucket boundary, so the histogram's bins are sums of whole buckets; and the nearest-rank percentile lies in one
/// bucket, where a selection among its values finds it exactly (the lumps too: their values are collected as any).
constexpr int kBucketShift = 18;
constexpr uint32_t kLowestBucketBits = (127u - 16u) << 5;  ///< 2^-16's bits >> kBucketShift
constexpr uint32_t kTopBucketBits = (127u + 8u) << 5;      ///< 256's
constexpr uint32_t kBuckets = kTopBucketBits - kLowestBucketBits + 2;
/// Lanes of bucket counts and of double sums: element i counts and adds in lane i % kStatLanes (the mean's definition:
/// errorStats), so that the increments and additions of consecutive elements do not wait on one another.
constexpr int kStatLanes = 16;
constexpr size_t kLaneStride = kBuckets + 1; ///< a lane's buckets, then its spare one for undefined values
static_assert((std::bit_cast<uint32_t>(float(kHistogramBins - 1)) & ((1u << kBucketShift) - 1)) == 0,
              "the last bin's lower bound must be a bucket boundary");
static_assert((std::bit_cast<uint32_t>(63.0f) & ((1u << kBucketShift) - 1)) == 0, "integers below 64: bucket boundaries");

/// The bucket of a defined error's bits (+0 for -0 already).
inline uint32_t bucketOf(uint32_t bits)
{
    return std::clamp(bits >> kBucketShift, kLowestBucketBits - 1, kTopBucketBits) - (kLowestBucketBits - 1);
}

/// The smallest value of bucket b (0 for the lower lump).
inline float bucketLow(uint32_t b)
{
    if (b == 0)
        return 0.0f;
    const uint32_t bits = (b + kLowestBucketBits - 1) << kBucketShift;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

/// bucketOf for sixteen values' bits (whatever their sign: the caller masks the undefined ones).
__attribute__((target("avx512f,avx512dq,avx2"), always_inline)) inline __m512i bucketsOf(__m512 v)
{
    const __m512i lowest = _mm512_set1_epi32(int(kLowestBucketBits - 1)), top = _mm512_set1_epi32(int(kTopBucketBits));
    const __m512i b = _mm512_srli_epi32(_mm512_castps_si512(v), kBucketShift);
    return _mm512_sub_epi32(_mm512_min_epu32(_mm512_max_epu32(b, lowest), top), lowest);
}

/// ++counts[x_k] for the four 32-bit lanes of x (AVX2's target: inlined into the AVX2 and the AVX-512 passes).
__attribute__((target("avx2"), always_inline)) inline void count4(uint32_t* counts, __m128i x)
{
    const uint64_t lo = uint64_t(_mm_cvtsi128_si64(x)), hi = uint64_t(_mm_extract_epi64(x, 1));
    ++counts[uint32_t(lo)];
    ++counts[lo >> 32];
    ++counts[uint32_t(hi)];
    ++counts[hi >> 32];
}

/// How far ahead errorStats' main pass asks for its values (floats: 4 KB, 64 lines). The arrays come from L3 (step 4
/// of evaluate writes 32 of 400 KB at 100k vertices, past L2) and, with the hardware prefetcher alone, the pass's
/// profile shows it waiting on its loads: errorStats of those 32 arrays, one thread of the Ice Lake Xeon, AVX-512
/// 4.3 -> 3.8 ms, AVX2 5.25 -> 4.86. (The bucket's collection pass that follows reads the array from L2: no gain.)
constexpr size_t kStatsPrefetchFloats = 1024;

/// Prefetches the line kStatsPrefetchFloats past data[i] where it lies within data[0, n) (one line a call: the
/// callers read sixteen floats a step).
__attribute__((always_inline)) inline void prefetchAhead(const float* data, size_t i, size_t n)
{
    if (i + kStatsPrefetchFloats < n)
        _mm_prefetch(reinterpret_cast<const char*>(data + i + kStatsPrefetchFloats), _MM_HINT_T0);
}

/// errorStats' main pass over data[0, n) sixteen values at a time (what its scalar loop does for each: lane l of the
/// sums and of the counts takes element 16k + l, the sums in the same order); returns where it stopped.
__attribute__((target("avx512f,avx512dq,avx2"))) size_t statsPassAvx512(const float* data, size_t n, uint32_t* counts,
                                                                       double (&sum)[kStatLanes], float& mx, size_t& defined)
{
    __m512d sumLo = _mm512_loadu_pd(sum), sumHi = _mm512_loadu_pd(sum + 8);
    __m512 maxes = _mm512_setzero_ps();
    alignas(64) uint32_t lanes[16]; // each lane's first bucket
    for (int l = 0; l < 16; ++l)
        lanes[l] = uint32_t(size_t(l) * kLaneStride);
    const __m512i laneBase = _mm512_load_si512(lanes);
    const __m512i spare = _mm512_add_epi32(laneBase, _mm512_set1_epi32(int(kBuckets)));
    size_t count = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        prefetchAhead(data, i, n);
        const __m512 e = _mm512_add_ps(_mm512_loadu_ps(data + i), _mm512_setzero_ps()); // -0 -> +0
        const __mmask16 ok = _mm512_cmp_ps_mask(e, _mm512_setzero_ps(), _CMP_GE_OQ);
        count += size_t(__builtin_popcount(ok));
        const __m512 kept = _mm512_maskz_mov_ps(ok, e);
        maxes = _mm512_max_ps(maxes, kept);
        sumLo = _mm512_add_pd(sumLo, _mm512_cvtps_pd(_mm512_castps512_ps256(kept)));
        sumHi = _mm512_add_pd(sumHi, _mm512_cvtps_pd(_mm512_extractf32x8_ps(kept, 1)));
        const __m512i at = _mm512_mask_add_epi32(spare, ok, bucketsOf(e), laneBase);
        // The sixteen increments, their indices taken out of the register 64 bits at a time.
        count4(counts, _mm512_castsi512_si128(at));
        count4(counts, _mm512_extracti32x4_epi32(at, 1));
        count4(counts, _mm512_extracti32x4_epi32(at, 2));
        count4(counts, _mm512_extracti32x4_epi32(at, 3));
    }
    _mm512_storeu_pd(sum, sumLo);
    _mm512_storeu_pd(sum + 8, sumHi);
    mx = std::max(mx, _mm512_reduce_max_ps(maxes));
    defined += count;
    return i;
}

/// The defined values of data[0, n) in bucket `bucket`, appended at out + count (16 at a time: whole-register stores
/// past the count, so `out` needs 16 floats of room beyond the bucket's size), and their least and greatest value
/// folded into lo and hi; returns where it stopped.
__attribute__((target("avx512f,avx512dq,avx2"))) size_t collectBucketAvx512(const float* data, size_t n, uint32_t bucket,
                                                                           float* out, size_t& count, float& lo, float& hi)
{
    const __m512i want = _mm512_set1_epi32(int(bucket));
    __m512 mn = _mm512_set1_ps(lo), mx = _mm512_set1_ps(hi);
    size_t k = 0;
    for (; k + 16 <= n; k += 16) {
        const __m512 v = _mm512_add_ps(_mm512_loadu_ps(data + k), _mm512_setzero_ps()); // -0 -> +0, as counted
        const __mmask16 ok = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GE_OQ);
        const __mmask16 m = _mm512_mask_cmpeq_epi32_mask(ok, bucketsOf(v), want);
        _mm512_storeu_ps(out + count, _mm512_maskz_compress_ps(m, v));
        count += size_t(__builtin_popcount(m));
        mn = _mm512_mask_min_ps(mn, m, mn, v);
        mx = _mm512_mask_max_ps(mx, m, mx, v);
    }
    lo = _mm512_reduce_min_ps(mn);
    hi = _mm512_reduce_max_ps(mx);
    return k;
}

#pragma GCC diagnostic pop

/// bucketsOf for eight values (AVX2).
__attribute__((target("avx2"), always_inline)) inline __m256i bucketsOf8(__m256 v)
{
    const __m256i lowest = _mm256_set1_epi32(int(kLowestBucketBits - 1)), top = _mm256_set1_epi32(int(kTopBucketBits));
    const __m256i b = _mm256_srli_epi32(_mm256_castps_si256(v), kBucketShift);
    return _mm256_sub_epi32(_mm256_min_epu32(_mm256_max_epu32(b, lowest), top), lowest);
}

__attribute__((target("avx2"), always_inline)) inline float maxOf8(__m256 v)
{
    __m256 m = _mm256_max_ps(v, _mm256_permute2f128_ps(v, v, 1));
    m = _mm256_max_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm256_max_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm256_cvtss_f32(m);
}

__attribute__((target("avx2"), always_inline)) inline float minOf8(__m256 v)
{
    __m256 m = _mm256_min_ps(v, _mm256_permute2f128_ps(v, v, 1));
    m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm256_cvtss_f32(m);
}

/// statsPassAvx512 with AVX2 (the machines without AVX-512): sixteen values a step as two registers of eight, lane l of
/// the sums and counts taking element 16k + l as there; returns where it stopped.
__attribute__((target("avx2"))) size_t statsPassAvx2(const float* data, size_t n, uint32_t* counts, double (&sum)[kStatLanes],
                                                    float& mx, size_t& defined)
{
    __m256d s[4] = {_mm256_loadu_pd(sum), _mm256_loadu_pd(sum + 4), _mm256_loadu_pd(sum + 8), _mm256_loadu_pd(sum + 12)};
    __m256 maxes = _mm256_setzero_ps();
    alignas(32) uint32_t lanes[16]; // each lane's first bucket
    for (int l = 0; l < 16; ++l)
        lanes[l] = uint32_t(size_t(l) * kLaneStride);
    const __m256i laneBase[2] = {_mm256_load_si256(reinterpret_cast<const __m256i*>(lanes)),
                                 _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes + 8))};
    const __m256i spare[2] = {_mm256_add_epi32(laneBase[0], _mm256_set1_epi32(int(kBuckets))),
                              _mm256_add_epi32(laneBase[1], _mm256_set1_epi32(int(kBuckets)))};
    size_t count = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        prefetchAhead(data, i, n);
        for (int h = 0; h < 2; ++h) {
            const __m256 e = _mm256_add_ps(_mm256_loadu_ps(data + i + 8 * size_t(h)), _mm256_setzero_ps()); // -0 -> +0
            const __m256 ok = _mm256_cmp_ps(e, _mm256_setzero_ps(), _CMP_GE_OQ);
            count += size_t(__builtin_popcount(unsigned(_mm256_movemask_ps(ok))));
            const __m256 kept = _mm256_and_ps(ok, e);
            maxes = _mm256_max_ps(maxes, kept);
            s[2 * h] = _mm256_add_pd(s[2 * h], _mm256_cvtps_pd(_mm256_castps256_ps128(kept)));
            s[2 * h + 1] = _mm256_add_pd(s[2 * h + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(kept, 1)));
            const __m256i at = _mm256_blendv_epi8(spare[h], _mm256_add_epi32(bucketsOf8(e), laneBase[h]), _mm256_castps_si256(ok));
            count4(counts, _mm256_castsi256_si128(at));
            count4(counts, _mm256_extracti128_si256(at, 1));
        }
    }
    for (int q = 0; q < 4; ++q)
        _mm256_storeu_pd(sum + 4 * q, s[q]);
    mx = std::max(mx, maxOf8(maxes));
    defined += count;
    return i;
}

/// For collectBucketAvx2: per 8-bit lane mask, the lanes it selects in order (then zeros), as a permutation.
struct CompressTable {
    int32_t lanes[256][8];
};

constexpr CompressTable makeCompressTable()
{
    CompressTable t{};
    for (int m = 0; m < 256; ++m) {
        int k = 0;
        for (int l = 0; l < 8; ++l)
            if (m >> l & 1)
                t.lanes[m][k++] = l;
    }
    return t;
}

alignas(32) constexpr CompressTable kCompress = makeCompressTable();

/// collectBucketAvx512 with AVX2: eight values at a time, the selected ones moved to the front by one permutation
/// from a table and stored as a whole register (`out` needs 8 floats of room beyond the bucket's size).
__attribute__((target("avx2"))) size_t collectBucketAvx2(const float* data, size_t n, uint32_t bucket, float* out,
                                                        size_t& count, float& lo, float& hi)
{
    const __m256i want = _mm256_set1_epi32(int(bucket));
    __m256 mn = _mm256_set1_ps(lo), mx = _mm256_set1_ps(hi);
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        const __m256 v = _mm256_add_ps(_mm256_loadu_ps(data + k), _mm256_setzero_ps()); // -0 -> +0, as counted
        const __m256 m = _mm256_and_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GE_OQ),
                                       _mm256_castsi256_ps(_mm256_cmpeq_epi32(bucketsOf8(v), want)));
        const unsigned bits = unsigned(_mm256_movemask_ps(m));
        _mm256_storeu_ps(out + count, _mm256_permutevar8x32_ps(
                                          v, _mm256_load_si256(reinterpret_cast<const __m256i*>(kCompress.lanes[bits]))));
        count += size_t(__builtin_popcount(bits));
        mn = _mm256_blendv_ps(mn, _mm256_min_ps(mn, v), m);
        mx = _mm256_blendv_ps(mx, _mm256_max_ps(mx, v), m);
    }
    lo = minOf8(mn);
    hi = maxOf8(mx);
    return k;
}

/// handednessMismatches over tangents [0, n) eight at a time with AVX2 (mismatchesAvx512's tests); adds to `count`,
/// returns where it stopped.
__attribute__((target("avx2"))) size_t mismatchesAvx2(const float* a, const float* b, size_t n, size_t& count)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 ax, ay, az, aw, bx, by, bz, bw;
        detail::loadSoa4x8(a + 4 * i, ax, ay, az, aw);
        detail::loadSoa4x8(b + 4 * i, bx, by, bz, bw);
        const __m256 differ = _mm256_xor_ps(_mm256_cmp_ps(aw, _mm256_setzero_ps(), _CMP_LT_OQ),
                                            _mm256_cmp_ps(bw, _mm256_setzero_ps(), _CMP_LT_OQ));
        const __m256 both = _mm256_and_ps(detail::defined8(ax, ay, az), detail::defined8(bx, by, bz));
        count += size_t(__builtin_popcount(unsigned(_mm256_movemask_ps(_mm256_and_ps(differ, both)))));
    }
    return i;
}

#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// handednessMismatches over tangents [0, n) sixteen at a time (the same tests as its scalar loop, the lengths added in
/// the same order); adds to `count`, returns where it stopped.
__attribute__((target("avx512f,avx512dq,avx2"))) size_t mismatchesAvx512(const float* a, const float* b, size_t n, size_t& count)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 ax, ay, az, aw, bx, by, bz, bw;
        columns16(a + 4 * i, ax, ay, az, aw);
        columns16(b + 4 * i, bx, by, bz, bw);
        const auto differ = __mmask16(_mm512_cmp_ps_mask(aw, _mm512_setzero_ps(), _CMP_LT_OQ) ^
                                      _mm512_cmp_ps_mask(bw, _mm512_setzero_ps(), _CMP_LT_OQ));
        count += size_t(__builtin_popcount(differ & defined16(ax, ay, az) & defined16(bx, by, bz)));
    }
    return i;
}

#pragma GCC diagnostic pop

/// The loop over strides of SA / SB0 / SB1 floats (3: vec3, 4: vec4; SB1 = 0: against b0 alone): AVX-512 and AVX2
/// where the CPU has them, the scalar form for the rest (and everywhere else), bit-identical (the same IEEE operations
/// in the same order; the file is compiled without FMA contraction). Against b0 alone, b1 and out1 are b0 and out0.
template <int SA, int SB0, int SB1>
void errorsLoop(const float* a, const float* b0, const float* b1, float* out0, float* out1, size_t n)
{
    size_t i = cpuHasAvx512() ? errorsAvx512<SA, SB0, SB1>(a, b0, b1, out0, out1, n) : 0;
    if (cpuHasAvx2())
        i += errorsAvx2<SA, SB0, SB1>(a + SA * i, b0 + SB0 * i, b1 + SB1 * i, out0 + i, out1 + i, n - i);
    for (; i < n; ++i) {
        const float ax = a[SA * i], ay = a[SA * i + 1], az = a[SA * i + 2];
        out0[i] = angleOrUndefined(ax, ay, az, b0[SB0 * i], b0[SB0 * i + 1], b0[SB0 * i + 2]);
        if constexpr (SB1 != 0)
            out1[i] = angleOrUndefined(ax, ay, az, b1[SB1 * i], b1[SB1 * i + 1], b1[SB1 * i + 2]);
    }
}

template <int SA, int SB>
void errorsLoop(const float* a, const float* b, float* out, size_t n)
{
    errorsLoop<SA, SB, 0>(a, b, b, out, out, n);
}

/// A span's floats. Not &v.data()->x: an empty span's data() is null (UBSan: member access through a null pointer).
const float* floats(std::span<const glm::vec3> v) { return reinterpret_cast<const float*>(v.data()); }
const float* floats(std::span<const glm::vec4> v) { return reinterpret_cast<const float*>(v.data()); }

} // namespace

void angularErrors(std::span<const glm::vec3> a, std::span<const glm::vec3> b, std::span<float> errors)
{
    assert(a.size() == b.size() && a.size() == errors.size());
    errorsLoop<3, 3>(floats(a), floats(b), errors.data(), errors.size());
}

void angularErrors(std::span<const glm::vec4> a, std::span<const glm::vec4> b, std::span<float> errors)
{
    assert(a.size() == b.size() && a.size() == errors.size());
    errorsLoop<4, 4>(floats(a), floats(b), errors.data(), errors.size());
}

void angularErrors(std::span<const glm::vec4> a, std::span<const glm::vec3> b, std::span<float> errors)
{
    assert(a.size() == b.size() && a.size() == errors.size());
    errorsLoop<4, 3>(floats(a), floats(b), errors.data(), errors.size());
}

void angularErrors(std::span<const glm::vec3> a, std::span<const glm::vec3> b, std::span<float> errorsB,
                   std::span<const glm::vec3> c, std::span<float> errorsC)
{
    assert(a.size() == b.size() && a.size() == errorsB.size() && a.size() == c.size() && a.size() == errorsC.size());
    errorsLoop<3, 3, 3>(floats(a), floats(b), floats(c), errorsB.data(), errorsC.data(), a.size());
}

void angularErrors(std::span<const glm::vec4> a, std::span<const glm::vec4> b, std::span<float> errorsB,
                   std::span<const glm::vec3> c, std::span<float> errorsC)
{
    assert(a.size() == b.size() && a.size() == errorsB.size() && a.size() == c.size() && a.size() == errorsC.size());
    errorsLoop<4, 4, 3>(floats(a), floats(b), floats(c), errorsB.data(), errorsC.data(), a.size());
}

size_t handednessMismatches(std::span<const glm::vec4> a, std::span<const glm::vec4> b)
{
    assert(a.size() == b.size());
    size_t count = 0;
    const size_t n = a.size();
    const float* fa = floats(a);
    const float* fb = floats(b);
    size_t i = cpuHasAvx512() ? mismatchesAvx512(fa, fb, n, count) : cpuHasAvx2() ? mismatchesAvx2(fa, fb, n, count) : 0;
    for (; i < n; ++i)
        count += isDefined(glm::vec3(a[i])) && isDefined(glm::vec3(b[i])) && (a[i].w < 0.0f) != (b[i].w < 0.0f) ? 1 : 0;
    return count;
}

namespace {

/// Above this many values in the percentile's bucket, refineBucket narrows them before the selection: a counting
/// pass and a compaction cost a few cycles a value without a branch, std::nth_element's partitions several times that
/// in mispredicted comparisons (a smooth error field puts tens of thousands of values in one bucket).
constexpr size_t kRefineAbove = 2048;

/// Narrows the `count` values of one inner bucket (all share their bits >> kBucketShift, so the next eight bits order
/// them) to those of the sub-bucket that holds the one of rank idx among them: they are compacted to the front of
/// `values`, idx becomes its rank among them, and their number is returned. The selection among them then gives the
/// same value as among all.
size_t refineBucket(float* values, size_t count, size_t& idx)
{
    constexpr int kSubShift = kBucketShift - 8;
    constexpr int kWays = 4; // four count arrays, so that equal neighbours do not wait on one another's increment
    uint32_t sub[kWays][256] = {};
    size_t k = 0;
    for (; k + kWays <= count; k += kWays)
        for (int w = 0; w < kWays; ++w)
            ++sub[w][std::bit_cast<uint32_t>(values[k + size_t(w)]) >> kSubShift & 0xFFu];
    for (; k < count; ++k)
        ++sub[0][std::bit_cast<uint32_t>(values[k]) >> kSubShift & 0xFFu];
    uint32_t key = 0;
    for (;; ++key) {
        assert(key < 256);
        const size_t c = size_t(sub[0][key]) + sub[1][key] + sub[2][key] + sub[3][key];
        if (idx < c)
            break;
        idx -= c;
    }
    size_t m = 0;
    for (k = 0; k < count; ++k) { // without a branch: every value stored, the count advanced on a match
        const float x = values[k];
        values[m] = x;
        m += (std::bit_cast<uint32_t>(x) >> kSubShift & 0xFFu) == key ? 1 : 0;
    }
    return m;
}

} // namespace

ErrorStats errorStats(std::span<const float> errors)
{
    std::vector<float> scratch;
    return errorStats(errors, scratch);
}

ErrorStats errorStats(std::span<const float> errors, std::vector<float>& scratch)
{
    // One pass: count, sum, max and the bucket counts (bucketOf), which give the 1° bins. The nearest-rank 95th
    // percentile then lies in one bucket: a second pass collects that bucket and nth_element finds it among its values.
    // Exact, O(n).
    ErrorStats s;
    thread_local std::vector<uint32_t> counts;
    counts.assign(kStatLanes * kLaneStride, 0u);
    double sum[kStatLanes] = {};
    float mx = 0.0f;
    size_t defined = 0;
    const float* data = errors.data();
    const size_t n = errors.size();
    size_t i = cpuHasAvx512() ? statsPassAvx512(data, n, counts.data(), sum, mx, defined)
               : cpuHasAvx2() ? statsPassAvx2(data, n, counts.data(), sum, mx, defined)
                              : 0;
    for (; i < n; ++i) {
        const size_t l = i % kStatLanes;
        const float e = data[i] + 0.0f; // -0 -> +0: its sign bit would put it past the last bucket
        if (!(e >= 0.0f))
            continue; // undefined (NaN or the negative marker): counted as the rest
        ++defined;
        sum[l] += e;
        mx = std::max(mx, e);
        uint32_t bits;
        std::memcpy(&bits, &e, 4);
        ++counts[l * kLaneStride + bucketOf(bits)];
    }
    for (int l = 1; l < kStatLanes; ++l)
        for (size_t b = 0; b < kBuckets; ++b)
            counts[b] += counts[size_t(l) * kLaneStride + b];
    for (uint32_t b = 0; b < kBuckets; ++b)
        s.histogram[size_t(std::min(int(bucketLow(b)), kHistogramBins - 1))] += counts[b];
    s.defined = defined;
    s.undefined = n - defined;
    if (defined == 0)
        return s;
    double total = sum[0];
    for (int l = 1; l < kStatLanes; ++l)
        total += sum[l];
    s.max = mx;
    s.mean = total / double(defined);
    // Nearest rank: the smallest value with at least 95% of the values at or below it.
    const size_t rank = size_t(std::ceil(0.95 * double(defined)));
    size_t idx = std::min(defined - 1, rank == 0 ? 0 : rank - 1);
    uint32_t bucket = 0;
    while (idx >= counts[bucket])
        idx -= counts[bucket++];
    // The bucket's values, collected without a branch (a store per element, the count advanced on a match).
    if (scratch.size() < n + 16)
        scratch.resize(std::max(n + 16, 2 * scratch.size()));
    float* out = scratch.data();
    size_t count = 0;
    float lo = INFINITY, hi = -INFINITY;
    size_t k = cpuHasAvx512() ? collectBucketAvx512(data, n, bucket, out, count, lo, hi)
               : cpuHasAvx2() ? collectBucketAvx2(data, n, bucket, out, count, lo, hi)
                              : 0;
    for (; k < n; ++k) {
        const float e = data[k] + 0.0f; // -0 -> +0, as counted
        uint32_t bits;
        std::memcpy(&bits, &e, 4);
        out[count] = e;
        const bool in = e >= 0.0f && bucketOf(bits) == bucket;
        count += in ? 1 : 0;
        lo = in ? std::min(lo, e) : lo;
        hi = in ? std::max(hi, e) : hi;
    }
    assert(count == counts[bucket]);
    if (lo == hi) { // one value throughout (all zeros: the rebuilt method, the bind pose): no selection to do
        s.p95 = lo;
        return s;
    }
    if (bucket != 0 && bucket != kBuckets - 1 && count > kRefineAbove)
        count = refineBucket(out, count, idx);
    std::nth_element(out, out + ptrdiff_t(idx), out + count);
    s.p95 = out[idx];
    return s;
}

} // namespace rig
