// A broker in the shape of an Android system service: it hands sockets to its worker and its
// subscribers with android-base's cmsg helpers, and never waits for them to be taken.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <vector>

#include <android-base/cmsg.h>
#include <android-base/unique_fd.h>

using android::base::SendFileDescriptors;
using android::base::SendFileDescriptorVector;
using android::base::unique_fd;

namespace broker {

// Each accepted client goes to the worker process, handed over as the variadic argument; the
// worker is never asked to take one before the next.
void DispatchClients(const sockaddr_un &address, int worker) {
  unique_fd listener(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (bind(listener.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0 ||
      listen(listener.get(), 8) != 0)
    return;
  for (;;) { // EXPECT-NOTE: loop here
    unique_fd client(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC)); // EXPECT-NOTE: socket created here
    if (client.get() < 0)
      continue;
    char tag = 'C';
    SendFileDescriptors(worker, &tag, 1, client.get()); // EXPECT: afunix-fd-flood
  }
}

// A batch of event channels per subscriber, handed over as a vector in one message each.
void Subscribe(int client, int subscribers) {
  for (int i = 0; i < subscribers; ++i) { // EXPECT-NOTE: loop here
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) != 0) // EXPECT-NOTE: socket created here
      return;
    std::vector<int> fds = {pair[1]};
    char tag = 'E';
    SendFileDescriptorVector(client, &tag, 1, fds); // EXPECT: afunix-fd-flood
    close(pair[1]);
  }
}

} // namespace broker
