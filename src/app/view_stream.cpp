#include "app/view_stream.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

namespace glsurf::app {

void RawStream::read(State& s) {
  try {
    read_frames(s);
  } catch (const std::bad_alloc&) {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.error = "standard input: out of memory for frames of " + std::to_string(s.width) + "x" +
              std::to_string(s.height) + (s.rgb ? " RGB" : "");
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.error = std::string("standard input: ") + e.what();
  }
  s.ended = true;
}

void RawStream::read_frames(State& s) {
  const size_t bytes = static_cast<size_t>(s.width) * s.height * (s.rgb ? 3 : 1);
  std::vector<unsigned char> buffer(bytes);
  while (!s.stop) {
    size_t got = 0;
    while (got < bytes) {
      const size_t n = std::fread(buffer.data() + got, 1, bytes - got, stdin);
      if (n == 0) break;
      got += n;
    }
    if (got < bytes) {
      if (std::ferror(stdin)) {  // a directory, a closed descriptor: not an empty stream
        std::lock_guard<std::mutex> lock(s.mutex);
        s.error = std::string("standard input: read failed (") + std::strerror(errno) + ")";
      } else if (got > 0) {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.error = "standard input: short final frame (" + std::to_string(got) + " of " +
                  std::to_string(bytes) + " bytes; is --raw " + std::to_string(s.width) + "x" +
                  std::to_string(s.height) + " right?)";
      }
      break;
    }
    GrayImage frame(s.width, s.height);
    for (size_t i = 0; i < frame.pixels.size(); ++i) {
      if (s.rgb) {
        const unsigned char* p = &buffer[i * 3];
        frame.pixels[i] = static_cast<std::uint8_t>((4899 * p[0] + 9617 * p[1] + 1868 * p[2] + 8192) >> 14);
      } else {
        frame.pixels[i] = buffer[i];
      }
    }
    while (s.every_frame && !s.stop) {  // wait until the last one was taken
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (!s.fresh) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.latest = std::move(frame);
      s.latest_number = s.frames + 1;
      s.fresh = true;
    }
    ++s.frames;
  }
}

}  // namespace glsurf::app
