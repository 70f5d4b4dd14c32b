//===- HugePages.h - Whether memory was advised huge pages ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// For the tests of `sift_rt_advise_huge_pages` and its callers: the kernel
// marks a mapping advised MADV_HUGEPAGE with the `hg` flag in
// /proc/self/smaps, whether or not huge pages then back it.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_UNITTESTS_RUNTIME_HUGEPAGES_H
#define SIFT_UNITTESTS_RUNTIME_HUGEPAGES_H

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace sift_test {

/// Why this machine cannot tell (no transparent huge pages, or never), or
/// an empty string.
inline std::string hugePagesUnavailable() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(mode, line))
    return "no transparent huge pages on this system";
  if (line.find("[never]") != std::string::npos)
    return "transparent huge pages are off ([never])";
  return "";
}

/// Whether the mapping that holds `address` is advised MADV_HUGEPAGE.
inline bool advisedHugePages(const void *address) {
  auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    // A mapping's first line: "begin-end perms ..." in hexadecimal.
    if (range >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0)
      return (line + " ").find(" hg ") != std::string::npos;
  }
  return false;
}

} // namespace sift_test

#endif // SIFT_UNITTESTS_RUNTIME_HUGEPAGES_H
