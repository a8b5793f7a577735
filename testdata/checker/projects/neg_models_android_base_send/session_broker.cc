// The broker of pos_models_android_base_send, written so that nothing waits in flight.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <vector>

#include <android-base/cmsg.h>
#include <android-base/unique_fd.h>

#include "ipc_log.h"

using android::base::SendFileDescriptors;
using android::base::SendFileDescriptorVector;
using android::base::unique_fd;

namespace broker {

// The worker answers each client it takes before the next is sent.
void DispatchClients(const sockaddr_un &address, int worker) {
  unique_fd listener(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (bind(listener.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0 ||
      listen(listener.get(), 8) != 0)
    return;
  for (;;) {
    unique_fd client(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (client.get() < 0)
      continue;
    char tag = 'C';
    if (SendFileDescriptors(worker, &tag, 1, client.get()) != 1)
      return;
    char taken;
    if (read(worker, &taken, 1) != 1)
      return;
  }
}

// Subscribers get a log file each: not a socket, so nothing for the garbage collector.
void Subscribe(int client, int subscribers) {
  for (int i = 0; i < subscribers; ++i) {
    int log = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (log < 0)
      return;
    std::vector<int> fds = {log};
    char tag = 'E';
    SendFileDescriptorVector(client, &tag, 1, fds);
    close(log);
  }
}

// ipc::SendFileDescriptors is the project's (declared in its own header): not android-base's.
void Trace(int client, int n) {
  for (int i = 0; i < n; ++i) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
      return;
    ipc::SendFileDescriptors(client, "t", 1, pair[1]);
    close(pair[0]);
    close(pair[1]);
  }
}

} // namespace broker
