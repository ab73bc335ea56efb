#include "rig/io/pose_file.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "rig/io/json/json.h"
#include "rig/io/json/json_write.h"

namespace rig {

namespace {

constexpr size_t kMaxPoseFileBytes = size_t(64) << 20;

bool readVec3(const json::Value& v, glm::vec3& out)
{
    if (!v.isArray() || v.size() != 3)
        return false;
    for (size_t i = 0; i < 3; ++i) {
        if (!v[i].isNumber() || !std::isfinite(v[i].number()))
            return false;
        out[int(i)] = float(v[i].number());
    }
    return true;
}

/// A name from the file, quoted for a message (valid UTF-8, so the message is too).
std::string quoted(std::string_view s) { return json::validUtf8(s); }

} // namespace

Result<Pose> parsePose(std::string_view text, const std::string& name)
{
    auto err = [&](const std::string& what) { return fail(name + ": " + what); };
    json::ParseLimits limits;
    limits.maxBytes = kMaxPoseFileBytes;
    limits.maxDepth = 16;
    Result<json::Document> parsed = json::parse(text, limits);
    if (!parsed)
        return err("not valid JSON (" + parsed.error() + ")");
    const json::Value root = parsed->root();
    if (!root.isObject())
        return err("the top level must be an object");
    Pose pose;
    for (size_t k = 0; k < root.size(); ++k) {
        const std::string_view key = root.keyAt(k);
        const json::Value value = root.valueAt(k);
        if (key == "joints") {
            if (!value.isObject())
                return err("\"joints\" must be an object keyed by joint name");
            for (size_t j = 0; j < value.size(); ++j) {
                const std::string joint(value.keyAt(j));
                const json::Value o = value.valueAt(j);
                if (!o.isObject())
                    return err("joints." + quoted(joint) + " must be an object");
                JointEdit edit;
                for (size_t f = 0; f < o.size(); ++f) {
                    const std::string_view field = o.keyAt(f);
                    if (field == "rotate_order") {
                        const json::Value v = o.valueAt(f);
                        if (!v.isString() || !parseRotateOrder(v.string(), edit.rotateOrder))
                            return err("joints." + quoted(joint) +
                                       ".rotate_order must be one of \"xyz\", \"yzx\", \"zxy\", \"xzy\", \"yxz\", "
                                       "\"zyx\"");
                        continue;
                    }
                    glm::vec3* target = field == "rotate"      ? &edit.rotateDeg
                                        : field == "translate" ? &edit.translate
                                        : field == "scale"     ? &edit.scale
                                                               : nullptr;
                    if (!target)
                        return err("joints." + quoted(joint) + ": unknown key \"" + quoted(field) +
                                   "\" (expected rotate, rotate_order, translate, scale)");
                    if (!readVec3(o.valueAt(f), *target))
                        return err("joints." + quoted(joint) + "." + std::string(field) +
                                   " must be an array of 3 finite numbers");
                }
                pose.joints[joint] = edit;
            }
        } else if (key == "morphs") {
            if (!value.isObject())
                return err("\"morphs\" must be an object keyed by target name");
            for (size_t m = 0; m < value.size(); ++m) {
                const std::string target(value.keyAt(m));
                const json::Value w = value.valueAt(m);
                if (!w.isNumber() || !std::isfinite(w.number()))
                    return err("morphs." + quoted(target) + " must be a finite number");
                pose.morphs[target] = float(w.number());
            }
        } else if (key == "clip") {
            uint64_t index = 0;
            if (value.isString())
                pose.clip = std::string(value.string());
            else if (value.asIndex(index, uint64_t(1) << 31))
                pose.clip = std::to_string(index);
            else
                return err("\"clip\" must be a clip name or a non-negative integer index");
        } else if (key == "base") {
            if (value.string() == "rest" && value.isString())
                pose.base = PoseBase::Rest;
            else if (value.string() == "bind" && value.isString())
                pose.base = PoseBase::Bind;
            else
                return err("\"base\" must be \"rest\" or \"bind\"");
        } else if (key == "time") {
            if (!value.isNumber() || !std::isfinite(value.number()))
                return err("\"time\" must be a finite number of seconds");
            pose.time = value.number();
        } else {
            return err("unknown key \"" + quoted(key) + "\" (expected base, joints, morphs, clip, time)");
        }
    }
    return pose;
}

Result<Pose> readPoseFile(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return fail(path + ": " + (std::ifstream(path).good() ? "cannot be read" : "no such file or not readable"));
    f.seekg(0, std::ios::end);
    const std::streamoff size = f.tellg();
    if (size < 0)
        return fail(path + ": cannot be read");
    if (size_t(size) > kMaxPoseFileBytes)
        return fail(path + ": is larger than 64 MiB: not a pose file");
    f.seekg(0);
    std::string text(size_t(size), '\0');
    if (!f.read(text.data(), size))
        return fail(path + ": cannot be read");
    return parsePose(text, path);
}

std::string writePoseJson(const Pose& pose)
{
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
    w.SetIndent(' ', 2);
    w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
    auto vec3 = [&](const char* key, const glm::vec3& v) {
        w.Key(key);
        w.StartArray();
        for (int i = 0; i < 3; ++i)
            json::writeFloat(w, v[i]);
        w.EndArray();
    };
    w.StartObject();
    if (pose.base == PoseBase::Bind) {
        w.Key("base");
        w.String("bind");
    }
    if (!pose.clip.empty()) {
        w.Key("clip");
        json::writeText(w, pose.clip);
        w.Key("time");
        w.Double(pose.time);
    }
    bool anyJoint = false;
    for (const auto& [name, edit] : pose.joints)
        anyJoint = anyJoint || !edit.isIdentity();
    if (anyJoint) {
        w.Key("joints");
        w.StartObject();
        for (const auto& [name, edit] : pose.joints) {
            if (edit.isIdentity())
                continue;
            json::writeText(w, name);
            w.StartObject();
            if (edit.rotateDeg != glm::vec3(0.0f))
                vec3("rotate", edit.rotateDeg);
            if (edit.rotateOrder != RotateOrder::XYZ) {
                w.Key("rotate_order");
                w.String(rotateOrderName(edit.rotateOrder));
            }
            if (edit.translate != glm::vec3(0.0f))
                vec3("translate", edit.translate);
            if (edit.scale != glm::vec3(1.0f))
                vec3("scale", edit.scale);
            w.EndObject();
        }
        w.EndObject();
    }
    if (!pose.morphs.empty()) {
        w.Key("morphs");
        w.StartObject();
        for (const auto& [name, weight] : pose.morphs) {
            json::writeText(w, name);
            json::writeFloat(w, weight);
        }
        w.EndObject();
    }
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

Result<void> writePoseFile(const std::string& path, const Pose& pose)
{
    const std::string text = writePoseJson(pose);
    const std::string temp = path + ".tmp";
    {
        std::ofstream f(temp, std::ios::binary | std::ios::trunc);
        if (!f)
            return fail(path + ": cannot be written (" + std::strerror(errno) + ")");
        f.write(text.data(), std::streamsize(text.size()));
        f.flush();
        if (!f) {
            f.close();
            std::remove(temp.c_str());
            return fail(path + ": writing failed (" + std::strerror(errno) + ")");
        }
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(temp.c_str());
        return fail(path + ": cannot be written (" + why + ")");
    }
    return {};
}

} // namespace rig
