// A range-for that binds each fd by const reference (`for (const int &fd : fds)`) and sends it
// on its own: the reference is the fd it names. A loop fills the vector with fresh socketpair
// ends and sends each, with no reply read.
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

static void send_one(int channel, int fd) {
  char byte = 0;
  iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(int))];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  (void)sendmsg(channel, &msg, 0); // EXPECT-NOTE: sent here
}

void hand_out(int broker, int clients) {
  std::vector<int> fds;
  for (int i = 0; i < clients; i++) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
      return;
    fds.push_back(sv[0]);
    close(sv[1]);
  }
  for (const int &fd : fds)
    send_one(broker, fd); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX socket 'fd' over 'broker' in a loop (through 'send_one')
}
