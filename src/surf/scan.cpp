#include "surf/scan.hpp"

#include "gl/error.hpp"

namespace glsurf {

using gl::Format;
using gl::Framebuffer;
using gl::Texture;

namespace {

int divide_up(int n, int d) { return (n + d - 1) / d; }

// Size of a texture `along` texels along `axis` and `across` texels across it.
glm::ivec2 oriented(glm::ivec2 axis, int along, int across) {
  return axis.x == 1 ? glm::ivec2(along, across) : glm::ivec2(across, along);
}

}  // namespace

ScanPrograms::ScanPrograms(const gl::ShaderSource& shaders, int radix) : src_(shaders), radix_(radix) {
  up_[0][0] = ScanUpPass(src_, radix_, 0, 0);
  down_[0][0] = ScanDownPass(src_, radix_, 0, 0, false);
  down_top_[0][0] = ScanDownPass(src_, radix_, 0, 0, true);
}

std::vector<std::string> ScanPrograms::defines(int radix, int kind, int source, bool top) {
  static const char* const kSource[] = {nullptr, "SOURCE_UNORM8", "SOURCE_PACKED8"};
  std::vector<std::string> defs{"RADIX " + std::to_string(radix)};
  if (kSource[source]) defs.push_back(kSource[source]);
  if (kind == 1) defs.push_back("PACKED");
  if (kind == 2) defs.push_back("VECTOR");
  if (top) defs.push_back("TOP_LEVEL");
  return defs;
}

void ScanPrograms::need(int kind) {
  if (kinds_[kind]) return;
  if (kind == 1) {
    // Packed differs from Plain only in its last level, which (radix > 4, or
    // at the top) reads the image: need_image.
    if (radix_ <= 4) down_[1][0] = ScanDownPass(src_, radix_, 1, 0, false);
  } else {
    up_[2][0] = ScanUpPass(src_, radix_, 2, 0);
    down_[2][0] = ScanDownPass(src_, radix_, 2, 0, false);
    down_top_[2][0] = ScanDownPass(src_, radix_, 2, 0, true);
  }
  kinds_[kind] = true;
}

void ScanPrograms::need_image(int source) {
  if (image_programs_[source]) return;
  up_[0][source] = ScanUpPass(src_, radix_, 0, source);
  if (radix_ > 4) down_[1][source] = ScanDownPass(src_, radix_, 1, source, false);
  down_top_[1][source] = ScanDownPass(src_, radix_, 1, source, true);
  image_programs_[source] = true;
}

AxisScan::AxisScan(glm::ivec2 axis_, int length_, int across, int radix_, bool image,
                   const std::string& label, Kind kind_)
    : axis(axis_),
      kind(kind_),
      length(length_),
      radix(radix_),
      reads_image(image),
      local_prefixes(radix_ <= 4 && kind_ != Kind::Vector) {
  GLSURF_EXPECTS(kind != Kind::Packed || axis == glm::ivec2(1, 0), "packed scans run along the rows");
  const Format plain = kind == Kind::Vector ? Format::RGBA32UI : Format::R32UI;
  std::vector<int> lengths{length};  // len_0 .. len_M, len_M <= radix
  while (lengths.back() > radix) lengths.push_back(divide_up(lengths.back(), radix));
  const int levels = static_cast<int>(lengths.size()) - 1;  // M
  up.reserve(levels);
  down.reserve(levels + 1);
  for (int m = 1; m <= levels; ++m) {
    const glm::ivec2 s = oriented(axis, lengths[m], across);
    up.emplace_back(s.x, s.y, local_prefixes ? Format::RGBA32UI : plain, label + "_up" + std::to_string(m));
  }
  for (int m = 0; m <= levels; ++m) {
    const bool packed = m == 0 && kind == Kind::Packed;
    const glm::ivec2 s = oriented(axis, packed ? divide_up(lengths[m] + 1, 4) : lengths[m] + 1, across);
    down.emplace_back(s.x, s.y, packed ? Format::RGBA32UI : plain, label + "_down" + std::to_string(m));
  }
  for (const Texture& t : up) up_targets.emplace_back(std::vector<const Texture*>{&t}, t.label());
  for (const Texture& t : down) down_targets.emplace_back(std::vector<const Texture*>{&t}, t.label());
}

const Texture& AxisScan::run(gl::PassRunner& runner, ScanPrograms& p, const Texture& source,
                             int image) const {
  const int levels = static_cast<int>(up.size());
  const int k = static_cast<int>(kind);
  const Texture* level = &source;
  for (int m = 1; m <= levels; ++m) {
    const int from = m == 1 && reads_image ? image : 0;
    ScanPrograms::ScanUpPass& scan_up = p.up_[kind == Kind::Vector ? 2 : 0][from];
    scan_up.entries(*level);
    // With the packed image and radix 4 a group is a texel (scan_up.frag): no axis.
    if (from != 2 || radix != 4) scan_up.axis(axis);
    scan_up.draw(runner, up_targets[m - 1]);
    level = &up[m - 1];
  }
  for (int m = levels; m >= 0; --m) {
    const Texture& u = m == 0 ? source : up[m - 1];
    const int from = m == 0 && reads_image ? image : 0;
    // Packed differs from Plain only in the final level.
    const int variant = m == 0 || kind == Kind::Vector ? k : 0;
    const bool packed = variant == 1;
    if (m == levels) {
      ScanPrograms::ScanDownPass& scan_down = p.down_top_[variant][from];
      scan_down.entries(u).axis(axis);
      if (packed) scan_down.packed_length(length);
      scan_down.draw(runner, down_targets[m]);
    } else if (local_prefixes) {
      ScanPrograms::ScanDownPass& scan_down = p.down_[variant][0];
      scan_down.coarser_prefix(down[m + 1]).group_prefixes(up[m]);
      if (!packed || radix != 4) {  // packed with radix 4, groups are texels: no positions to work out
        scan_down.axis(axis);
        if (packed) scan_down.packed_length(length);
      }
      scan_down.draw(runner, down_targets[m]);
    } else {
      ScanPrograms::ScanDownPass& scan_down = p.down_[variant][from];
      scan_down.coarser_prefix(down[m + 1]).entries(u).axis(axis);
      if (packed) scan_down.packed_length(length);
      scan_down.draw(runner, down_targets[m]);
    }
  }
  return down[0];
}

}  // namespace glsurf
