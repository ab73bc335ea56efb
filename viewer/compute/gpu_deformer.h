// The GPU deformation pipeline: every skinning method, the rebuilt reference and its angular error, and per-mesh
// bounding boxes, as compute passes over a given QRhi (Vulkan or OpenGL 4.3+). It mirrors rig::evaluate (deform.h)
// formula for formula; the parity tests (tests/gpu/test_gpu_parity.cpp) hold it to the CPU results.
//
// All meshes of a rig are concatenated into one global vertex array and one global triangle list, in file order
// (vertex v of mesh m is global vertex meshes()[m].vertexBegin + v). Joint indices become global palette indices: a
// skinned mesh's palette is its skin's joints followed by the identity entry (unbound vertices; meshes that share a
// skin share its palette range), an unskinned mesh's palette is its node's world matrix — exactly rig::evaluate's.
//
// Use: setRig() once per rig (uploads the static data), then any of setPose() / setMethod() / setSettings(), then
// record(cb) inside a frame (outside any render or compute pass). record() runs only the passes that a change made
// necessary: morph → skin → faces → reference → bounds → errors, or a suffix of that chain (a method switch between
// two non-dual-quaternion methods only re-skins and re-measures: the positions, and so the reference, are the same).
//
// Output buffers (std430; QRhiBuffer::StorageBuffer | VertexBuffer, so a viewport can read them in a vertex shader
// by gl_VertexIndex, or bind them as per-vertex input). N = vertexCount(), M = meshes().size().
//   positionsBuffer()          vec4 × N  final positions of the selected method, w = 1
//   normalsBuffer()            vec4 × N  the method's unit normals, w = 0; (0,0,0,0) = undefined
//   tangentsBuffer()           vec4 × N  the method's unit tangents, w = handedness (±1); all zero when undefined or
//                                        when the mesh has no tangents
//   referenceNormalsBuffer()   vec4 × N  the rebuilt reference normals of these positions, w = 0; zero = undefined
//   referenceTangentsBuffer()  vec4 × N  the rebuilt reference tangents, w = handedness; zero = undefined / none
//   errorsBuffer()             vec4 × N  (normal error, tangent error, skinning normal error, skinning tangent
//                                        error) in degrees; -1 = undefined (never NaN). The skinning errors are against
//                                        the reference carried from the bind pose (rig/analysis/carried.h)
//   flagsBuffer()              uint × N  rig::SkinFlag bits of the method
//   boundsBuffer()             vec4 × 2M per mesh (min.xyz, 1 if it has vertices), (max.xyz, 0); an empty mesh has
//                                        min = +3.4e38 > max = -3.4e38
//   indexBuffer()              uint32 × 3T global triangle list (IndexBuffer usage), for drawing
//   rawInfluencesBuffer()      uint: [0..N] CSR offsets, then per authored influence (node index or 0xFFFFFFFF
//                                        for a joint outside the skin, weight as float bits): the raw weights, for the
//                                        weight views (static, set by setRig)
// For Method::Rebuilt the normals/tangents buffers hold the reference and the errors are 0 (or -1 where undefined).
// Positions are those of the selected method: the linear blend for every method but dual-quaternion.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "rig/deform/deform.h"
#include "rig/deform/joint_frames.h"
#include "rig/model/model.h"
#include "rig/model/pose.h"
#include "rig/model/result.h"
#include "rig/deform/skinning.h"

class QRhi;
class QRhiBuffer;
class QRhiCommandBuffer;
class QRhiComputePipeline;
class QRhiResourceUpdateBatch;
class QRhiShaderResourceBindings;

namespace viewer {

/// Where one mesh lives in the global arrays.
struct GpuMeshRange {
    uint32_t vertexBegin = 0, vertexCount = 0;
    uint32_t triangleBegin = 0, triangleCount = 0; ///< in triangles: indices [3 * begin, 3 * (begin + count))
    uint32_t groupBegin = 0, groupCount = 0;       ///< padded 128-vertex workgroups of the vertex passes
    uint32_t morphBegin = 0, morphCount = 0;       ///< global morph target range
    uint32_t paletteBegin = 0, paletteCount = 0;   ///< global palette range
    bool hasTangents = false;
    bool hasUvs = false;
    bool skinned = false;
};

/// The viewport's per-vertex mesh input: UV0 as the file gives it (the procedural materials), the base colour
/// texture's coordinate (UV0 with the image's first row at v = 0) and the mesh's base colour factor (RGBA8; alpha 0:
/// the file gives none).
struct DrawVertex {
    glm::vec2 uv;
    glm::vec2 texUv;
    uint32_t color;
};
static_assert(sizeof(DrawVertex) == 20, "the mesh pipeline's vertex input layout");

/// Everything the GPU path needs of one rig that does not depend on a device: the deformer's static arrays and the
/// viewport's draw input, from the rig and its runtime data alone (packGpuRig). The loader thread builds it with the
/// rig's other derived data (app::LoadedRig), so that taking a rig on the GUI thread costs buffer creation and their
/// uploads only, no loop over the vertices.
struct GpuRigPack {
    struct PaletteSource {
        int skin = -1;  ///< skin whose joint `joint` this entry is, or -1
        int joint = -1; ///< == skin joint count: the identity entry
        int node = -1;  ///< unskinned mesh: the node whose world matrix this is (-1: identity)
    };
    int influences = 4; ///< K
    size_t vertices = 0, triangles = 0, groups = 0, morphTargets = 0;
    std::vector<GpuMeshRange> meshes;
    std::vector<PaletteSource> paletteSources; ///< the global palette
    // The storage buffers' contents, as deform_*.comp read them.
    std::vector<uint32_t> layout, targetInfo, influenceWords, gradients, triangleWords, indices, adjacency, raw;
    std::vector<float> rest, uvs, deltas, bind;
    std::vector<DrawVertex> draw; ///< one per global vertex (at least one)
    /// The wireframe's unique edges, pairs of global vertex indices (viewer::uniqueEdges); filled by the caller that
    /// draws (the document's loader), empty for the headless GPU evaluation.
    std::vector<uint32_t> edges;
    /// The hard weight boundaries' edges (rig::WeightBands::hardBoundaryEdgeList), drawn red by the overlay; filled
    /// the same way.
    std::vector<uint32_t> hardEdges;
    /// The float reference's streams (rig::kReferenceFormat: 8 influences), packed as influenceWords and gradients
    /// are, for the format difference (GpuDeformer::formatDifferenceBuffer); empty unless packComparison() filled them.
    std::vector<uint32_t> compareInfluenceWords, compareGradients;
    bool hasComparison() const { return !compareInfluenceWords.empty(); }
};

/// Packs `rig` with its runtime data (rig::buildRuntime) for the GPU path; thread-safe, allocates and loops over the
/// vertices (that is its point: off the GUI thread). Fails with a message when the data is inconsistent.
rig::Result<GpuRigPack> packGpuRig(const rig::Rig& rig, const rig::RigRuntime& runtime);
/// Fills pack.compareInfluenceWords / compareGradients from `reference` (rig::buildRuntime with rig::kReferenceFormat,
/// of the same rig). Off the GUI thread, like packGpuRig.
rig::Result<bool> packComparison(const rig::Rig& rig, const rig::RigRuntime& reference, GpuRigPack& pack);

class GpuDeformer {
public:
    static constexpr int kGroupSize = 128; ///< local_size_x of every compute shader in shaders/compute/deform_*.comp

    /// `rhi` must support QRhi::Compute and outlive the deformer.
    explicit GpuDeformer(QRhi* rhi);
    ~GpuDeformer();
    GpuDeformer(const GpuDeformer&) = delete;
    GpuDeformer& operator=(const GpuDeformer&) = delete;

    /// Builds and queues the upload of the static data of `rig` with its runtime data (rig::buildRuntime: K, influence
    /// streams, jacobian weight gradients, smoothing groups). Both are referenced, not copied: they must stay alive and
    /// unchanged until the next setRig() or the deformer's destruction. Resets the pose to the rest pose (the
    /// rig's default morph weights). Returns false with a message when the data is inconsistent or a GPU resource
    /// cannot be created; the deformer is then empty (record() does nothing).
    bool setRig(const rig::Rig& rig, const rig::RigRuntime& runtime, std::string* error = nullptr);
    /// The same with the rig already packed (packGpuRig, typically on another thread): creates the buffers and queues
    /// their uploads, nothing per vertex.
    bool setRig(const rig::Rig& rig, const rig::RigRuntime& runtime, std::shared_ptr<const GpuRigPack> pack,
                std::string* error = nullptr);
    /// Palettes (rig::evaluateWorld/evaluatePalettes + rig::buildJointFrames, on the CPU) and morph weights.
    void setPose(const rig::ResolvedPose& pose);
    void setMethod(rig::Method method);
    /// Only morphNormals is used (threads is a CPU setting).
    void setSettings(const rig::DeformSettings& settings);

    /// True when record() has something to do.
    bool isDirty() const { return m_ready && (m_dirty != 0 || m_pending != nullptr); }
    /// Records the uploads and the compute passes that the changes since the last record() need.
    /// Call inside a frame (beginFrame / beginOffscreenFrame), outside any pass.
    void record(QRhiCommandBuffer* cb);
    /// Records only the pending uploads (static data, palette, morph weights, parameters), so that a following
    /// record() contains the compute passes alone (benchmarks time that part).
    void recordUploads(QRhiCommandBuffer* cb);

    bool isReady() const { return m_ready; }
    QRhi* rhi() const { return m_rhi; }
    const rig::Rig* rig() const { return m_rig; }
    const rig::RigRuntime* runtime() const { return m_runtime; }
    rig::Method method() const { return m_method; }
    bool morphNormals() const { return m_morphNormals; }

    size_t vertexCount() const { return m_vertexCount; }
    size_t triangleCount() const { return m_triangleCount; }
    const std::vector<GpuMeshRange>& meshes() const { return m_meshes; }

    // The CPU side of the current pose.
    const std::vector<glm::mat4>& world() const { return m_world; }          ///< per node
    const std::vector<rig::JointFrame>& palette() const { return m_frames; } ///< global palette

    QRhiBuffer* positionsBuffer() const { return m_positions; }
    QRhiBuffer* normalsBuffer() const { return m_normals; }
    QRhiBuffer* tangentsBuffer() const { return m_tangents; }
    QRhiBuffer* referenceNormalsBuffer() const { return m_refNormals; }
    QRhiBuffer* referenceTangentsBuffer() const { return m_refTangents; }
    QRhiBuffer* errorsBuffer() const { return m_errors; }
    QRhiBuffer* flagsBuffer() const { return m_flags; }
    QRhiBuffer* boundsBuffer() const { return m_bounds; }
    QRhiBuffer* indexBuffer() const { return m_indices; }
    QRhiBuffer* rawInfluencesBuffer() const { return m_rawInfluences; }
    /// vec4 × N: (scale, volume) of linear blending in this pose (rig/analysis/diagnosis/blend_scale.h; scale -1
    /// where undefined), and (distance, fraction of the limb radius) between the dual-quaternion and the linear
    /// positions (dq_displacement.h; fraction -1 where undefined), whatever the method.
    QRhiBuffer* blendScaleBuffer() const { return m_blendScale; }
    /// The morphed bind-space attributes: [0, N) positions (w = 1), [N, 2N) normals, [2N, 3N) tangents; vec4 each.
    QRhiBuffer* morphedBuffer() const { return m_morphed; }
    /// vec4 × N: (|p − p_ref|, angle between n and n_ref in degrees or -1, 0, 0): the method's position and normal under
    /// the runtime format against the same method under the float reference (rig/analysis/format_difference.h), when
    /// the pack has a comparison and it is enabled; unwritten otherwise. Rebuilt's angle is -1.
    QRhiBuffer* formatDifferenceBuffer() const { return m_formatDiff; }
    /// Whether the rig was packed with the float reference's streams (GpuRigPack::hasComparison).
    bool hasComparison() const { return m_hasComparison; }
    /// Runs the comparison's two passes (the skin pass with the reference's streams, then the difference) with every
    /// skin from now on, or stops them (they cost a second skin pass).
    void setComparisonEnabled(bool on);
    bool comparisonEnabled() const { return m_compareEnabled; }

    /// Tests only: caps the workgroups per dispatch dimension below the device limit (0 = the device's), so that the
    /// two-dimensional dispatch of large rigs is exercised on small ones. Takes effect at the next setRig().
    void setDispatchLimitForTesting(int maxGroupsPerDimension) { m_dispatchLimit = maxGroupsPerDimension; }

    /// GPU-side sizes of the static data (for logs and benchmarks).
    size_t staticBytes() const { return m_staticBytes; }

private:
    enum Dirty : unsigned {
        DirtyParams = 1,
        DirtyMorph = 2,
        DirtySkin = 4,
        DirtyPositions = 8, ///< faces, reference, bounds
        DirtyErrors = 16,
        DirtyBlendScale = 32, ///< the palette changed: the candy-wrapper measure
        DirtyCompare = 64,    ///< the format difference (with the comparison enabled)
        DirtyAll = 127,
    };
    using PaletteSource = GpuRigPack::PaletteSource;

    void release();
    QRhiResourceUpdateBatch* pendingBatch();
    QRhiResourceUpdateBatch* takeUploads();
    void uploadPalette();
    bool buildPipelines(std::string* error);

    QRhi* m_rhi = nullptr;
    const rig::Rig* m_rig = nullptr;
    const rig::RigRuntime* m_runtime = nullptr;
    bool m_ready = false;
    unsigned m_dirty = 0;
    rig::Method m_method = rig::Method::Linear;
    bool m_morphNormals = true;
    QRhiResourceUpdateBatch* m_pending = nullptr;

    size_t m_vertexCount = 0, m_triangleCount = 0, m_groupCount = 0, m_morphTargetCount = 0;
    size_t m_staticBytes = 0;
    int m_dispatchLimit = 0;
    int m_groupsX = 1, m_groupsY = 1, m_triangleGroupsX = 1, m_triangleGroupsY = 1;
    std::vector<GpuMeshRange> m_meshes;
    std::vector<PaletteSource> m_paletteSources;

    // Per-pose CPU data, sized by setRig (setPose allocates nothing per vertex).
    std::vector<glm::mat4> m_world;
    std::vector<uint8_t> m_atBind;
    std::vector<std::vector<glm::mat4>> m_skinPalettes;
    std::vector<glm::mat4> m_matrices;
    std::vector<rig::JointFrame> m_frames;
    std::vector<float> m_jointStaging;  ///< packed palette, 52 floats (13 vec4) per entry
    std::vector<float> m_morphWeights;  ///< global, per target
    std::vector<uint32_t> m_params;     ///< the Params uniform block

    // GPU resources (owned).
    QRhiBuffer* m_paramsBuffer = nullptr;
    QRhiBuffer* m_layout = nullptr;
    QRhiBuffer* m_rest = nullptr;
    QRhiBuffer* m_uvs = nullptr;
    QRhiBuffer* m_targets = nullptr;
    QRhiBuffer* m_weights = nullptr;
    QRhiBuffer* m_deltas = nullptr;
    QRhiBuffer* m_paletteBuffer = nullptr;
    QRhiBuffer* m_influences = nullptr;
    QRhiBuffer* m_gradients = nullptr;
    QRhiBuffer* m_triangles = nullptr;
    QRhiBuffer* m_adjacency = nullptr;
    QRhiBuffer* m_morphed = nullptr;
    QRhiBuffer* m_faces = nullptr;
    QRhiBuffer* m_partials = nullptr;
    QRhiBuffer* m_positions = nullptr;
    QRhiBuffer* m_normals = nullptr;
    QRhiBuffer* m_tangents = nullptr;
    QRhiBuffer* m_refNormals = nullptr;
    QRhiBuffer* m_refTangents = nullptr;
    QRhiBuffer* m_errors = nullptr;
    QRhiBuffer* m_bindReference = nullptr;
    QRhiBuffer* m_rawInfluences = nullptr;
    QRhiBuffer* m_flags = nullptr;
    QRhiBuffer* m_bounds = nullptr;
    QRhiBuffer* m_indices = nullptr;
    QRhiBuffer* m_blendScale = nullptr;
    // The format difference's: the reference's streams and its skin pass's outputs (created with a comparison).
    QRhiBuffer* m_compareParams = nullptr;
    QRhiBuffer* m_compareInfluences = nullptr;
    QRhiBuffer* m_compareGradients = nullptr;
    QRhiBuffer* m_comparePositions = nullptr;
    QRhiBuffer* m_compareNormals = nullptr;
    QRhiBuffer* m_compareTangents = nullptr;
    QRhiBuffer* m_compareFlags = nullptr;
    QRhiBuffer* m_formatDiff = nullptr;
    bool m_hasComparison = false;
    bool m_compareEnabled = false;
    std::vector<uint32_t> m_compareParamWords; ///< m_params with the reference's K

    enum Pass { PassMorph, PassSkin, PassFaces, PassReference, PassBoundsPartial, PassBoundsReduce, PassErrors, PassBlendScale,
                PassCompareSkin, PassFormatDiff, PassCount };
    QRhiShaderResourceBindings* m_srb[PassCount] = {};
    QRhiComputePipeline* m_pipeline[PassCount] = {};
};

} // namespace viewer
