#include "worker/decode_image.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>
#include <png.h>

#include "rig/model/structure.h"

namespace rig::worker {

namespace {

Result<void> sizeCheck(uint64_t width, uint64_t height, size_t maxBytes)
{
    if (width == 0 || height == 0)
        return fail("it has no pixels");
    if (width > kMaxImageSide || height > kMaxImageSide)
        return fail("it is " + std::to_string(width) + " x " + std::to_string(height) + ", over the limit of " +
                    std::to_string(kMaxImageSide) + " pixels a side");
    if (width * height * 4 > maxBytes)
        return fail("its " + std::to_string(width) + " x " + std::to_string(height) +
                    " pixels exceed what is left of the texture budget (" + std::to_string(maxBytes >> 20) + " MiB)");
    return {};
}

Result<void> decodePng(const uint8_t* data, size_t size, size_t maxBytes, uint32_t& width, uint32_t& height,
                       std::vector<uint8_t>& rgba)
{
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size))
        return fail(std::string("damaged PNG (") + image.message + ")");
    if (Result<void> ok = sizeCheck(image.width, image.height, maxBytes); !ok) {
        png_image_free(&image);
        return ok;
    }
    image.format = PNG_FORMAT_RGBA; // 8-bit sRGB, straight alpha, whatever the file's own format
    rgba.resize(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, rgba.data(), 0, nullptr)) { // frees `image` either way
        rgba.clear();
        return fail(std::string("damaged PNG (") + image.message + ")");
    }
    width = image.width;
    height = image.height;
    return {};
}

struct JpegErrors {
    jpeg_error_mgr manager;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX] = {};
};

[[noreturn]] void jpegFail(j_common_ptr info)
{
    auto* errors = reinterpret_cast<JpegErrors*>(info->err);
    (*info->err->format_message)(info, errors->message);
    std::longjmp(errors->jump, 1);
}

void jpegQuiet(j_common_ptr, int) {} // warnings (corrupt data it can go past) are not printed

Result<void> decodeJpeg(const uint8_t* data, size_t size, size_t maxBytes, uint32_t& width, uint32_t& height,
                        std::vector<uint8_t>& rgba)
{
    // Everything the error path touches lives before setjmp and is only read after it.
    jpeg_decompress_struct info;
    JpegErrors errors;
    info.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = jpegFail;
    errors.manager.emit_message = jpegQuiet;
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&info);
        rgba.clear();
        return fail(std::string("damaged JPEG (") + errors.message + ")");
    }
    jpeg_create_decompress(&info);
    info.mem->max_memory_to_use = long(maxBytes); // the decoder's own buffers (progressive coefficients) too
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    if (Result<void> ok = sizeCheck(info.image_width, info.image_height, maxBytes); !ok) {
        jpeg_destroy_decompress(&info);
        return ok;
    }
    info.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&info);
    width = info.output_width;
    height = info.output_height;
    rgba.resize(size_t(width) * height * 4);
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = rgba.data() + size_t(info.output_scanline) * width * 4;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return {};
}

} // namespace

Result<void> decodeImage(const uint8_t* data, size_t size, size_t maxBytes, uint32_t& width, uint32_t& height,
                         std::vector<uint8_t>& rgba)
{
    static constexpr uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    width = height = 0;
    rgba.clear();
    if (data && size >= 8 && std::memcmp(data, kPng, 8) == 0)
        return decodePng(data, size, maxBytes, width, height, rgba);
    if (data && size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
        return decodeJpeg(data, size, maxBytes, width, height, rgba);
    return fail("not a PNG or JPEG file (RigScope decodes those two, the formats glTF allows)");
}

void decodeImages(Rig& rig, size_t budgetBytes)
{
    size_t used = 0;
    for (const Image& im : rig.images)
        used += im.rgba.size(); // embedded raw texels, already pixels
    for (Image& im : rig.images) {
        if (im.encoded.empty())
            continue;
        const size_t left = used < budgetBytes ? budgetBytes - used : 0;
        Result<void> r = decodeImage(im.encoded.data(), im.encoded.size(), left, im.width, im.height, im.rgba);
        im.encoded.clear();
        im.encoded.shrink_to_fit();
        if (!r) {
            im.width = im.height = 0;
            im.rgba.clear();
            rig.notes.push_back({ImportNote::Severity::Warning,
                                 "base colour texture '" + im.name + "': " + r.error() +
                                     "; the lit view shows the base colour factor alone"});
            continue;
        }
        used += im.rgba.size();
    }
}

} // namespace rig::worker
