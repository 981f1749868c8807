// OpenCV's C++ reader of glsurf's opencv feature files (detect --format
// opencv), for tests/cli_formats.sh: loads FILE with cv::FileStorage,
// cv::read(fs["keypoints"], std::vector<cv::KeyPoint>) and
// fs["descriptors"] >> cv::Mat, and prints what it got in glsurf's txt
// feature format ("N D", then x y size angle response class_id octave and
// the descriptor per line, floats as %.9g), which the test compares with
// detect's own txt output byte for byte.
//
// Usage: opencv_read_features FILE
#include <cstdio>
#include <opencv2/core.hpp>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: opencv_read_features FILE\n");
    return 2;
  }
  cv::FileStorage fs(argv[1], cv::FileStorage::READ);
  if (!fs.isOpened()) {
    std::fprintf(stderr, "%s: cv::FileStorage cannot open it\n", argv[1]);
    return 1;
  }
  std::vector<cv::KeyPoint> keypoints;
  cv::read(fs["keypoints"], keypoints);
  cv::Mat descriptors;
  fs["descriptors"] >> descriptors;
  if (descriptors.type() != CV_32F || descriptors.rows != static_cast<int>(keypoints.size())) {
    std::fprintf(stderr, "%s: %zu keypoints, descriptors of type %d, %d rows\n", argv[1], keypoints.size(),
                 descriptors.type(), descriptors.rows);
    return 1;
  }
  std::printf("%zu %d\n", keypoints.size(), descriptors.cols);
  for (size_t i = 0; i < keypoints.size(); ++i) {
    const cv::KeyPoint& k = keypoints[i];
    std::printf("%.9g %.9g %.9g %.9g %.9g %d %d", k.pt.x, k.pt.y, k.size, k.angle, k.response, k.class_id,
                k.octave);
    for (int j = 0; j < descriptors.cols; ++j)
      std::printf(" %.9g", descriptors.at<float>(static_cast<int>(i), j));
    std::printf("\n");
  }
  return 0;
}
