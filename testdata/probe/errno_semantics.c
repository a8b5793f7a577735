// What the program sees must not change under the probe: return values and errno of failing
// calls (EBADF on closed fds, EINTR from a signal during a blocking recvmsg()/read()), errno left
// alone by successful calls, and a reused fd number is a new object (a pipe that takes a closed
// socket's number is not counted as a socket). The probe's counts: exactly 4 AF_UNIX writes
// (one here, two in the signal handler, one more), 2 reads and 1 recvmsg.
// PROBE-EXPECT: none
#include "probe_util.h"
#include <signal.h>
#include <sys/time.h>

static int handler_sock = -1;
static volatile sig_atomic_t handler_ran;

static void on_alarm(int sig) {
  (void)sig;
  int saved = errno;
  if (write(handler_sock, "s", 1) == 1) // an intercepted call inside a signal handler
    handler_ran = 1;
  errno = saved;
}

static const char *name(int err) {
  return err == EBADF ? "EBADF" : err == EINTR ? "EINTR" : err == 0 ? "0" : strerror(err);
}

int main(void) {
  int sv[2], other[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, other) == 0);
  handler_sock = other[0];

  errno = 4242;
  CHECK(write(sv[0], "a", 1) == 1); // AF_UNIX write 1
  printf("errno after a successful write: %d\n", errno);

  // EINTR: no SA_RESTART, a timer fires while recvmsg() and read() block.
  struct sigaction sa = {0};
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
  char buf[8];
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  char c;
  CHECK(read(sv[1], &c, 1) == 1); // drain
  struct itimerval timer = {{0, 0}, {0, 50000}};
  CHECK(setitimer(ITIMER_REAL, &timer, NULL) == 0);
  ssize_t r = recvmsg(sv[1], &msg, 0);
  printf("blocking recvmsg interrupted: %zd %s\n", r, name(errno));
  CHECK(setitimer(ITIMER_REAL, &timer, NULL) == 0); // the handler writes again
  r = read(sv[1], buf, sizeof buf);
  printf("blocking read interrupted: %zd %s, handler wrote: %d\n", r, name(errno), (int)handler_ran);

  // EBADF on closed fds, errno exactly as without the probe.
  int closed = sv[0];
  CHECK(close(closed) == 0);
  errno = 0;
  r = write(closed, "b", 1);
  printf("write on closed fd: %zd %s\n", r, name(errno));
  errno = 0;
  r = sendmsg(closed, &msg, 0);
  printf("sendmsg on closed fd: %zd %s\n", r, name(errno));
  errno = 0;
  printf("close again: %d %s\n", close(closed), name(errno));
  errno = 0;
  printf("recvmsg on fd -1: %zd %s\n", recvmsg(-1, &msg, 0), name(errno));

  // Reuse: the lowest free number goes to the pipe; its writes are not socket writes.
  int pipefd[2];
  CHECK(pipe(pipefd) == 0);
  printf("pipe reused the socket's number: %s\n", pipefd[0] == closed || pipefd[1] == closed ? "yes" : "no");
  for (int i = 0; i < 5; ++i)
    CHECK(write(pipefd[1], "p", 1) == 1);
  CHECK(read(pipefd[0], buf, 5) == 5);
  CHECK(write(other[0], "z", 1) == 1); // AF_UNIX write 4
  // dup2 of a pipe over a socket's number: writes through it are not socket writes either.
  CHECK(dup2(pipefd[1], other[1]) == other[1]);
  CHECK(write(other[1], "q", 1) == 1);
  printf("done\n");
  return 0;
}
