// The skeleton: every aiNode, depth-first, parents first, without recursion.
#include "rig/io/assimp/converter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "rig/analysis/reference/reference.h"
#include "rig/model/math.h"

namespace rig::assimp_import {

Result<void> Converter::buildSkeleton()
{
    struct Pending {
        const aiNode* node;
        int parent;
        size_t depth;
    };
    std::vector<Pending> stack;
    stack.push_back({m_scene.mRootNode, -1, 0});
    std::unordered_map<const aiNode*, int> seen;
    m_meshNode.assign(m_scene.mNumMeshes, -1);
    std::vector<Node>& nodes = m_rig.skeleton.nodes;
    size_t badMeshRefs = 0;

    while (!stack.empty()) {
        const Pending p = stack.back();
        stack.pop_back();
        if (!p.node) {
            note(Severity::Error, "a node of the hierarchy is null; skipped");
            continue;
        }
        if (!seen.emplace(p.node, int(nodes.size())).second) {
            note(Severity::Error, "node '" + str(p.node->mName) +
                                      "' appears twice in the hierarchy (a cycle or a shared child); the repeat is skipped");
            continue;
        }
        if (p.depth > kMaxDepth)
            return failWith("node hierarchy deeper than " + std::to_string(kMaxDepth) + " levels");
        const size_t children = (p.node->mChildren ? p.node->mNumChildren : 0);
        if (nodes.size() + 1 + stack.size() + children > kMaxNodes)
            return failWith("more than " + std::to_string(kMaxNodes) + " nodes");

        const int index = int(nodes.size());
        Node node;
        node.name = str(p.node->mName);
        m_bytes.add(sizeof(Node) + sizeof(void*) * 4 + node.name.size()); // the node, its lookups, its name
        if ((index & 1023) == 0)
            if (auto r = checkEstimate(); !r.ok())
                return r;
        node.parent = p.parent;
        node.restMatrix = toGlm(p.node->mTransformation);
        node.rest = decomposeTransform(node.restMatrix, node.restHasShear);
        if (!isFinite(node.restMatrix))
            note(Severity::Warning, "node '" + node.name + "': non-finite rest matrix (kept as authored)");
        nodes.push_back(std::move(node));
        m_aiNodes.push_back(p.node);

        if (p.node->mMeshes)
            for (unsigned i = 0; i < p.node->mNumMeshes; ++i) {
                const unsigned m = p.node->mMeshes[i];
                if (m >= m_scene.mNumMeshes) {
                    ++badMeshRefs;
                    continue;
                }
                if (m_meshNode[m] < 0)
                    m_meshNode[m] = index;
            }
        if (p.node->mNumChildren > 0 && !p.node->mChildren)
            note(Severity::Error, "node '" + nodes.back().name + "' declares children but has none");
        // Reverse push: the first child is visited first.
        for (size_t c = children; c-- > 0;)
            stack.push_back({p.node->mChildren[c], index, p.depth + 1});
    }
    if (badMeshRefs)
        note(Severity::Error, std::to_string(badMeshRefs) + " node mesh references are out of range; ignored");
    if (auto r = checkEstimate(); !r.ok())
        return r;

    // Name lookup (first node in depth-first order wins, like Skeleton::find); duplicates are ambiguous for
    // name-based bone and channel mapping.
    m_nodesByName.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i)
        m_nodesByName[nodes[i].name].push_back(int(i));
    for (unsigned m = 0; m < m_scene.mNumMeshes; ++m)
        if (const aiMesh* mesh = meshAt(m))
            m_meshesByName[str(mesh->mName)].push_back(m);
    return {};
}

int Converter::findNode(const std::string& name) const
{
    auto it = m_nodesByName.find(name);
    return it == m_nodesByName.end() ? -1 : it->second.front();
}

void Converter::noteIfAmbiguous(const std::string& name, const std::string& what)
{
    auto it = m_nodesByName.find(name);
    if (it == m_nodesByName.end() || it->second.size() < 2 || !m_reportedAmbiguous.insert(name).second)
        return;
    note(Severity::Warning, what + " '" + name + "' matches " + std::to_string(it->second.size()) +
                                " nodes of that name; the first one (depth-first) is used");
}

} // namespace rig::assimp_import
