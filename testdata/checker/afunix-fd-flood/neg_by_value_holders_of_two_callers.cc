// Two functions hand a payload to the same constructor by value (Holder(std::unique_ptr<Payload>)
// moves it into a member). One payload holds socketpair ends and is never sent; the other holds
// memfd buffers, sent in a loop. Each call stores its own caller's payload: the buffers are not
// AF_UNIX sockets, so nothing is reported. (Storing the parameter for every call, as every
// caller's payload, would make the buffers sockets: libcamera's IPC payloads did.)
#include <memory>
#include <vector>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <string.h>

struct Payload {
  std::vector<int> fds;
};

class Holder {
public:
  explicit Holder(std::unique_ptr<Payload> payload) : payload_(std::move(payload)) {}
  Payload *get() { return payload_.get(); }

private:
  std::unique_ptr<Payload> payload_;
};

static bool SendFds(int channel, const std::vector<int> &fds) {
  char byte = 0;
  iovec iov = {&byte, 1};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  return sendmsg(channel, &msg, 0) == 1;
}

static int KeepSocketPair() {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return -1;
  auto sockets = std::make_unique<Payload>();
  sockets->fds.push_back(sv[0]);
  sockets->fds.push_back(sv[1]);
  Holder kept(std::move(sockets));
  return static_cast<int>(kept.get()->fds.size());
}

static void SendBuffers(int channel, int rounds) {
  auto buffers = std::make_unique<Payload>();
  buffers->fds.push_back(memfd_create("frame", MFD_CLOEXEC));
  Holder held(std::move(buffers));
  for (int i = 0; i < rounds; i++)
    SendFds(channel, held.get()->fds);
}

int main() {
  int channel[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) != 0)
    return 1;
  KeepSocketPair();
  SendBuffers(channel[0], 1000);
  return 0;
}
