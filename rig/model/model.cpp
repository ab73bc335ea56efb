#include "rig/model/model.h"

#include <algorithm>
#include <charconv>

#include <glm/gtc/matrix_transform.hpp>

namespace rig {

glm::mat4 Transform::matrix() const
{
    const glm::mat3 r = glm::mat3_cast(rotation);
    glm::mat4 m(1.0f);
    m[0] = glm::vec4(r[0] * scale.x, 0.0f);
    m[1] = glm::vec4(r[1] * scale.y, 0.0f);
    m[2] = glm::vec4(r[2] * scale.z, 0.0f);
    m[3] = glm::vec4(translation, 1.0f);
    return m;
}

int Skeleton::find(const std::string& name) const
{
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].name == name)
            return int(i);
    return -1;
}

size_t Rig::vertexCount() const
{
    size_t n = 0;
    for (const Mesh& m : meshes)
        n += m.vertexCount();
    return n;
}

size_t Rig::triangleCount() const
{
    size_t n = 0;
    for (const Mesh& m : meshes)
        n += m.triangleCount();
    return n;
}

size_t Rig::jointCount() const
{
    std::vector<char> used(skeleton.nodes.size(), 0);
    for (const Skin& s : skins)
        for (int j : s.joints)
            if (j >= 0 && size_t(j) < used.size())
                used[size_t(j)] = 1;
    return size_t(std::count(used.begin(), used.end(), 1));
}

size_t Rig::morphTargetCount() const
{
    size_t n = 0;
    for (const Mesh& m : meshes)
        n += m.morphTargets.size();
    return n;
}

int Rig::findClip(const std::string& nameOrIndex) const
{
    for (size_t i = 0; i < clips.size(); ++i)
        if (clips[i].name == nameOrIndex)
            return int(i);
    int index = -1;
    const char* b = nameOrIndex.data();
    const char* e = b + nameOrIndex.size();
    auto [p, ec] = std::from_chars(b, e, index);
    if (ec == std::errc() && p == e && index >= 0 && size_t(index) < clips.size())
        return index;
    return -1;
}

} // namespace rig
