// The public Matcher: the GPU matcher (match/matcher.hpp) or the CPU
// reference (cpu/matcher.hpp).
#include "glsurf/matcher.hpp"

#include <string>

#include "cpu/matcher.hpp"
#include "glsurf/context.hpp"
#include "match/matcher.hpp"
#include "match/types.hpp"

namespace glsurf {

struct Matcher::Impl {
  MatchConfig config;
  std::unique_ptr<GpuMatcher> gpu;  // null: the CPU reference
};

Matcher::Matcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

Matcher Matcher::gpu(const Context& context, const MatchConfig& config) {
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->gpu = std::make_unique<GpuMatcher>(context.native(), config);
  return Matcher(std::move(impl));
}

Matcher Matcher::cpu(const MatchConfig& config) {
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  return Matcher(std::move(impl));
}

std::vector<Match> Matcher::match(const Features& query, const Features& train) {
  check_matchable(query, train);
  if (impl().gpu && query.descriptor_size > GpuMatcher::kMaxDescriptorSize && !query.keypoints.empty()) {
    throw Error("the GPU matcher takes descriptors of at most " +
                std::to_string(GpuMatcher::kMaxDescriptorSize) + " values, not " +
                std::to_string(query.descriptor_size));
  }
  return impl().gpu ? impl().gpu->match(query, train) : cpu::match(query, train, impl().config);
}

const MatchConfig& Matcher::config() const { return impl().config; }
bool Matcher::on_gpu() const { return impl().gpu != nullptr; }

Matcher::Impl& Matcher::impl() const {
  if (!impl_) throw Error("use of a moved-from glsurf::Matcher");
  return *impl_;
}

}  // namespace glsurf
