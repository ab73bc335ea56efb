// Decoding the base colour textures a model's materials use, inside the import worker's sandbox: a memory bug in an
// image decoder meets the same walls as one in Assimp (worker/sandbox.h), and RigScope receives only pixels whose
// size it checks (rig::Image, rig_serialize.h). PNG (libpng's simplified API) and JPEG (libjpeg-turbo) — the two
// formats glTF allows — are decoded; anything else is reported, not guessed at.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig::worker {

/// Decodes one encoded image (PNG or JPEG, told apart by their signatures, not by a name) into 8-bit sRGB RGBA, top row
/// first. Fails — never crashes, never reads past `size` — with a reason for a message: not PNG or JPEG, a damaged or
/// truncated stream (the decoder's own words), a side over kMaxImageSide, or more than `maxBytes` of pixels.
Result<void> decodeImage(const uint8_t* data, size_t size, size_t maxBytes, uint32_t& width, uint32_t& height,
                         std::vector<uint8_t>& rgba);

/// Decodes every image of `rig` that still holds encoded bytes, in place (Image::rgba, width, height; encoded cleared),
/// at most `budgetBytes` of pixels in all. An image that fails keeps its name and no pixels, and a warning note says
/// which and why ("base colour texture 'skin.png': not a PNG or JPEG file; the lit view shows the base colour factor
/// alone").
void decodeImages(Rig& rig, size_t budgetBytes);

} // namespace rig::worker
