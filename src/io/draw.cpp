#include "io/draw.hpp"

#include <stb_easy_font.h>    // a vector font of quads, rasterised here
#include <stb_image_write.h>  // the implementation: stb_image_write.cpp

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>

#include "gl/error.hpp"
#include "io/output.hpp"

namespace glsurf {

namespace {

constexpr Rgb kWhite{255, 255, 255}, kBlack{0, 0, 0}, kStrip{28, 28, 28};

// A run of caption text in one colour.
struct Run {
  std::string text;
  Rgb colour = kWhite;
};
using CaptionLine = std::vector<Run>;

// An RGB picture drawn with coverage-based anti-aliasing: a pixel whose
// centre lies at distance d from a shape's edge inside it gets the colour
// at alpha * clamp(0.5 + d, 0, 1). Drawing stays inside `clip`.
struct Canvas {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
  int clip_x0 = 0, clip_y0 = 0, clip_x1 = 0, clip_y1 = 0;  // [x0, x1) x [y0, y1)

  Canvas(int w, int h, Rgb fill) : width(w), height(h), rgb(static_cast<size_t>(w) * h * 3) {
    for (size_t i = 0; i < rgb.size(); i += 3) rgb[i] = fill.r, rgb[i + 1] = fill.g, rgb[i + 2] = fill.b;
    unclip();
  }
  void unclip() { set_clip(0, 0, width, height); }
  void set_clip(int x0, int y0, int x1, int y1) {
    clip_x0 = std::max(0, x0), clip_y0 = std::max(0, y0);
    clip_x1 = std::min(width, x1), clip_y1 = std::min(height, y1);
  }
  void blend(int x, int y, Rgb c, double alpha) {
    if (x < clip_x0 || y < clip_y0 || x >= clip_x1 || y >= clip_y1 || alpha <= 0) return;
    std::uint8_t* p = &rgb[(static_cast<size_t>(y) * width + x) * 3];
    const double a = std::min(alpha, 1.0);
    const std::uint8_t to[3] = {c.r, c.g, c.b};
    for (int k = 0; k < 3; ++k) p[k] = static_cast<std::uint8_t>(std::lround(p[k] + a * (to[k] - p[k])));
  }
  void blit(const RgbImage& image, int x0, int y0) {
    for (int y = 0; y < image.height; ++y)
      std::copy_n(&image.pixels[static_cast<size_t>(y) * image.width * 3],
                  static_cast<size_t>(image.width) * 3, &rgb[(static_cast<size_t>(y0 + y) * width + x0) * 3]);
  }
  void fill_rect(int x0, int y0, int x1, int y1, Rgb c) {
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) blend(x, y, c, 1.0);
  }

  // The pixel range [lo, hi] of doubles, clamped to [first, last] before
  // the conversion (coordinates may be huge).
  static void span(double lo, double hi, int first, int last, int& a, int& b) {
    a = static_cast<int>(std::max<double>(first, std::floor(lo)));
    b = static_cast<int>(std::min<double>(last, std::ceil(hi)));
  }

  // A segment `width` wide with round caps. It is first clipped
  // (Liang-Barsky) to the clip rectangle widened by its reach, so that
  // far-away endpoints cost nothing; then each column (or row, when steep)
  // visits only the pixels within reach.
  void segment(double x0, double y0, double x1, double y1, double width, Rgb c, double alpha) {
    if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1)) return;
    const double hw = width / 2, reach = hw + 1.5;
    double t0 = 0, t1 = 1;
    const double dx0 = x1 - x0, dy0 = y1 - y0;
    const double p[4] = {-dx0, dx0, -dy0, dy0};
    const double q[4] = {x0 - (clip_x0 - reach), (clip_x1 - 1 + reach) - x0, y0 - (clip_y0 - reach),
                         (clip_y1 - 1 + reach) - y0};
    for (int k = 0; k < 4; ++k) {
      if (p[k] == 0) {
        if (q[k] < 0) return;
        continue;
      }
      const double r = q[k] / p[k];
      if (p[k] < 0)
        t0 = std::max(t0, r);
      else
        t1 = std::min(t1, r);
      if (t0 > t1) return;
    }
    const double ax = x0 + t0 * dx0, ay = y0 + t0 * dy0, bx = x0 + t1 * dx0, by = y0 + t1 * dy0;
    const double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    const auto cover = [&](int px, int py) {
      const double t = len2 > 0 ? std::clamp(((px - ax) * dx + (py - ay) * dy) / len2, 0.0, 1.0) : 0.0;
      const double d = std::hypot(ax + t * dx - px, ay + t * dy - py);
      blend(px, py, c, alpha * std::clamp(hw + 0.5 - d, 0.0, 1.0));
    };
    const bool steep = std::abs(dy) > std::abs(dx);
    // u along the major axis, v across it.
    const double u0 = steep ? ay : ax, u1 = steep ? by : bx, v0 = steep ? ax : ay, du = steep ? dy : dx,
                 dv = steep ? dx : dy;
    const double slope = du != 0 ? dv / du : 0, across = reach * std::sqrt(1 + slope * slope);
    int ua, ub;
    span(std::min(u0, u1) - reach, std::max(u0, u1) + reach, steep ? clip_y0 : clip_x0,
         (steep ? clip_y1 : clip_x1) - 1, ua, ub);
    for (int u = ua; u <= ub; ++u) {
      const double uc = std::clamp(static_cast<double>(u), std::min(u0, u1), std::max(u0, u1));
      const double vc = v0 + (uc - u0) * slope;
      int va, vb;
      span(vc - across, vc + across, steep ? clip_x0 : clip_y0, (steep ? clip_x1 : clip_y1) - 1, va, vb);
      for (int v = va; v <= vb; ++v) steep ? cover(v, u) : cover(u, v);
    }
  }

  // A circle of radius r, its line `width` wide.
  void ring(double cx, double cy, double r, double width, Rgb c, double alpha) {
    const double hw = width / 2, reach = r + hw + 1;
    int xa, xb, ya, yb;
    span(cx - reach, cx + reach, clip_x0, clip_x1 - 1, xa, xb);
    span(cy - reach, cy + reach, clip_y0, clip_y1 - 1, ya, yb);
    for (int y = ya; y <= yb; ++y)
      for (int x = xa; x <= xb; ++x)
        blend(x, y, c, alpha * std::clamp(hw + 0.5 - std::abs(std::hypot(x - cx, y - cy) - r), 0.0, 1.0));
  }
  void disc(double cx, double cy, double r, Rgb c, double alpha) {
    int xa, xb, ya, yb;
    span(cx - r - 1, cx + r + 1, clip_x0, clip_x1 - 1, xa, xb);
    span(cy - r - 1, cy + r + 1, clip_y0, clip_y1 - 1, ya, yb);
    for (int y = ya; y <= yb; ++y)
      for (int x = xa; x <= xb; ++x)
        blend(x, y, c, alpha * std::clamp(r + 0.5 - std::hypot(x - cx, y - cy), 0.0, 1.0));
  }

  // Text in stb_easy_font's glyphs (12 units a line), each unit `scale`
  // pixels, its top left at (x, y); returns its width in pixels.
  int text(int x, int y, const std::string& s, int scale, Rgb c) {
    std::string chars = s;
    for (char& ch : chars)
      if (ch < 32 || ch > 126) ch = '?';  // the font has printable ASCII only
    std::vector<char> vertices(chars.size() * 400 + 64);
    const int quads =
        stb_easy_font_print(0, 0, chars.data(), nullptr, vertices.data(), static_cast<int>(vertices.size()));
    for (int k = 0; k < quads; ++k) {
      float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
      for (int v = 0; v < 4; ++v) {  // 16 bytes a vertex: x, y, z floats and a colour
        float xy[2];
        std::copy_n(&vertices[static_cast<size_t>(k * 4 + v) * 16], sizeof xy, reinterpret_cast<char*>(xy));
        x0 = std::min(x0, xy[0]), x1 = std::max(x1, xy[0]), y0 = std::min(y0, xy[1]),
        y1 = std::max(y1, xy[1]);
      }
      fill_rect(x + static_cast<int>(std::lround(x0 * scale)), y + static_cast<int>(std::lround(y0 * scale)),
                x + static_cast<int>(std::lround(x1 * scale)), y + static_cast<int>(std::lround(y1 * scale)),
                c);
    }
    return stb_easy_font_width(chars.data()) * scale;
  }
};

// Area-averaged downscaling to w x h (w, h no larger than the image's).
RgbImage downscaled(const RgbImage& in, int w, int h) {
  if (w == in.width && h == in.height) return in;
  // For each output index, the source pixels it covers and their weights.
  struct Tap {
    int from;
    float weight;
  };
  const auto taps = [](int n_in, int n_out) {
    std::vector<std::vector<Tap>> out(static_cast<size_t>(n_out));
    const double f = static_cast<double>(n_in) / n_out;
    for (int o = 0; o < n_out; ++o) {
      const double a = o * f, b = (o + 1) * f;
      for (int s = static_cast<int>(a); s < std::min<double>(n_in, std::ceil(b)); ++s) {
        const double weight = std::min<double>(b, s + 1) - std::max<double>(a, s);
        if (weight > 0) out[static_cast<size_t>(o)].push_back({s, static_cast<float>(weight / f)});
      }
    }
    return out;
  };
  const auto across = taps(in.width, w), down = taps(in.height, h);
  std::vector<float> rows(static_cast<size_t>(w) * in.height * 3);  // scaled across
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < w; ++x)
      for (const Tap& t : across[static_cast<size_t>(x)])
        for (int c = 0; c < 3; ++c)
          rows[(static_cast<size_t>(y) * w + x) * 3 + c] +=
              t.weight * in.pixels[(static_cast<size_t>(y) * in.width + t.from) * 3 + c];
  RgbImage out{w, h, std::vector<std::uint8_t>(static_cast<size_t>(w) * h * 3)};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        float v = 0;
        for (const Tap& t : down[static_cast<size_t>(y)])
          v += t.weight * rows[(static_cast<size_t>(t.from) * w + x) * 3 + c];
        out.pixels[(static_cast<size_t>(y) * w + x) * 3 + c] =
            static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
      }
  return out;
}

// The sizes of marks on a picture `width` pixels wide.
struct Marks {
  double line, ring_radius, ring_line, dot, text_scale;
  explicit Marks(int width)
      : line(std::clamp(width / 900.0, 1.2, 3.0)),
        ring_radius(2.5 * line + 1),
        ring_line(std::max(1.0, 0.7 * line)),
        dot(0.9 * line),
        text_scale(width >= 1400 ? 2 : 1) {}
};

int strip_height(size_t lines, int text_scale) {
  return static_cast<int>(lines) * 13 * text_scale + 8 * text_scale;
}

void draw_caption(Canvas& canvas, int top, const std::vector<CaptionLine>& lines, int text_scale) {
  canvas.unclip();
  canvas.fill_rect(0, top, canvas.width, canvas.height, kStrip);
  int y = top + 5 * text_scale;
  for (const CaptionLine& line : lines) {
    int x = 6 * text_scale;
    for (const Run& run : line) x += canvas.text(x, y, run.text, text_scale, run.colour);
    y += 13 * text_scale;
  }
}

// The factor that fits `width` x `height` into max_width x max_width.
double fit_scale(int width, int height, int max_width) {
  return std::min({1.0, static_cast<double>(max_width) / width, static_cast<double>(max_width) / height});
}

int scaled(int n, double s) { return std::max(1, static_cast<int>(std::lround(n * s))); }

// The indices of `matches` that pass `keep`, the `most` of smallest distance.
template <typename Keep>
std::vector<size_t> smallest(const std::vector<Match>& matches, int most, const Keep& keep) {
  std::vector<size_t> chosen;
  for (size_t i = 0; i < matches.size(); ++i)
    if (keep(i)) chosen.push_back(i);
  std::stable_sort(chosen.begin(), chosen.end(),
                   [&](size_t i, size_t j) { return matches[i].distance < matches[j].distance; });
  if (most >= 0 && chosen.size() > static_cast<size_t>(most)) chosen.resize(static_cast<size_t>(most));
  return chosen;
}

std::string count_of(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

Rgb match_colour(size_t i) {
  // Okabe-Ito's blue, sky blue and bluish green, and five more of like
  // lightness; no red, orange or yellow (the outliers' and the outline's).
  static const Rgb palette[8] = {{0, 114, 178},   {86, 180, 233}, {0, 158, 115},   {120, 220, 80},
                                 {160, 110, 230}, {0, 215, 215},  {204, 121, 167}, {235, 235, 235}};
  return palette[i % 8];
}

double match_picture_scale(const MatchDrawing& d) {
  return fit_scale(d.a->width + d.b->width, std::max(d.a->height, d.b->height), d.max_width);
}

double keypoint_picture_scale(const KeypointDrawing& d) {
  return fit_scale(d.image->width, d.image->height, d.max_width);
}

RgbImage draw_matches(const MatchDrawing& d) {
  const double s = match_picture_scale(d);
  const RgbImage a = downscaled(*d.a, scaled(d.a->width, s), scaled(d.a->height, s));
  const RgbImage b = downscaled(*d.b, scaled(d.b->width, s), scaled(d.b->height, s));
  const int width = a.width + b.width, image_height = std::max(a.height, b.height);
  const Marks marks(width);
  const int ts = static_cast<int>(marks.text_scale);

  const std::vector<Match>& matches = *d.matches;
  const auto inlier = [&](size_t i) { return i < d.inliers->size() && (*d.inliers)[i]; };
  const std::vector<size_t> drawn = smallest(matches, d.max_drawn, inlier);
  const std::vector<size_t> outliers =
      d.outliers ? smallest(matches, d.max_drawn, [&](size_t i) { return !inlier(i); })
                 : std::vector<size_t>{};
  size_t inlier_count = 0;
  for (size_t i = 0; i < matches.size(); ++i) inlier_count += inlier(i);

  std::vector<CaptionLine> caption;
  for (const std::string& line : d.caption) caption.push_back({{line, kWhite}});
  CaptionLine legend = {{"inliers", match_colour(0)},
                        {" (a colour each; " + std::to_string(drawn.size()) + " of " +
                             std::to_string(inlier_count) + " drawn, the closest descriptors)   ",
                         kWhite}};
  const size_t outlier_count = matches.size() - inlier_count;
  if (d.outliers)
    legend.push_back({"outliers (" + std::to_string(outliers.size()) + " of " +
                          std::to_string(outlier_count) + " drawn)   ",
                      kOutlierColour});
  else
    legend.push_back({count_of(outlier_count, "outlier", "outliers") + " not drawn   ", {150, 150, 150}});
  if (d.h) legend.push_back({"A's outline mapped into B", kOutlineColour});
  caption.push_back(legend);

  Canvas canvas(width, image_height + strip_height(caption.size(), ts), kBlack);
  canvas.blit(a, 0, 0);
  canvas.blit(b, a.width, 0);
  // Pixel centres: x' = (x + 0.5) * s' - 0.5 with s' the scale each image was drawn at.
  const double sax = static_cast<double>(a.width) / d.a->width,
               say = static_cast<double>(a.height) / d.a->height;
  const double sbx = static_cast<double>(b.width) / d.b->width,
               sby = static_cast<double>(b.height) / d.b->height;
  const auto in_a = [&](const KeyPoint& k, double& x, double& y) {
    x = (k.x + 0.5) * sax - 0.5, y = (k.y + 0.5) * say - 0.5;
  };
  const auto in_b = [&](double bx, double by, double& x, double& y) {
    x = a.width + (bx + 0.5) * sbx - 0.5, y = (by + 0.5) * sby - 0.5;
  };
  const auto endpoints = [&](size_t i, double& ax, double& ay, double& bx, double& by) {
    in_a(d.fa->keypoints[static_cast<size_t>(matches[i].query)], ax, ay);
    const KeyPoint& kb = d.fb->keypoints[static_cast<size_t>(matches[i].train)];
    in_b(kb.x, kb.y, bx, by);
  };

  canvas.set_clip(0, 0, width, image_height);
  for (size_t i : outliers) {
    double ax, ay, bx, by;
    endpoints(i, ax, ay, bx, by);
    canvas.segment(ax, ay, bx, by, marks.line * 0.8, kOutlierColour, kOutlierAlpha);
  }
  if (d.h) {
    // Each side of A's frame in 64 pieces, mapped in homogeneous
    // coordinates: a piece whose ends lie on two sides of the line at
    // infinity (w of opposite signs, or zero) is left out; the others are
    // finite segments, clipped to B's frame.
    const Homography& h = *d.h;
    const auto w_of = [&](double x, double y) { return h[6] * x + h[7] * y + h[8]; };
    const double front = w_of((d.a->width - 1) / 2.0, (d.a->height - 1) / 2.0) < 0 ? -1 : 1;
    const double corners[5][2] = {
        {0, 0}, {d.a->width - 1.0, 0}, {d.a->width - 1.0, d.a->height - 1.0}, {0, d.a->height - 1.0}, {0, 0}};
    canvas.set_clip(a.width, 0, width, b.height);
    for (const auto& [halo, colour, line] :
         {std::tuple{true, kBlack, marks.line * 2.6}, std::tuple{false, kOutlineColour, marks.line * 1.4}}) {
      for (int side = 0; side < 4; ++side) {
        constexpr int pieces = 64;
        bool have = false;
        double px = 0, py = 0;
        for (int k = 0; k <= pieces; ++k) {
          const double t = static_cast<double>(k) / pieces;
          const double x = corners[side][0] + t * (corners[side + 1][0] - corners[side][0]);
          const double y = corners[side][1] + t * (corners[side + 1][1] - corners[side][1]);
          const double w = w_of(x, y) * front;
          if (!(w > 1e-12)) {
            have = false;
            continue;
          }
          double qx, qy;
          in_b((h[0] * x + h[1] * y + h[2]) / (w * front), (h[3] * x + h[4] * y + h[5]) / (w * front), qx,
               qy);
          if (have) canvas.segment(px, py, qx, qy, line, colour, halo ? 0.55 : 1.0);
          px = qx, py = qy, have = true;
        }
      }
    }
    canvas.set_clip(0, 0, width, image_height);
  }
  for (size_t i : drawn) {
    double ax, ay, bx, by;
    endpoints(i, ax, ay, bx, by);
    canvas.segment(ax, ay, bx, by, marks.line, match_colour(i), 0.8);
  }
  for (size_t i : drawn) {  // the markers over every line
    double ax, ay, bx, by;
    endpoints(i, ax, ay, bx, by);
    for (const auto& [x, y] : {std::pair{ax, ay}, std::pair{bx, by}}) {
      canvas.ring(x, y, marks.ring_radius, marks.ring_line + 1.5, kBlack, 0.5);
      canvas.ring(x, y, marks.ring_radius, marks.ring_line, match_colour(i), 1.0);
      canvas.disc(x, y, marks.dot, match_colour(i), 1.0);
    }
  }
  draw_caption(canvas, image_height, caption, ts);
  return {canvas.width, canvas.height, std::move(canvas.rgb)};
}

RgbImage draw_keypoints(const KeypointDrawing& d) {
  const double s = keypoint_picture_scale(d);
  const RgbImage image = downscaled(*d.image, scaled(d.image->width, s), scaled(d.image->height, s));
  const Marks marks(image.width);
  const int ts = static_cast<int>(marks.text_scale);
  const std::vector<KeyPoint>& keypoints = *d.keypoints;
  std::vector<size_t> order(keypoints.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t i, size_t j) { return keypoints[i].response > keypoints[j].response; });
  if (d.max_drawn > 0 && order.size() > static_cast<size_t>(d.max_drawn))
    order.resize(static_cast<size_t>(d.max_drawn));

  std::vector<CaptionLine> caption;
  for (const std::string& line : d.caption) caption.push_back({{line, kWhite}});
  caption.push_back({{std::to_string(order.size()) + " of " + std::to_string(keypoints.size()) +
                          " drawn, the strongest; circle radius size/2, tick the orientation",
                      kWhite}});
  caption.push_back({{"dark blob on light (Laplacian +1)", kDarkBlobColour},
                     {"   ", kWhite},
                     {"light blob on dark (Laplacian -1)", kLightBlobColour}});

  Canvas canvas(image.width, image.height + strip_height(caption.size(), ts), kBlack);
  canvas.blit(image, 0, 0);
  canvas.set_clip(0, 0, image.width, image.height);
  const double sx = static_cast<double>(image.width) / d.image->width;
  const double sy = static_cast<double>(image.height) / d.image->height;
  const double line = std::max(1.0, 0.7 * marks.line);
  for (size_t i : order) {
    const KeyPoint& k = keypoints[i];
    const double x = (k.x + 0.5) * sx - 0.5, y = (k.y + 0.5) * sy - 0.5;
    const double r = std::max(2.0, k.size / 2 * sx);
    const Rgb colour = k.laplacian >= 0 ? kDarkBlobColour : kLightBlobColour;
    const double angle = k.angle * 3.14159265358979323846 / 180;  // counter-clockwise as shown, y down
    const double tx = x + r * std::cos(angle), ty = y - r * std::sin(angle);
    canvas.ring(x, y, r, line + 1.5, kBlack, 0.45);
    if (k.angle >= 0) canvas.segment(x, y, tx, ty, line + 1.5, kBlack, 0.45);
    canvas.ring(x, y, r, line, colour, 1.0);
    if (k.angle >= 0) canvas.segment(x, y, tx, ty, line, colour, 1.0);
  }
  draw_caption(canvas, image.height, caption, ts);
  return {canvas.width, canvas.height, std::move(canvas.rgb)};
}

void write_match_png(std::ostream& out, const std::string& path, const MatchDrawing& d) {
  const RgbImage picture = draw_matches(d);
  write_png(out, path, picture.width, picture.height, 3, picture.pixels.data());
}

void write_match_png(const std::string& path, const MatchDrawing& d) {
  write_file_atomically(path, true, [&](std::ostream& out) { write_match_png(out, path, d); });
}

void write_keypoints_png(std::ostream& out, const std::string& path, const KeypointDrawing& d) {
  const RgbImage picture = draw_keypoints(d);
  write_png(out, path, picture.width, picture.height, 3, picture.pixels.data());
}

void write_keypoints_png(const std::string& path, const KeypointDrawing& d) {
  write_file_atomically(path, true, [&](std::ostream& out) { write_keypoints_png(out, path, d); });
}

void write_png(std::ostream& out, const std::string& path, int width, int height, int channels,
               const std::uint8_t* pixels) {
  auto sink = [](void* context, void* data, int size) {
    static_cast<std::ostream*>(context)->write(static_cast<const char*>(data), size);
  };
  if (!stbi_write_png_to_func(sink, &out, width, height, channels, pixels, width * channels)) {
    throw Error(path + ": PNG encoding failed");
  }
}

void write_png(const std::string& path, int width, int height, int channels, const std::uint8_t* pixels) {
  write_file_atomically(path, true,
                        [&](std::ostream& out) { write_png(out, path, width, height, channels, pixels); });
}

}  // namespace glsurf
