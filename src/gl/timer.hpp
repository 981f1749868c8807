// GPU time of a span of GL commands, from a GL_TIME_ELAPSED query (ARB_timer_query,
// core in 3.3). Queries cannot nest: time one span at a time.
//
//   GpuTimer t;  t.begin(); ...passes...; t.end();  double ms = t.milliseconds();
//
// milliseconds() waits for the result. On llvmpipe the "GPU" is the CPU and the
// number is CPU time spent rasterising; label it so.
#pragma once

namespace glsurf::gl {

class GpuTimer {
 public:
  GpuTimer();
  GpuTimer(GpuTimer&& other) noexcept;
  GpuTimer& operator=(GpuTimer&& other) noexcept;
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  ~GpuTimer();

  void begin();
  void end();
  double milliseconds() const;

 private:
  unsigned query_ = 0;
  bool running_ = false;
};

}  // namespace glsurf::gl
