#include "gpu_timer.h"

#include <QVulkanFunctions>
#include <QVulkanInstance>
#include <QtGui/private/qrhi_p.h>
#include <QtGui/private/qrhivulkan_p.h>

#include <vector>

namespace viewer {

struct GpuTimer::Impl {
    QRhi* rhi = nullptr;
    VkDevice dev = VK_NULL_HANDLE;
    QVulkanDeviceFunctions* df = nullptr;
    VkQueryPool pool = VK_NULL_HANDLE;
    double nsPerTick = 1.0;
    uint64_t validMask = ~0ull;
    bool written = false;

    VkCommandBuffer commandBuffer(QRhiCommandBuffer* cb) const
    {
        auto* h = static_cast<const QRhiVulkanCommandBufferNativeHandles*>(cb->nativeHandles());
        return h ? h->commandBuffer : VK_NULL_HANDLE;
    }
};

GpuTimer::GpuTimer(QRhi* rhi, QVulkanInstance* instance) : d(std::make_unique<Impl>())
{
    d->rhi = rhi;
    if (!rhi || !instance || rhi->backend() != QRhi::Vulkan)
        return;
    auto* h = static_cast<const QRhiVulkanNativeHandles*>(rhi->nativeHandles());
    if (!h || !h->dev || !h->physDev)
        return;
    QVulkanFunctions* f = instance->functions();
    VkPhysicalDeviceProperties props;
    f->vkGetPhysicalDeviceProperties(h->physDev, &props);
    if (!(props.limits.timestampPeriod > 0.0f))
        return;
    uint32_t familyCount = 0;
    f->vkGetPhysicalDeviceQueueFamilyProperties(h->physDev, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    f->vkGetPhysicalDeviceQueueFamilyProperties(h->physDev, &familyCount, families.data());
    if (h->gfxQueueFamilyIdx < 0 || uint32_t(h->gfxQueueFamilyIdx) >= familyCount || families[h->gfxQueueFamilyIdx].timestampValidBits == 0)
        return;
    const uint32_t bits = families[h->gfxQueueFamilyIdx].timestampValidBits;
    d->validMask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    d->nsPerTick = props.limits.timestampPeriod;
    d->dev = h->dev;
    d->df = instance->deviceFunctions(h->dev);
    VkQueryPoolCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = 2;
    if (d->df->vkCreateQueryPool(d->dev, &info, nullptr, &d->pool) != VK_SUCCESS)
        d->pool = VK_NULL_HANDLE;
}

GpuTimer::~GpuTimer()
{
    if (d->pool)
        d->df->vkDestroyQueryPool(d->dev, d->pool, nullptr);
}

bool GpuTimer::isAvailable() const
{
    return d->pool != VK_NULL_HANDLE;
}

void GpuTimer::begin(QRhiCommandBuffer* cb)
{
    d->written = false;
    if (!isAvailable())
        return;
    cb->beginExternal(); // outside a pass: QRhi records what it has queued into the command buffer first
    const VkCommandBuffer vcb = d->commandBuffer(cb);
    d->df->vkCmdResetQueryPool(vcb, d->pool, 0, 2);
    d->df->vkCmdWriteTimestamp(vcb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, d->pool, 0);
    cb->endExternal();
}

void GpuTimer::end(QRhiCommandBuffer* cb)
{
    if (!isAvailable())
        return;
    cb->beginExternal();
    d->df->vkCmdWriteTimestamp(d->commandBuffer(cb), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->pool, 1);
    cb->endExternal();
    d->written = true;
}

std::optional<double> GpuTimer::milliseconds()
{
    if (!isAvailable() || !d->written)
        return std::nullopt;
    uint64_t ticks[2] = {0, 0};
    const VkResult r = d->df->vkGetQueryPoolResults(d->dev, d->pool, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS)
        return std::nullopt;
    const uint64_t delta = (ticks[1] - ticks[0]) & d->validMask;
    return double(delta) * d->nsPerTick * 1e-6;
}

} // namespace viewer
