// A lambda with a loop of its own sends the message of the function around it and waits for the
// peer's one-byte acknowledgement after each send: at most one socket is in flight. (The send is
// left in the lambda: the receive that acknowledges it is the lambda's too.)
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

static void SendRepeatedly(int over, int fd) {
  char byte = 0;
  alignas(cmsghdr) char buf[CMSG_SPACE(sizeof(int))];
  iovec iov{};
  iov.iov_base = &byte;
  iov.iov_len = 1;
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = buf;
  msg.msg_controllen = sizeof buf;
  cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  auto run = [&] {
    for (int i = 0; i < 100000; i++) {
      if (sendmsg(over, &msg, 0) != 1)
        return;
      char ack;
      if (recv(over, &ack, 1, 0) != 1)
        return;
    }
  };
  run();
}

int main() {
  int channel[2], pair[2];
  socketpair(AF_UNIX, SOCK_SEQPACKET, 0, channel);
  socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
  SendRepeatedly(channel[0], pair[1]);
}
