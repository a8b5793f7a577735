// A server that checks credentials "if present" and a client that attaches them explicitly, in
// two processes: the client (a forked child) connects and sends SCM_CREDENTIALS, the server never
// enables SO_PASSCRED, so the kernel drops them. Only the two reports together show it: the
// server's recvmsg() alone is a control buffer on a socket without SO_PASSCRED (a candidate), the
// client's report says it sent credentials to the server's pid; `afunix-probe run` joins them.
// PROBE-EXPECT: afunix-creds-without-passcred
#include "probe_util.h"
#include <sys/wait.h>

static socklen_t address(struct sockaddr_un *addr, pid_t server) {
  memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                     (size_t)snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1,
                                      "afunix-probe-multiprocess-%d", (int)server));
}

static void client(pid_t server) {
  struct sockaddr_un addr;
  socklen_t len = address(&addr, server);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(fd >= 0);
  CHECK(connect(fd, (struct sockaddr *)&addr, len) == 0);
  struct ucred mine = {getpid(), getuid(), getgid()};
  char byte = 'c';
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } u;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = u.buf;
  msg.msg_controllen = sizeof u.buf;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_CREDENTIALS;
  c->cmsg_len = CMSG_LEN(sizeof mine);
  memcpy(CMSG_DATA(c), &mine, sizeof mine);
  CHECK(sendmsg(fd, &msg, 0) == 1);
  close(fd);
}

int main(void) {
  struct sockaddr_un addr;
  socklen_t len = address(&addr, getpid());
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(listener >= 0);
  CHECK(bind(listener, (struct sockaddr *)&addr, len) == 0);
  CHECK(listen(listener, 8) == 0);
  fflush(stdout);
  pid_t server = getpid();
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    client(server);
    exit(0);
  }
  int conn = accept(listener, NULL, NULL); // PROBE-SOCKET: afunix-creds-without-passcred stream accepted
  CHECK(conn >= 0);
  char data[16];
  struct ucred cred;
  if (recv_creds(conn, data, sizeof data, &cred)) // PROBE-AT: afunix-creds-without-passcred
    printf("credentials: present\n");
  else
    printf("credentials: absent, the credential check was skipped\n");
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  printf("client exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  close(conn);
  close(listener);
  return 0;
}
