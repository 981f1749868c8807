// A structural check of a JPEG file, run before stb_image decodes it.
//
// stb_image fills whatever its entropy decoder cannot read with zeros and
// says nothing: a file cut short but closed with an end marker, a frame
// header that claims more rows than the data holds, or restart markers that
// are missing all decode to a picture whose lower part is flat grey. This
// walks the markers and Huffman-decodes every scan, without dequantising or
// transforming anything, and refuses a file whose coded data cannot give
// every block of the frame:
//
// - a scan whose data ends (at a marker or the end of the file) before its
//   last MCU, or that needs a Huffman code no table defines;
// - a restart interval whose MCUs are not followed by the next restart
//   marker (RST0..RST7 in turn);
// - a Huffman table whose code lengths do not form a prefix code (more than
//   256 codes, or more codes of a length than it can hold), or a scan that
//   uses a table never defined;
// - a coefficient index beyond the scan's band (a run past coefficient 63);
// - coded data that goes on past a scan's last MCU (anything but zero bytes:
//   the decode is out of step with the encoder);
// - a component whose quantization table is never defined (stb_image
//   dequantises it with whatever its memory held);
// - a frame component that no scan codes; in a progressive frame, a
//   coefficient refined before its first scan or out of order; and in one
//   that ends without an end marker (cut between two scans), a coefficient
//   whose successive approximation does not reach bit 0. With an end marker
//   that is valid: the standard lets a progression stop early.
//
// Tolerated, as decoders do and with no effect on the picture: bytes between
// segments, zero bytes after a scan's last MCU (some cameras write them), and
// a missing end marker after complete scans.
//
// Valid frames that stb_image does not decode (lossless, hierarchical,
// arithmetic-coded, not 8-bit, a height given later by DNL) are refused as
// "JPEG not supported (kind)": stb_image's own reason for them blames the
// file ("unknown type, or corrupt").
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace glsurf {

// Returns whether the file ends with its end marker (EOI); one without it
// whose scans are whole is valid, and libjpeg decodes it (with a warning).
// Throws glsurf::Error "PATH: corrupt JPEG (reason)" when the file fails the
// check, "PATH: JPEG not supported (kind) ..." for the frames above. `data`
// is the whole file, from its SOI marker. `frame_size`, if given, is called
// with the frame's width and height before any scan is walked (the walk
// allocates and runs in proportion to the frame's blocks), and may throw to
// refuse the size.
bool check_jpeg(const std::string& path, const unsigned char* data, size_t size,
                const std::function<void(int width, int height)>& frame_size = {});

// The same check of the segments before the frame header, for a file that
// arrives in pieces (a pipe): it stops at the frame header and returns true,
// after calling `frame_size` with the header's size (not for a width of 0 or
// a component count outside 1..4, which stb_image refuses), or returns false
// where `data` ends (or an end marker or a scan comes) first.
// stb_image must not read a JPEG before this: even its header parser builds
// the Huffman tables it meets, and stb_image 2.27 writes past a table's
// arrays when it declares more than 256 codes.
bool check_jpeg_to_frame(const std::string& path, const unsigned char* data, size_t size,
                         const std::function<void(int width, int height)>& frame_size);

}  // namespace glsurf
