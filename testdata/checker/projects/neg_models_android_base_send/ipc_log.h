// The project's own helper of the same name as android-base's: it logs what would be sent.
#pragma once
#include <cstddef>

namespace ipc {
long SendFileDescriptors(int sock, const void *data, std::size_t len, int fd);
} // namespace ipc
