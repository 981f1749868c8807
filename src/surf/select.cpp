#include "surf/select.hpp"

#include "gl/error.hpp"

namespace glsurf {

namespace {
struct Round {
  int shift, bits;
};
constexpr Round kRounds[] = {{20, 12}, {8, 12}, {0, 8}};
}  // namespace

SelectStage::SelectStage(const gl::ShaderSource& shaders)
    : histogram_(shaders),
      choose_(shaders),
      bins_(64, 64, gl::Format::R32F, "select_histogram"),
      bins_target_({&bins_}, "select_histogram") {
  for (int i = 0; i < 2; ++i) {
    state_[i] = gl::Texture(1, 1, gl::Format::RGBA32UI, "select_state_" + std::to_string(i));
    state_target_[i] = gl::Framebuffer({&state_[i]}, state_[i].label());
  }
}

const gl::Texture& SelectStage::run(gl::PassRunner& runner, const gl::Texture& atlas, int wanted) {
  GLSURF_EXPECTS(wanted > 0, "select at least one keypoint");
  int current = 0;
  for (int r = 0; r < 3; ++r) {
    const Round round = kRounds[r];
    runner.clear(bins_target_, glm::vec4(0.0f));
    histogram_.candidates(atlas)
        .state(state_[current])
        .round(r == 0, round.shift, round.bits)
        .scatter(runner, bins_target_, atlas.width() * atlas.height());
    choose_.bins(bins_)
        .state(state_[current])
        .wanted(wanted)
        .round(r == 0, round.shift, round.bits)
        .draw(runner, state_target_[1 - current]);
    current = 1 - current;
  }
  gl::check_gl_errors("select");
  return state_[current];
}

}  // namespace glsurf
