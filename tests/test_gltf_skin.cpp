// Tests of the raw glTF skinning reader (rig/gltf_skin.h) and its JSON parser (rig/json.h).
#include "testutil.h"

class TestGltfSkin : public QObject {
    Q_OBJECT
private slots:
    void placeholder() {}
};

QTEST_GUILESS_MAIN(TestGltfSkin)
#include "test_gltf_skin.moc"
