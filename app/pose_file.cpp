#include "pose_file.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace app {

namespace {

rig::Error err(const QString& file, const QString& what)
{
    return rig::fail((file + QStringLiteral(": ") + what).toStdString());
}

bool readVec3(const QJsonValue& v, glm::vec3& out)
{
    if (!v.isArray())
        return false;
    const QJsonArray a = v.toArray();
    if (a.size() != 3)
        return false;
    for (int i = 0; i < 3; ++i) {
        if (!a[i].isDouble() || !std::isfinite(a[i].toDouble()))
            return false;
        out[i] = float(a[i].toDouble());
    }
    return true;
}

} // namespace

rig::Result<rig::Pose> parsePose(const QByteArray& json, const QString& name)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError)
        return err(name, QStringLiteral("not valid JSON (%1 at offset %2)").arg(pe.errorString()).arg(pe.offset));
    if (!doc.isObject())
        return err(name, QStringLiteral("the top level must be an object"));
    const QJsonObject root = doc.object();
    rig::Pose pose;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const QString key = it.key();
        if (key == QLatin1String("joints")) {
            if (!it.value().isObject())
                return err(name, QStringLiteral("\"joints\" must be an object keyed by joint name"));
            const QJsonObject joints = it.value().toObject();
            for (auto j = joints.begin(); j != joints.end(); ++j) {
                if (!j.value().isObject())
                    return err(name, QStringLiteral("joints.%1 must be an object").arg(j.key()));
                rig::JointEdit edit;
                const QJsonObject o = j.value().toObject();
                for (auto f = o.begin(); f != o.end(); ++f) {
                    glm::vec3* target = f.key() == QLatin1String("rotate")      ? &edit.rotateDeg
                                        : f.key() == QLatin1String("translate") ? &edit.translate
                                        : f.key() == QLatin1String("scale")     ? &edit.scale
                                                                                : nullptr;
                    if (!target)
                        return err(name, QStringLiteral("joints.%1: unknown key \"%2\" (expected rotate, translate, scale)")
                                             .arg(j.key(), f.key()));
                    if (!readVec3(f.value(), *target))
                        return err(name, QStringLiteral("joints.%1.%2 must be an array of 3 finite numbers")
                                             .arg(j.key(), f.key()));
                }
                pose.joints[j.key().toStdString()] = edit;
            }
        } else if (key == QLatin1String("morphs")) {
            if (!it.value().isObject())
                return err(name, QStringLiteral("\"morphs\" must be an object keyed by target name"));
            const QJsonObject morphs = it.value().toObject();
            for (auto m = morphs.begin(); m != morphs.end(); ++m) {
                if (!m.value().isDouble() || !std::isfinite(m.value().toDouble()))
                    return err(name, QStringLiteral("morphs.%1 must be a finite number").arg(m.key()));
                pose.morphs[m.key().toStdString()] = float(m.value().toDouble());
            }
        } else if (key == QLatin1String("clip")) {
            if (it.value().isString())
                pose.clip = it.value().toString().toStdString();
            else if (it.value().isDouble() && it.value().toDouble() >= 0 && std::floor(it.value().toDouble()) == it.value().toDouble())
                pose.clip = std::to_string((long long)it.value().toDouble());
            else
                return err(name, QStringLiteral("\"clip\" must be a clip name or a non-negative integer index"));
        } else if (key == QLatin1String("time")) {
            if (!it.value().isDouble() || !std::isfinite(it.value().toDouble()))
                return err(name, QStringLiteral("\"time\" must be a finite number of seconds"));
            pose.time = it.value().toDouble();
        } else {
            return err(name, QStringLiteral("unknown key \"%1\" (expected joints, morphs, clip, time)").arg(key));
        }
    }
    return pose;
}

rig::Result<rig::Pose> readPoseFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return err(path, f.exists() ? QStringLiteral("cannot be read (%1)").arg(f.errorString()) : QStringLiteral("no such file"));
    if (f.size() > (qint64(64) << 20))
        return err(path, QStringLiteral("is larger than 64 MiB: not a pose file"));
    return parsePose(f.readAll(), path);
}

} // namespace app
