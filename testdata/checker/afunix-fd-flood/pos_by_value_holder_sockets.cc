// neg_by_value_holders_of_two_callers.cc with the sent payload made of fresh socketpair ends, one
// per turn, handed to the by-value holder and sent in a loop with nothing bounding what is in
// flight: the holder's member is what this call passed.
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

static void SendSockets(int channel, int rounds) {
  auto sockets = std::make_unique<Payload>();
  for (int i = 0; i < rounds; i++) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) // EXPECT-NOTE: socket created here
      return;
    sockets->fds.push_back(sv[0]);
    Holder held(std::move(sockets));
    SendFds(channel, held.get()->fds); // EXPECT: afunix-fd-flood
    sockets = std::make_unique<Payload>();
  }
}

int main() {
  int channel[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) != 0)
    return 1;
  KeepSocketPair();
  SendSockets(channel[0], 1000);
  return 0;
}
