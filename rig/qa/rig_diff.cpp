#include "rig/qa/rig_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>

#include <rapidjson/writer.h>

#include "rig/deform/deform.h"
#include "rig/io/json/json_write.h"

namespace rig {

const char* vertexMatchName(VertexMatch m)
{
    switch (m) {
    case VertexMatch::Auto: return "auto";
    case VertexMatch::Order: return "order";
    case VertexMatch::Position: return "position";
    }
    return "auto";
}

bool RigDiff::differs() const
{
    return !jointsAdded.empty() || !jointsRemoved.empty() || !jointsReparented.empty() || !jointsMoved.empty() ||
           unmatchedA > 0 || unmatchedB > 0 || movedVertices > 0 || weightChangedVertices > 0 || errorChanges > 0;
}

namespace {

/// Joint names shared by both versions get one id.
struct NameIds {
    std::unordered_map<std::string, int> ids;
    std::vector<std::string> names;
    int of(const std::string& n)
    {
        auto [it, added] = ids.emplace(n, int(names.size()));
        if (added)
            names.push_back(n);
        return it->second;
    }
};

struct WeightEntry {
    int joint; ///< name id
    float weight;
};

/// Each global vertex's usable raw influences (finite, > 0, joint in range), merged per joint and divided by their sum:
/// CSR over the rig's vertices in mesh order. An unskinned mesh's vertices follow its node at weight 1.
struct NormalisedWeights {
    std::vector<uint32_t> offsets{0};
    std::vector<WeightEntry> entries;
    std::vector<glm::vec3> positions; ///< bind positions, global
};

NormalisedWeights normalisedWeights(const Rig& r, NameIds& names)
{
    NormalisedWeights out;
    out.offsets.reserve(r.vertexCount() + 1);
    out.positions.reserve(r.vertexCount());
    std::vector<WeightEntry> scratch;
    for (const Mesh& mesh : r.meshes) {
        std::vector<int> jointIds;
        if (mesh.isSkinned())
            for (int node : r.skins[size_t(mesh.skin)].joints)
                jointIds.push_back(node >= 0 && size_t(node) < r.skeleton.nodes.size() ? names.of(r.skeleton.nodes[size_t(node)].name) : -1);
        const int rigidId = !mesh.isSkinned() && mesh.node >= 0 && size_t(mesh.node) < r.skeleton.nodes.size()
                                ? names.of(r.skeleton.nodes[size_t(mesh.node)].name)
                                : -1;
        const bool csr = mesh.influenceOffsets.size() == mesh.vertexCount() + 1;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            out.positions.push_back(mesh.positions[v]);
            scratch.clear();
            if (mesh.isSkinned() && csr) {
                for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1] && i < mesh.influences.size(); ++i) {
                    const Influence in = mesh.influences[i];
                    if (!(in.weight > 0.0f) || !std::isfinite(in.weight) || in.joint >= jointIds.size() || jointIds[in.joint] < 0)
                        continue;
                    auto it = std::find_if(scratch.begin(), scratch.end(), [&](const WeightEntry& e) { return e.joint == jointIds[in.joint]; });
                    if (it == scratch.end())
                        scratch.push_back({jointIds[in.joint], in.weight});
                    else
                        it->weight += in.weight;
                }
            } else if (!mesh.isSkinned() && rigidId >= 0) {
                scratch.push_back({rigidId, 1.0f});
            }
            double sum = 0.0;
            for (const WeightEntry& e : scratch)
                sum += double(e.weight);
            if (sum > 0.0 && std::isfinite(sum))
                for (const WeightEntry& e : scratch)
                    out.entries.push_back({e.joint, float(double(e.weight) / sum)});
            out.offsets.push_back(uint32_t(out.entries.size()));
        }
    }
    return out;
}

float bindDiagonal(const Rig& r)
{
    Bounds b;
    for (const Mesh& m : r.meshes)
        b.add(pointBounds(m.positions));
    return float(b.diagonal());
}

/// For each B vertex, the nearest A vertex within `tol` (-1: none); a hash grid of cell `tol` over A. Among A vertices
/// at the same distance (a UV seam's copies), the one of B's own index, else the one `tieCost(i, j)` rates lowest,
/// else the lowest index.
template <typename TieCost>
std::vector<int64_t> matchByPosition(const std::vector<glm::vec3>& a, const std::vector<glm::vec3>& b, float tol,
                                     TieCost tieCost)
{
    auto cellOf = [tol](const glm::vec3& p, int64_t c[3]) {
        for (int k = 0; k < 3; ++k)
            c[k] = int64_t(std::clamp(std::floor(double(p[k]) / double(tol)), -1e15, 1e15));
    };
    auto key = [](int64_t x, int64_t y, int64_t z) {
        return uint64_t(x) * 0x9E3779B97F4A7C15ull ^ uint64_t(y) * 0xC2B2AE3D27D4EB4Full ^ uint64_t(z) * 0x165667B19E3779F9ull;
    };
    std::unordered_map<uint64_t, std::vector<uint32_t>> grid;
    grid.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i].x + a[i].y + a[i].z))
            continue;
        int64_t c[3];
        cellOf(a[i], c);
        grid[key(c[0], c[1], c[2])].push_back(uint32_t(i));
    }
    std::vector<int64_t> out(b.size(), -1);
    const float tol2 = tol * tol;
    for (size_t j = 0; j < b.size(); ++j) {
        if (!std::isfinite(b[j].x + b[j].y + b[j].z))
            continue;
        int64_t c[3];
        cellOf(b[j], c);
        float best = tol2, bestTie = 0.0f;
        for (int64_t dx = -1; dx <= 1; ++dx)
            for (int64_t dy = -1; dy <= 1; ++dy)
                for (int64_t dz = -1; dz <= 1; ++dz) {
                    auto it = grid.find(key(c[0] + dx, c[1] + dy, c[2] + dz));
                    if (it == grid.end())
                        continue;
                    for (uint32_t i : it->second) {
                        const glm::vec3 d = a[i] - b[j];
                        const float d2 = glm::dot(d, d);
                        if (d2 > best)
                            continue;
                        bool take = d2 < best || out[j] < 0;
                        float tie = 0.0f;
                        if (!take && size_t(out[j]) != j) {
                            tie = tieCost(i, j);
                            take = i == j || tie < bestTie || (tie == bestTie && int64_t(i) < out[j]);
                        }
                        if (take) {
                            best = d2;
                            out[j] = i;
                            bestTie = size_t(i) == j ? 0.0f : tieCost(i, j);
                        }
                    }
                }
    }
    return out;
}

/// Skin joints by name: bind position and parent joint name.
struct JointInfo {
    glm::vec3 bind{0.0f};
    std::string parent;
};

std::map<std::string, JointInfo> skinJoints(const Rig& r)
{
    std::vector<char> isJoint(r.skeleton.nodes.size(), 0);
    for (const Skin& s : r.skins)
        for (int j : s.joints)
            if (j >= 0 && size_t(j) < isJoint.size())
                isJoint[size_t(j)] = 1;
    std::vector<glm::mat4> world;
    ResolvedPose bind;
    bind.base = PoseBase::Bind;
    bind.morphWeights.resize(r.meshes.size());
    for (size_t m = 0; m < r.meshes.size(); ++m)
        bind.morphWeights[m].assign(r.meshes[m].morphTargets.size(), 0.0f);
    evaluateWorld(r, bind, world);
    std::map<std::string, JointInfo> out;
    for (size_t n = 0; n < r.skeleton.nodes.size(); ++n) {
        if (!isJoint[n])
            continue;
        JointInfo info;
        info.bind = n < world.size() ? glm::vec3(world[n][3]) : glm::vec3(0.0f);
        int p = r.skeleton.nodes[n].parent;
        for (size_t guard = 0; p >= 0 && !isJoint[size_t(p)] && guard <= r.skeleton.nodes.size(); ++guard)
            p = r.skeleton.nodes[size_t(p)].parent;
        info.parent = p >= 0 ? r.skeleton.nodes[size_t(p)].name : std::string();
        out.emplace(r.skeleton.nodes[n].name, info); // the first node of a name
    }
    return out;
}

Result<void> validateOptions(const RigDiffOptions& o)
{
    if (!(o.weightThreshold >= 0.0f) || !std::isfinite(o.weightThreshold))
        return fail("the weight threshold must be a finite number, 0 or more");
    if (!(o.errorThresholdDeg >= 0.0) || !std::isfinite(o.errorThresholdDeg))
        return fail("the error threshold must be a finite number of degrees, 0 or more");
    if (!std::isfinite(o.tolerance))
        return fail("the tolerance must be finite");
    if (o.influences != 4 && o.influences != 8)
        return fail("the influences must be 4 or 8");
    return {};
}

} // namespace

Result<RigDiff> diffWeights(const Rig& a, const Rig& b, const RigDiffOptions& options)
{
    if (auto ok = validateOptions(options); !ok)
        return fail(ok.error());
    RigDiff d;
    d.verticesA = a.vertexCount();
    d.verticesB = b.vertexCount();

    // Joints.
    const auto ja = skinJoints(a), jb = skinJoints(b);
    const float diagonal = bindDiagonal(a);
    d.tolerance = options.tolerance > 0.0f ? options.tolerance : std::max(1e-4f * diagonal, 1e-7f);
    for (const auto& [name, info] : jb)
        if (!ja.count(name))
            d.jointsAdded.push_back(name);
    for (const auto& [name, info] : ja) {
        auto it = jb.find(name);
        if (it == jb.end()) {
            d.jointsRemoved.push_back(name);
            continue;
        }
        JointDiff jd{name, info.parent, it->second.parent, glm::length(it->second.bind - info.bind)};
        if (jd.parentA != jd.parentB)
            d.jointsReparented.push_back(jd);
        if (jd.bindMoved > d.tolerance)
            d.jointsMoved.push_back(jd);
    }

    // Vertices.
    NameIds names;
    const NormalisedWeights wa = normalisedWeights(a, names), wb = normalisedWeights(b, names);
    bool sameCounts = a.meshes.size() == b.meshes.size();
    for (size_t m = 0; sameCounts && m < a.meshes.size(); ++m)
        sameCounts = a.meshes[m].vertexCount() == b.meshes[m].vertexCount();
    d.match = options.match == VertexMatch::Auto ? (sameCounts ? VertexMatch::Order : VertexMatch::Position) : options.match;
    if (d.match == VertexMatch::Order && !sameCounts)
        return fail("vertex order matching needs the same meshes with the same vertex counts (A has " +
                    std::to_string(d.verticesA) + " vertices in " + std::to_string(a.meshes.size()) + " meshes, B " +
                    std::to_string(d.verticesB) + " in " + std::to_string(b.meshes.size()) + "): use position matching");
    auto weightIn = [](const NormalisedWeights& w, size_t vertex, int joint) {
        for (uint32_t i = w.offsets[vertex]; i < w.offsets[vertex + 1]; ++i)
            if (w.entries[i].joint == joint)
                return w.entries[i].weight;
        return 0.0f;
    };
    // max over joints of |w_x(j) − w_y(j)|: x's joints, then y's that x lacks.
    auto weightChange = [&](const NormalisedWeights& x, size_t vx, const NormalisedWeights& y, size_t vy) {
        float worst = 0.0f;
        for (uint32_t i = x.offsets[vx]; i < x.offsets[vx + 1]; ++i)
            worst = std::max(worst, std::fabs(x.entries[i].weight - weightIn(y, vy, x.entries[i].joint)));
        for (uint32_t i = y.offsets[vy]; i < y.offsets[vy + 1]; ++i)
            if (weightIn(x, vx, y.entries[i].joint) == 0.0f)
                worst = std::max(worst, y.entries[i].weight);
        return worst;
    };
    std::vector<int64_t> partner(d.verticesB, -1);
    if (d.match == VertexMatch::Order) {
        for (size_t v = 0; v < d.verticesB; ++v)
            partner[v] = int64_t(v);
    } else {
        partner = matchByPosition(wa.positions, wb.positions, d.tolerance,
                                  [&](size_t i, size_t j) { return weightChange(wa, i, wb, j); });
        // An A vertex is unmatched when no B vertex lies within the tolerance (a seam copy no B vertex chose still
        // has its place in B).
        const auto back = matchByPosition(wb.positions, wa.positions, d.tolerance, [](size_t, size_t) { return 0.0f; });
        d.unmatchedA = size_t(std::count(back.begin(), back.end(), int64_t(-1)));
    }

    std::vector<size_t> jointVertices(names.names.size(), 0);
    std::vector<float> jointMax(names.names.size(), 0.0f);
    d.weightChange.assign(d.verticesB, -1.0f);
    for (size_t v = 0; v < d.verticesB; ++v) {
        const int64_t p = partner[v];
        if (p < 0)
            continue;
        ++d.matched;
        if (d.match == VertexMatch::Order) {
            const float move = glm::length(wb.positions[v] - wa.positions[size_t(p)]);
            if (move > d.tolerance || !std::isfinite(move)) {
                ++d.movedVertices;
                if (std::isfinite(move))
                    d.maxVertexMove = std::max(d.maxVertexMove, move);
            }
        }
        // |w_A(j) − w_B(j)| over the union of both vertices' joints.
        float worst = 0.0f;
        auto consider = [&](int joint) {
            const float delta = std::fabs(weightIn(wa, size_t(p), joint) - weightIn(wb, v, joint));
            worst = std::max(worst, delta);
            if (delta > options.weightThreshold) {
                ++jointVertices[size_t(joint)];
                jointMax[size_t(joint)] = std::max(jointMax[size_t(joint)], delta);
            }
        };
        for (uint32_t i = wb.offsets[v]; i < wb.offsets[v + 1]; ++i)
            consider(wb.entries[i].joint);
        for (uint32_t i = wa.offsets[size_t(p)]; i < wa.offsets[size_t(p) + 1]; ++i)
            if (weightIn(wb, v, wa.entries[i].joint) == 0.0f) // not counted above
                consider(wa.entries[i].joint);
        d.weightChange[v] = worst;
        if (worst > options.weightThreshold)
            ++d.weightChangedVertices;
        if (worst > d.maxWeightChange) {
            d.maxWeightChange = worst;
            d.maxWeightChangeVertex = int64_t(v);
        }
    }
    d.unmatchedB = d.verticesB - d.matched;
    for (size_t j = 0; j < names.names.size(); ++j)
        if (jointVertices[j] > 0)
            d.jointChanges.push_back({names.names[j], jointVertices[j], jointMax[j]});
    std::stable_sort(d.jointChanges.begin(), d.jointChanges.end(),
                     [](const JointWeightChange& x, const JointWeightChange& y) { return x.vertices > y.vertices; });
    return d;
}

Result<RigDiff> diffRigs(const Rig& a, const Rig& b, const RigDiffOptions& options)
{
    auto weights = diffWeights(a, b, options);
    if (!weights)
        return weights;
    RigDiff d = std::move(weights.value());

    // The poses: rest, each clip both versions have (by name), then the caller's.
    struct Frames {
        std::string name;
        ResolvedPose a, b;
        std::vector<float> times; ///< empty: one frame, as resolved
    };
    std::vector<Frames> sets;
    auto resolved = [](const Rig& r, const Pose& p, const std::string& name, const char* version) -> Result<ResolvedPose> {
        auto rp = resolvePose(r, p);
        if (!rp)
            return fail("pose '" + name + "' in " + version + ": " + rp.error());
        return rp;
    };
    {
        auto ra = resolved(a, Pose{}, "rest", "A"), rb = resolved(b, Pose{}, "rest", "B");
        if (!ra || !rb)
            return fail(!ra ? ra.error() : rb.error());
        sets.push_back({"rest", ra.value(), rb.value(), {}});
        for (size_t c = 0; c < a.clips.size(); ++c) {
            auto it = std::find_if(b.clips.begin(), b.clips.end(), [&](const Clip& x) { return x.name == a.clips[c].name; });
            if (it == b.clips.end())
                continue;
            Frames f{"clip:" + a.clips[c].name, ra.value(), rb.value(), clipKeyTimes(a.clips[c])};
            f.a.clip = int(c);
            f.b.clip = int(it - b.clips.begin());
            if (f.times.size() > options.maxClipFrames && options.maxClipFrames > 0) {
                std::vector<float> even;
                for (size_t i = 0; i < options.maxClipFrames; ++i)
                    even.push_back(f.times[i * (f.times.size() - 1) / std::max<size_t>(options.maxClipFrames - 1, 1)]);
                f.times = std::move(even);
            }
            if (f.times.empty())
                f.times.push_back(0.0f);
            sets.push_back(std::move(f));
        }
    }
    for (const auto& [name, pose] : options.poses) {
        auto ra = resolved(a, pose, name, "A"), rb = resolved(b, pose, name, "B");
        if (!ra || !rb)
            return fail(!ra ? ra.error() : rb.error());
        sets.push_back({name, ra.value(), rb.value(), {}});
    }

    const RigRuntime rta = buildRuntime(a, options.influences), rtb = buildRuntime(b, options.influences);
    std::vector<Method> methods;
    for (Method m : allMethods())
        if (m != Method::Rebuilt)
            methods.push_back(m);
    Evaluation ea, eb;
    for (Frames& f : sets) {
        PoseDiff pd;
        pd.name = f.name;
        for (Method m : methods)
            pd.methods.push_back({m});
        const size_t frames = std::max<size_t>(f.times.size(), 1);
        pd.frames = frames;
        for (size_t i = 0; i < frames; ++i) {
            if (!f.times.empty())
                f.a.time = f.b.time = f.times[i];
            evaluate(a, rta, f.a, methods, {}, ea);
            evaluate(b, rtb, f.b, methods, {}, eb);
            for (MethodErrorDiff& md : pd.methods) {
                const MethodStats& sa = ea.stats[size_t(md.method)];
                const MethodStats& sb = eb.stats[size_t(md.method)];
                md.p95A = std::max(md.p95A, sa.skinningNormal.p95);
                md.p95B = std::max(md.p95B, sb.skinningNormal.p95);
                md.maxA = std::max(md.maxA, sa.normal.max);
                md.maxB = std::max(md.maxB, sb.normal.max);
            }
        }
        for (const MethodErrorDiff& md : pd.methods)
            if (std::fabs(md.p95B - md.p95A) > options.errorThresholdDeg)
                ++d.errorChanges;
        d.poses.push_back(std::move(pd));
    }
    return d;
}

void writeRigDiffJson(std::ostream& out, const RigDiff& d, const std::string& nameA, const std::string& nameB,
                      const RigDiffOptions& options)
{
    json::OStream stream(out);
    rapidjson::Writer<json::OStream> w(stream);
    auto key = [&](const char* k) { w.Key(k); };
    auto num = [&](double v) { json::writeFloat(w, float(v)); };
    auto count = [&](size_t v) { w.Uint64(v); };
    auto names = [&](const std::vector<std::string>& v) {
        w.StartArray();
        for (const std::string& s : v)
            json::writeText(w, s);
        w.EndArray();
    };
    w.StartObject();
    key("rigscope_diff"), w.Int(1);
    key("a"), json::writeText(w, nameA);
    key("b"), json::writeText(w, nameB);
    key("differs"), w.Bool(d.differs());
    key("match"), w.String(vertexMatchName(d.match));
    key("tolerance"), num(d.tolerance);
    key("joints");
    w.StartObject();
    key("added"), names(d.jointsAdded);
    key("removed"), names(d.jointsRemoved);
    key("reparented");
    w.StartArray();
    for (const JointDiff& j : d.jointsReparented) {
        w.StartObject();
        key("joint"), json::writeText(w, j.name);
        key("parent_a"), json::writeText(w, j.parentA);
        key("parent_b"), json::writeText(w, j.parentB);
        w.EndObject();
    }
    w.EndArray();
    key("moved");
    w.StartArray();
    for (const JointDiff& j : d.jointsMoved) {
        w.StartObject();
        key("joint"), json::writeText(w, j.name);
        key("distance"), num(j.bindMoved);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    key("vertices");
    w.StartObject();
    key("a"), count(d.verticesA);
    key("b"), count(d.verticesB);
    key("matched"), count(d.matched);
    key("unmatched_a"), count(d.unmatchedA);
    key("unmatched_b"), count(d.unmatchedB);
    key("moved"), count(d.movedVertices);
    key("max_move"), num(d.maxVertexMove);
    w.EndObject();
    key("weights");
    w.StartObject();
    key("threshold"), num(options.weightThreshold);
    key("changed_vertices"), count(d.weightChangedVertices);
    key("max_change"), num(d.maxWeightChange);
    key("max_change_vertex");
    d.maxWeightChangeVertex >= 0 ? w.Int64(d.maxWeightChangeVertex) : w.Null();
    key("joints");
    w.StartArray();
    for (const JointWeightChange& j : d.jointChanges) {
        w.StartObject();
        key("joint"), json::writeText(w, j.joint);
        key("vertices"), count(j.vertices);
        key("max_change"), num(j.maxChange);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    key("errors");
    w.StartObject();
    key("threshold_deg"), num(options.errorThresholdDeg);
    key("changes"), count(d.errorChanges);
    key("poses");
    w.StartArray();
    for (const PoseDiff& p : d.poses) {
        w.StartObject();
        key("pose"), json::writeText(w, p.name);
        key("frames"), count(p.frames);
        key("methods");
        w.StartObject();
        for (const MethodErrorDiff& m : p.methods) {
            const std::string_view id = methodId(m.method);
            w.Key(id.data(), rapidjson::SizeType(id.size()));
            w.StartObject();
            key("skinning_p95_a"), num(m.p95A);
            key("skinning_p95_b"), num(m.p95B);
            key("max_a"), num(m.maxA);
            key("max_b"), num(m.maxB);
            w.EndObject();
        }
        w.EndObject();
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.EndObject();
    stream.Put('\n');
    stream.Flush();
}

void printRigDiff(std::ostream& out, const RigDiff& d, const std::string& nameA, const std::string& nameB,
                  const RigDiffOptions& options)
{
    char line[320];
    out << "A: " << nameA << "\nB: " << nameB << "\n";
    auto list = [&](const char* what, const std::vector<std::string>& v) {
        if (v.empty())
            return;
        out << what << " (" << v.size() << "):";
        for (size_t i = 0; i < v.size() && i < 12; ++i)
            out << " " << v[i];
        if (v.size() > 12)
            out << " …";
        out << "\n";
    };
    list("joints added", d.jointsAdded);
    list("joints removed", d.jointsRemoved);
    for (const JointDiff& j : d.jointsReparented)
        out << "joint " << j.name << " reparented: " << (j.parentA.empty() ? "(root)" : j.parentA) << " -> "
            << (j.parentB.empty() ? "(root)" : j.parentB) << "\n";
    for (const JointDiff& j : d.jointsMoved) {
        std::snprintf(line, sizeof line, "joint %s moved at the bind pose by %.4g\n", j.name.c_str(), double(j.bindMoved));
        out << line;
    }
    std::snprintf(line, sizeof line, "vertices: A %zu, B %zu, matched by %s %zu (unmatched: A %zu, B %zu)", d.verticesA,
                  d.verticesB, vertexMatchName(d.match), d.matched, d.unmatchedA, d.unmatchedB);
    out << line;
    if (d.movedVertices) {
        std::snprintf(line, sizeof line, "; %zu moved at the bind pose (up to %.4g)", d.movedVertices, double(d.maxVertexMove));
        out << line;
    }
    out << "\n";
    std::snprintf(line, sizeof line, "weights: %zu vertices changed by more than %g (max %.4f", d.weightChangedVertices,
                  double(options.weightThreshold), double(d.maxWeightChange));
    out << line;
    if (d.maxWeightChangeVertex >= 0)
        out << " at B vertex " << d.maxWeightChangeVertex;
    out << ")\n";
    for (size_t i = 0; i < d.jointChanges.size() && i < 10; ++i) {
        std::snprintf(line, sizeof line, "  %-32s %8zu vertices, max %.4f\n", d.jointChanges[i].joint.c_str(),
                      d.jointChanges[i].vertices, double(d.jointChanges[i].maxChange));
        out << line;
    }
    std::snprintf(line, sizeof line, "\n%-28s %-24s %12s %12s %10s\n", "pose", "method", "A p95°", "B p95°", "change");
    out << line;
    for (const PoseDiff& p : d.poses)
        for (const MethodErrorDiff& m : p.methods) {
            const double change = m.p95B - m.p95A;
            std::snprintf(line, sizeof line, "%-28s %-24s %12.3f %12.3f %+10.3f%s\n", p.name.c_str(),
                          std::string(methodId(m.method)).c_str(), m.p95A, m.p95B, change,
                          std::fabs(change) > options.errorThresholdDeg ? "  *" : "");
            out << line;
        }
    out << (d.differs() ? "\nthe rigs differ\n" : "\nno difference beyond the thresholds\n");
}

} // namespace rig
