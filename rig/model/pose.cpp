#include "rig/model/pose.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <glm/gtc/matrix_transform.hpp>

namespace rig {

bool JointEdit::changesTransform() const
{
    return rotateDeg != glm::vec3(0.0f) || translate != glm::vec3(0.0f) || scale != glm::vec3(1.0f);
}

bool JointEdit::isIdentity() const { return !changesTransform() && rotateOrder == RotateOrder::XYZ; }

namespace {

constexpr const char* kOrderNames[kRotateOrderCount] = {"xyz", "yzx", "zxy", "xzy", "yxz", "zyx"};

} // namespace

const char* rotateOrderName(RotateOrder order) { return kOrderNames[int(order)]; }

bool parseRotateOrder(std::string_view name, RotateOrder& out)
{
    if (name.size() != 3)
        return false;
    for (int o = 0; o < kRotateOrderCount; ++o) {
        bool same = true;
        for (size_t i = 0; i < 3; ++i)
            same = same && (name[i] == kOrderNames[o][i] || name[i] == kOrderNames[o][i] - ('a' - 'A'));
        if (same) {
            out = RotateOrder(o);
            return true;
        }
    }
    return false;
}

int rotateOrderAxis(RotateOrder order, int step) { return kOrderNames[int(order)][step] - 'x'; }

glm::mat3 eulerRotation(const glm::vec3& degrees, RotateOrder order)
{
    static const glm::vec3 kAxes[3] = {glm::vec3(1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(0, 0, 1)};
    glm::mat4 r(1.0f);
    for (int step = 0; step < 3; ++step) {
        const int a = rotateOrderAxis(order, step);
        r = glm::rotate(glm::mat4(1.0f), radians(degrees[a]), kAxes[a]) * r; // a later rotation multiplies on the left
    }
    return glm::mat3(r);
}

glm::mat3 eulerXYZ(const glm::vec3& degrees) { return eulerRotation(degrees, RotateOrder::XYZ); }

namespace {

// Finds the key interval of t: returns k with times[k] <= t < times[k+1], and the fraction s in [0,1].
size_t locate(const std::vector<float>& times, float t, float& s)
{
    const size_t n = times.size();
    if (n == 1 || !(t > times.front())) {
        s = 0.0f;
        return 0;
    }
    if (t >= times.back()) {
        s = 1.0f;
        return n - 2;
    }
    const size_t hi = size_t(std::upper_bound(times.begin(), times.end(), t) - times.begin());
    const size_t k = hi - 1;
    const float span = times[k + 1] - times[k];
    s = span > 0.0f ? (t - times[k]) / span : 0.0f;
    return k;
}

template <typename T>
T hermite(const T& v0, const T& out0, const T& in1, const T& v1, float s, float span)
{
    const float s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * v0 + (s3 - 2 * s2 + s) * span * out0 + (-2 * s3 + 3 * s2) * v1 + (s3 - s2) * span * in1;
}

template <typename T, typename Lerp>
T sampleGeneric(const Track<T>& track, float t, Lerp lerp)
{
    float s = 0.0f;
    const size_t k = locate(track.times, t, s);
    if (track.times.size() == 1) {
        return track.interpolation == Interpolation::CubicSpline ? track.values[1] : track.values[0];
    }
    switch (track.interpolation) {
    case Interpolation::Step:
        return track.values[s >= 1.0f ? k + 1 : k];
    case Interpolation::Linear:
        return lerp(track.values[k], track.values[k + 1], s);
    case Interpolation::CubicSpline: {
        const float span = track.times[k + 1] - track.times[k];
        return hermite(track.values[3 * k + 1], track.values[3 * k + 2], track.values[3 * k + 3],
                       track.values[3 * k + 4], s, span);
    }
    }
    return track.values[0];
}

} // namespace

glm::vec3 sampleTrack(const Track<glm::vec3>& track, float t)
{
    return sampleGeneric(track, t, [](const glm::vec3& a, const glm::vec3& b, float s) { return glm::mix(a, b, s); });
}

glm::quat sampleTrack(const Track<glm::quat>& track, float t)
{
    glm::quat q = sampleGeneric(track, t, [](const glm::quat& a, const glm::quat& b, float s) {
        return glm::slerp(a, glm::dot(a, b) < 0.0f ? -b : b, s);
    });
    const float len = glm::length(q);
    return len > 0.0f && std::isfinite(len) ? q / len : glm::quat(1, 0, 0, 0);
}

void sampleMorphChannel(const MorphChannel& ch, size_t targets, float t, float* out)
{
    float s = 0.0f;
    const size_t k = locate(ch.times, t, s);
    const bool cubic = ch.interpolation == Interpolation::CubicSpline;
    const size_t stride = cubic ? 3 * targets : targets;
    auto at = [&](size_t key, size_t part, size_t target) { return ch.weights[key * stride + part * targets + target]; };
    for (size_t i = 0; i < targets; ++i) {
        if (ch.times.size() == 1) {
            out[i] = at(0, cubic ? 1 : 0, i);
            continue;
        }
        switch (ch.interpolation) {
        case Interpolation::Step:
            out[i] = at(s >= 1.0f ? k + 1 : k, 0, i);
            break;
        case Interpolation::Linear:
            out[i] = at(k, 0, i) + (at(k + 1, 0, i) - at(k, 0, i)) * s;
            break;
        case Interpolation::CubicSpline:
            out[i] = hermite(at(k, 1, i), at(k, 2, i), at(k + 1, 0, i), at(k + 1, 1, i), s,
                             ch.times[k + 1] - ch.times[k]);
            break;
        }
    }
}

namespace {

template <typename T>
bool trackOk(const Track<T>& tr)
{
    if (tr.times.empty())
        return true;
    const size_t need = tr.times.size() * (tr.interpolation == Interpolation::CubicSpline ? 3 : 1);
    if (tr.values.size() != need)
        return false;
    for (size_t i = 0; i < tr.times.size(); ++i) {
        if (!std::isfinite(tr.times[i]) || (i > 0 && tr.times[i] < tr.times[i - 1]))
            return false;
    }
    return true;
}

} // namespace

Result<void> validateClip(const Clip& clip, const Rig& rig)
{
    for (const JointChannel& ch : clip.joints) {
        if (ch.node < 0 || size_t(ch.node) >= rig.skeleton.nodes.size())
            return fail("clip '" + clip.name + "' animates a node that does not exist");
        if (!trackOk(ch.translation) || !trackOk(ch.rotation) || !trackOk(ch.scale))
            return fail("clip '" + clip.name + "' has a malformed track on node '" + rig.skeleton.nodes[size_t(ch.node)].name + "'");
    }
    for (const MorphChannel& ch : clip.morphs) {
        if (ch.mesh < 0 || size_t(ch.mesh) >= rig.meshes.size())
            return fail("clip '" + clip.name + "' animates the morph weights of a mesh that does not exist");
        const size_t targets = rig.meshes[size_t(ch.mesh)].morphTargets.size();
        const size_t need = ch.times.size() * targets * (ch.interpolation == Interpolation::CubicSpline ? 3 : 1);
        if (ch.weights.size() != need)
            return fail("clip '" + clip.name + "' has a malformed morph weight track");
        for (size_t i = 0; i < ch.times.size(); ++i)
            if (!std::isfinite(ch.times[i]) || (i > 0 && ch.times[i] < ch.times[i - 1]))
                return fail("clip '" + clip.name + "' has unsorted morph key times");
    }
    return {};
}

std::vector<float> clipKeyTimes(const Clip& clip)
{
    std::vector<float> t;
    auto add = [&t](const std::vector<float>& times) {
        for (float x : times)
            if (std::isfinite(x))
                t.push_back(x);
    };
    for (const JointChannel& c : clip.joints) {
        add(c.translation.times);
        add(c.rotation.times);
        add(c.scale.times);
    }
    for (const MorphChannel& c : clip.morphs)
        add(c.times);
    std::sort(t.begin(), t.end());
    std::vector<float> out;
    for (float x : t)
        if (out.empty() || x - out.back() > 1e-6f)
            out.push_back(x);
    return out;
}

Result<ResolvedPose> resolvePose(const Rig& rig, const Pose& pose)
{
    ResolvedPose out;
    out.base = pose.base;
    if (!pose.clip.empty()) {
        out.clip = rig.findClip(pose.clip);
        if (out.clip < 0)
            return fail("clip '" + pose.clip + "' not found (the file has " + std::to_string(rig.clips.size()) + " clips)");
        if (auto v = validateClip(rig.clips[size_t(out.clip)], rig); !v)
            return fail(v.error());
    }
    if (!std::isfinite(pose.time))
        return fail("time is not a finite number");
    out.time = float(pose.time);

    for (const auto& [name, edit] : pose.joints) {
        const int node = rig.skeleton.find(name);
        if (node < 0)
            return fail("joint '" + name + "' not found");
        for (int i = 0; i < 3; ++i)
            if (!std::isfinite(edit.rotateDeg[i]) || !std::isfinite(edit.translate[i]) || !std::isfinite(edit.scale[i]))
                return fail("joint '" + name + "' has a non-finite value");
        out.joints.emplace_back(node, edit);
    }

    out.morphWeights.resize(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        out.morphWeights[m] = mesh.defaultMorphWeights;
        out.morphWeights[m].resize(mesh.morphTargets.size(), 0.0f);
    }
    if (out.clip >= 0) {
        for (const MorphChannel& ch : rig.clips[size_t(out.clip)].morphs) {
            if (ch.times.empty())
                continue;
            std::vector<float>& w = out.morphWeights[size_t(ch.mesh)];
            sampleMorphChannel(ch, w.size(), out.time, w.data());
        }
    }
    for (const auto& [name, weight] : pose.morphs) {
        if (!std::isfinite(weight))
            return fail("morph target '" + name + "' has a non-finite weight");
        bool found = false;
        for (size_t m = 0; m < rig.meshes.size(); ++m)
            for (size_t t = 0; t < rig.meshes[m].morphTargets.size(); ++t)
                if (rig.meshes[m].morphTargets[t].name == name) {
                    out.morphWeights[m][t] = weight;
                    found = true;
                }
        if (!found)
            return fail("morph target '" + name + "' not found");
    }
    return out;
}

namespace {

/// Per node, the inverse bind matrix its bind world comes from (the first skin listing it), or null for non-joints.
std::vector<const glm::mat4*> bindSources(const Rig& rig)
{
    std::vector<const glm::mat4*> source(rig.skeleton.nodes.size(), nullptr);
    for (const Skin& skin : rig.skins)
        for (size_t j = 0; j < skin.joints.size() && j < skin.inverseBind.size(); ++j) {
            const int node = skin.joints[j];
            if (node >= 0 && size_t(node) < source.size() && !source[size_t(node)])
                source[size_t(node)] = &skin.inverseBind[j];
        }
    return source;
}

glm::mat4 inverseInDouble(const glm::mat4& m) { return glm::mat4(glm::inverse(glm::dmat4(m))); }

} // namespace

void evaluateWorld(const Rig& rig, const ResolvedPose& pose, std::vector<glm::mat4>& world, std::vector<uint8_t>* atBind)
{
    const std::vector<Node>& nodes = rig.skeleton.nodes;
    const size_t n = nodes.size();
    const bool bind = pose.base == PoseBase::Bind;

    // Base local transforms: the rest matrices, or (bind) the bind worlds relative to their parents.
    std::vector<glm::mat4> baseWorld;
    std::vector<glm::mat4> local(n);
    std::vector<Transform> trs(n);
    std::vector<char> isJoint(n, 0);
    if (bind) {
        const std::vector<const glm::mat4*> source = bindSources(rig);
        baseWorld.resize(n);
        for (size_t i = 0; i < n; ++i) {
            const int p = nodes[i].parent;
            const glm::mat4 parent = p >= 0 ? baseWorld[size_t(p)] : glm::mat4(1.0f);
            isJoint[i] = source[i] != nullptr;
            baseWorld[i] = isJoint[i] ? inverseInDouble(*source[i]) : parent * nodes[i].restMatrix;
            local[i] = isJoint[i] ? glm::mat4(glm::inverse(glm::dmat4(parent)) * glm::dmat4(baseWorld[i]))
                                  : nodes[i].restMatrix;
            bool shear = false;
            trs[i] = isJoint[i] ? decomposeTransform(local[i], shear) : nodes[i].rest;
        }
    } else {
        for (size_t i = 0; i < n; ++i) {
            local[i] = nodes[i].restMatrix;
            trs[i] = nodes[i].rest;
        }
    }
    // A base local that TRS cannot reproduce: a sheared rest matrix, or a bind-relative matrix with shear.
    auto sheared = [&](size_t i) {
        if (!bind || !isJoint[i])
            return nodes[i].restHasShear;
        bool shear = false;
        decomposeTransform(local[i], shear);
        return shear;
    };

    // The clip's channels replace parts of the TRS.
    std::vector<char> useTrs(n, 0);
    if (pose.clip >= 0) {
        for (const JointChannel& ch : rig.clips[size_t(pose.clip)].joints) {
            Transform& t = trs[size_t(ch.node)];
            if (!ch.translation.empty())
                t.translation = sampleTrack(ch.translation, pose.time);
            if (!ch.rotation.empty())
                t.rotation = sampleTrack(ch.rotation, pose.time);
            if (!ch.scale.empty())
                t.scale = sampleTrack(ch.scale, pose.time);
            useTrs[size_t(ch.node)] = 1;
        }
    }
    for (size_t i = 0; i < n; ++i)
        if (useTrs[i])
            local[i] = trs[i].matrix();

    std::vector<char> modified(useTrs);
    for (const auto& [node, edit] : pose.joints) {
        if (!edit.changesTransform())
            continue;
        Transform t = trs[size_t(node)];
        const size_t i = size_t(node);
        modified[i] = 1;
        // Edits compose with the (base or sampled) TRS. A sheared base matrix keeps its 3x3 and gains the edit on the right.
        const glm::mat3 editRot = eulerRotation(edit.rotateDeg, edit.rotateOrder);
        if (!useTrs[i] && sheared(i)) {
            glm::mat4 m = local[i];
            const glm::mat3 r = glm::mat3(m) * editRot * glm::mat3(glm::scale(glm::mat4(1.0f), edit.scale));
            m[0] = glm::vec4(r[0], 0.0f);
            m[1] = glm::vec4(r[1], 0.0f);
            m[2] = glm::vec4(r[2], 0.0f);
            m[3] = glm::vec4(glm::vec3(m[3]) + edit.translate, 1.0f);
            local[i] = m;
            continue;
        }
        t.rotation = glm::normalize(t.rotation * glm::quat_cast(editRot));
        t.translation += edit.translate;
        t.scale *= edit.scale;
        local[i] = t.matrix();
    }

    world.resize(n);
    if (atBind)
        atBind->assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const int p = nodes[i].parent;
        if (bind) {
            // Untouched here and above: the base world itself, exactly.
            if (p >= 0 && modified[size_t(p)])
                modified[i] = 1;
            if (!modified[i]) {
                world[i] = baseWorld[i];
                if (atBind)
                    (*atBind)[i] = isJoint[i];
                continue;
            }
        }
        world[i] = p >= 0 ? world[size_t(p)] * local[i] : local[i];
    }
}

void evaluatePalettes(const Rig& rig, const std::vector<glm::mat4>& world, std::vector<std::vector<glm::mat4>>& palettes,
                      const std::vector<uint8_t>* atBind)
{
    std::vector<const glm::mat4*> source;
    if (atBind)
        source = bindSources(rig);
    palettes.resize(rig.skins.size());
    for (size_t s = 0; s < rig.skins.size(); ++s) {
        const Skin& skin = rig.skins[s];
        palettes[s].resize(skin.joints.size());
        for (size_t j = 0; j < skin.joints.size(); ++j) {
            const int node = skin.joints[j];
            const bool valid = node >= 0 && size_t(node) < world.size();
            if (valid && atBind && size_t(node) < atBind->size() && (*atBind)[size_t(node)] &&
                (source[size_t(node)] == &skin.inverseBind[j] ||
                 std::memcmp(source[size_t(node)], &skin.inverseBind[j], sizeof(glm::mat4)) == 0)) {
                palettes[s][j] = glm::mat4(1.0f); // at its bind pose: exactly the identity
                continue;
            }
            const glm::mat4 w = valid ? world[size_t(node)] : glm::mat4(1.0f);
            palettes[s][j] = w * skin.inverseBind[j];
        }
    }
}

} // namespace rig
