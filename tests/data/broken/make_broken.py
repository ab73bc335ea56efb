#!/usr/bin/env python3
"""Writes the hand-made broken-rig corpus next to this script (Python standard library only).

Every file is small and self-contained (glTF buffers are base64 data URIs). tests/io/test_hostile.cpp holds the exact
outcome expected of each one; re-run this script after changing it and commit its outputs:

    python3 tests/data/broken/make_broken.py

The base rig ("strip"): a flat strip of 2 x 4 vertices in the z = 0 plane along +x (x = 0, 1, 2, 3; y = 0, 1), six
counter-clockwise triangles (normal +z), per-vertex NORMAL (0, 0, 1), TEXCOORD_0 = (x / 3, y), and a skin of two joints:
node 1 "root" at the origin and its child node 2 "tip" at x = 1.5. Vertices with x <= 1 follow "root" only, the others
"tip" only, except the cases below. Node 0 "strip" holds the mesh and the skin.
"""

import base64
import json
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963

# 2 rows x 4 columns, row-major: vertex i = (x = i % 4, y = i // 4).
POSITIONS = [(float(i % 4), float(i // 4), 0.0) for i in range(8)]
NORMALS = [(0.0, 0.0, 1.0)] * 8
UVS = [(p[0] / 3.0, p[1]) for p in POSITIONS]
# Quads (c, c + 1, c + 5, c + 4) as two counter-clockwise triangles each (seen from +z).
INDICES = []
for c in range(3):
    a, b, d, e = c, c + 1, c + 5, c + 4
    INDICES += [a, b, d, a, d, e]
JOINTS = [(0, 0, 0, 0) if POSITIONS[v][0] <= 1.0 else (1, 0, 0, 0) for v in range(8)]
WEIGHTS = [(1.0, 0.0, 0.0, 0.0)] * 8

IDENTITY = [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0]


def translation(x, y, z):
    """Column-major 4x4 translation (glTF order)."""
    return [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, x, y, z, 1.0]


class Gltf:
    """Builds one glTF 2.0 document with a single buffer."""

    def __init__(self):
        self.blob = bytearray()
        self.doc = {
            "asset": {"version": "2.0", "generator": "RigScope tests/data/broken/make_broken.py"},
            "scene": 0,
            "scenes": [{"nodes": [0, 1]}],
            "nodes": [],
            "meshes": [],
            "skins": [],
            "accessors": [],
            "bufferViews": [],
            "buffers": [],
        }

    def view(self, data, target=None):
        while len(self.blob) % 4:
            self.blob.append(0)
        view = {"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(data)}
        if target:
            view["target"] = target
        self.blob += data
        self.doc["bufferViews"].append(view)
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, fmt, ctype, atype, rows, target=None, minmax=False, count=None):
        data = b"".join(struct.pack("<" + fmt, *(r if isinstance(r, (tuple, list)) else (r,))) for r in rows)
        acc = {"bufferView": self.view(data, target), "componentType": ctype, "count": len(rows) if count is None else count,
               "type": atype}
        if minmax:
            acc["min"] = [min(r[i] for r in rows) for i in range(len(rows[0]))]
            acc["max"] = [max(r[i] for r in rows) for i in range(len(rows[0]))]
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def finish(self, declared_length=None):
        uri = "data:application/octet-stream;base64," + base64.b64encode(bytes(self.blob)).decode("ascii")
        self.doc["buffers"] = [{"byteLength": len(self.blob) if declared_length is None else declared_length, "uri": uri}]
        for key in ("meshes", "skins"):
            if not self.doc[key]:
                del self.doc[key]
        # allow_nan=False: the JSON itself never holds NaN; non-finite values live in the binary buffer.
        return json.dumps(self.doc, indent=1, allow_nan=False).encode("utf-8") + b"\n"


def strip(positions=POSITIONS, normals=NORMALS, uvs=UVS, indices=INDICES, joints=JOINTS, weights=WEIGHTS,
          inverse_binds=None, joint_fmt="4B", tip_scale=None, skinned=True):
    """The base rig with any part replaced. Returns the Gltf (not finished) so that cases can edit it further."""
    g = Gltf()
    attrs = {
        "POSITION": g.accessor("3f", FLOAT, "VEC3", positions, ARRAY_BUFFER, minmax=True),
        "NORMAL": g.accessor("3f", FLOAT, "VEC3", normals, ARRAY_BUFFER),
        "TEXCOORD_0": g.accessor("2f", FLOAT, "VEC2", uvs, ARRAY_BUFFER),
    }
    if skinned:
        attrs["JOINTS_0"] = g.accessor(joint_fmt, UBYTE if joint_fmt == "4B" else USHORT, "VEC4", joints, ARRAY_BUFFER)
        attrs["WEIGHTS_0"] = g.accessor("4f", FLOAT, "VEC4", weights, ARRAY_BUFFER)
    idx = g.accessor("H", USHORT, "SCALAR", indices, ELEMENT_ARRAY_BUFFER)
    g.doc["meshes"].append({"name": "strip", "primitives": [{"attributes": attrs, "indices": idx, "mode": 4}]})
    node = {"name": "strip", "mesh": 0}
    if skinned:
        ibm = inverse_binds if inverse_binds is not None else [IDENTITY, translation(-1.5, 0.0, 0.0)]
        g.doc["skins"].append({"name": "strip_skin", "joints": [1, 2],
                               "inverseBindMatrices": g.accessor("16f", FLOAT, "MAT4", ibm)})
        node["skin"] = 0
    tip = {"name": "tip", "translation": [1.5, 0.0, 0.0]}
    if tip_scale is not None:
        tip["scale"] = tip_scale
    g.doc["nodes"] = [node, {"name": "root", "children": [2]}, tip]
    return g


# ---------------------------------------------------------------------------------------------------------------------
# The cases. Each returns the file bytes.

def nan_weights():
    # Vertices 1 and 6: a NaN weight on joint "tip" next to a clean 1.0 on "root".
    nan = struct.unpack("<f", struct.pack("<I", 0x7FC00000))[0]
    w = list(WEIGHTS)
    j = list(JOINTS)
    for v in (1, 6):
        j[v] = (0, 1, 0, 0)
        w[v] = (1.0, nan, 0.0, 0.0)
    return strip(joints=j, weights=w).finish()


def negative_weights():
    # Vertices 1, 2 and 5: (1.25 on root, -0.25 on tip): the pair sums to one.
    w, j = list(WEIGHTS), list(JOINTS)
    for v in (1, 2, 5):
        j[v] = (0, 1, 0, 0)
        w[v] = (1.25, -0.25, 0.0, 0.0)
    return strip(joints=j, weights=w).finish()


def joint_out_of_range():
    # Vertices 3 and 7: half of their weight on joint index 9 (the skin has 2 joints), half on "tip".
    w, j = list(WEIGHTS), list(JOINTS)
    for v in (3, 7):
        j[v] = (1, 9, 0, 0)
        w[v] = (0.5, 0.5, 0.0, 0.0)
    return strip(joints=j, weights=w).finish()


def all_zero_weights():
    return strip(weights=[(0.0, 0.0, 0.0, 0.0)] * 8).finish()


def vertex_without_influence():
    # Vertex 4 alone has all-zero weights.
    w = list(WEIGHTS)
    w[4] = (0.0, 0.0, 0.0, 0.0)
    return strip(weights=w).finish()


def tiny_weights():
    # Vertex 2: its only weight is the smallest positive float (a denormal, 1.4e-45): valid (> 0, finite), so the runtime
    # normalises it to 1.
    w = list(WEIGHTS)
    w[2] = (struct.unpack("<f", struct.pack("<I", 1))[0], 0.0, 0.0, 0.0)
    return strip(weights=w).finish()


def huge_weights():
    # Vertex 5: four influences of 3e38 each (their float sum overflows to infinity).
    w, j = list(WEIGHTS), list(JOINTS)
    j[5] = (0, 1, 0, 1)
    w[5] = (3e38, 3e38, 3e38, 3e38)
    return strip(joints=j, weights=w).finish()


def zero_area_triangles():
    # Column 3 collapsed onto column 2 (vertex 3 onto vertex 2, vertex 7 onto vertex 6): both triangles of the last
    # quad, (2, 3, 7) and (2, 7, 6), have zero area.
    p = list(POSITIONS)
    p[3] = (2.0, 0.0, 0.0)
    p[7] = (2.0, 1.0, 0.0)
    return strip(positions=p).finish()


def identical_uvs():
    return strip(uvs=[(0.5, 0.5)] * 8).finish()


def singular_inverse_bind():
    # The inverse bind matrix of "tip" has a zero column (x scaled by 0).
    m = translation(-1.5, 0.0, 0.0)
    m[0] = 0.0
    return strip(inverse_binds=[IDENTITY, m]).finish()


def mirrored_joint():
    # "tip" is mirrored in its rest pose (scale x = -1) and its inverse bind matrix is the inverse of that world matrix
    # (det -1), so the rest pose is still the bind pose.
    m = [-1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 1.5, 0.0, 0.0, 1.0]  # inverse of T(1.5) * S(-1, 1, 1)
    return strip(inverse_binds=[IDENTITY, m], tip_scale=[-1.0, 1.0, 1.0]).finish()


def skin_without_inverse_binds():
    # Valid glTF: a skin may omit inverseBindMatrices (they are then identities). Assimp 5.2.4 dereferences the missing
    # accessor.
    g = strip()
    del g.doc["skins"][0]["inverseBindMatrices"]
    return g.finish()


def node_cycle():
    # "root" -> "tip" -> "root": the node hierarchy is a cycle.
    g = strip()
    g.doc["nodes"][2]["children"] = [1]
    return g.finish()


def missing_child():
    # "tip" names child node 7, which does not exist.
    g = strip()
    g.doc["nodes"][2]["children"] = [7]
    return g.finish()


def truncated_buffer():
    # The buffer declares 64 bytes more than its data URI holds.
    g = strip()
    return g.finish(declared_length=len(g.blob) + 64)


def not_a_model():
    return (b"RigScope broken corpus: this is a text file with a .gltf name, not a model.\n"
            b"Nothing here is JSON.\n")


def empty_mesh():
    # A mesh whose only primitive has zero vertices (accessor counts 0) and no indices.
    g = Gltf()
    pos = g.accessor("3f", FLOAT, "VEC3", [], ARRAY_BUFFER, count=0)
    g.doc["meshes"].append({"name": "empty", "primitives": [{"attributes": {"POSITION": pos}, "mode": 4}]})
    g.doc["nodes"] = [{"name": "empty", "mesh": 0}]
    g.doc["scenes"] = [{"nodes": [0]}]
    return g.finish()


def huge_count():
    # The POSITION accessor declares 2^31 vertices over a 96-byte buffer view.
    g = strip(skinned=False)
    g.doc["accessors"][0]["count"] = 2 ** 31
    return g.finish()


CASES = {
    "nan_weights.gltf": nan_weights,
    "negative_weights.gltf": negative_weights,
    "joint_out_of_range.gltf": joint_out_of_range,
    "all_zero_weights.gltf": all_zero_weights,
    "vertex_without_influence.gltf": vertex_without_influence,
    "tiny_weights.gltf": tiny_weights,
    "huge_weights.gltf": huge_weights,
    "zero_area_triangles.gltf": zero_area_triangles,
    "identical_uvs.gltf": identical_uvs,
    "singular_inverse_bind.gltf": singular_inverse_bind,
    "mirrored_joint.gltf": mirrored_joint,
    "skin_without_inverse_binds.gltf": skin_without_inverse_binds,
    "node_cycle.gltf": node_cycle,
    "missing_child.gltf": missing_child,
    "truncated_buffer.gltf": truncated_buffer,
    "not_a_model.gltf": not_a_model,
    "empty_mesh.gltf": empty_mesh,
    "huge_count.gltf": huge_count,
}


def main():
    for name, make in CASES.items():
        data = make()
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
