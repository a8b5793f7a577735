// Walking the control messages of a msghdr as the kernel does, without faulting. Used by the
// detectors (Events.cpp) and the in-flight graph (InFlight.cpp).
#pragma once

#include "ProbeCore.h"

#include <cstddef>
#include <sys/socket.h>

namespace afunix::probe {

// Control messages within [control, control + length), walked as the kernel does (a cmsg_len that
// is too small or runs past the buffer ends the walk: the kernel answers EINVAL there). `read`
// copies bytes at an offset of the buffer and may fail (unreadable memory).
struct ControlReader {
  const unsigned char *control;
  std::size_t length;
  bool direct; // the kernel has read this buffer: plain loads; otherwise copyFromProcess
  bool read(std::size_t offset, void *to, std::size_t n) const {
    if (offset > length || n > length - offset)
      return false;
    if (direct) {
      __builtin_memcpy(to, control + offset, n);
      return true;
    }
    return copyFromProcess(to, control + offset, n);
  }
};
template <typename Visit> void walkControl(const ControlReader &reader, Visit visit) {
  for (std::size_t offset = 0; offset + sizeof(cmsghdr) <= reader.length;) {
    cmsghdr header;
    if (!reader.read(offset, &header, sizeof header))
      return;
    if (header.cmsg_len < sizeof(cmsghdr) || header.cmsg_len > reader.length - offset)
      return;
    visit(header, offset);
    offset += CMSG_ALIGN(header.cmsg_len);
  }
}
inline int fdCount(const cmsghdr &header) {
  return header.cmsg_len >= CMSG_LEN(0) ? static_cast<int>((header.cmsg_len - CMSG_LEN(0)) / sizeof(int)) : 0;
}
inline int fdAt(const ControlReader &reader, std::size_t cmsgOffset, int index) {
  int fd = -1;
  if (!reader.read(cmsgOffset + CMSG_LEN(0) + static_cast<std::size_t>(index) * sizeof(int), &fd, sizeof fd))
    return -1;
  return fd;
}

} // namespace afunix::probe
