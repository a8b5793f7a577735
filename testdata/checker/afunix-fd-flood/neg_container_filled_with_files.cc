// pos_container_filled_without_push_back.cc handing out regular files, not sockets, put into
// their containers the same ways: a file in flight is never a candidate of the unix garbage
// collector, and a send of it never waits for it. A count of one names the array handed over,
// so these files are what is sent; the socketpair ends made beside them are never sent.
#include <array>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <vector>

static bool SendWithFds(int channel, const int *fds, size_t count) {
  char byte = 'c';
  iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(int) * 4)];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * count);
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * count);
  memcpy(CMSG_DATA(c), fds, sizeof(int) * count);
  return sendmsg(channel, &msg, 0) >= 0;
}

void assigned_from_a_braced_list(int broker, int clients) {
  std::vector<int> fds;
  for (int i = 0; i < clients; ++i) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
      return;
    int file = open("/var/lib/app/data", O_RDONLY | O_CLOEXEC);
    fds.assign({file});
    SendWithFds(broker, fds.data(), fds.size());
    close(file);
    close(sv[0]);
    close(sv[1]);
  }
}

void filled_by_the_constructor(int broker, int clients) {
  for (int i = 0; i < clients; ++i) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
      return;
    int file = open("/var/lib/app/data", O_RDONLY | O_CLOEXEC);
    std::vector<int> fds(1, file);
    SendWithFds(broker, fds.data(), fds.size());
    close(file);
    close(sv[0]);
    close(sv[1]);
  }
}

void in_a_std_array(int broker, int clients) {
  for (int i = 0; i < clients; ++i) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
      return;
    int file = open("/var/lib/app/data", O_RDONLY | O_CLOEXEC);
    std::array<int, 1> fds{file};
    SendWithFds(broker, fds.data(), fds.size());
    close(file);
    close(sv[0]);
    close(sv[1]);
  }
}
