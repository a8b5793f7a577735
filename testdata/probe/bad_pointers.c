// Calls the kernel refuses with EFAULT or EINVAL because of the program's own bad pointers and
// lengths. Under the probe they must fail exactly the same way, never crash: recvmsg()/recvmmsg()
// with NULL or unmapped message vectors, a sendmsg() whose cmsg_len runs past its control buffer
// (the buffer ends at an unmapped page, so reading past it faults), execve() and posix_spawn()
// with an environment that points at unmapped memory.
// PROBE-EXPECT: none
#include "probe_util.h"
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>

static const char *name(int err) {
  return err == EFAULT ? "EFAULT" : err == EINVAL ? "EINVAL" : err == 0 ? "0" : strerror(err);
}

int main(int argc, char **argv) {
  (void)argc;
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
  // Two pages: the second is made inaccessible; "unmapped" points into it.
  long page = sysconf(_SC_PAGESIZE);
  char *area = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(area != MAP_FAILED);
  CHECK(mprotect(area + page, (size_t)page, PROT_NONE) == 0);
  void *unmapped = area + page;

  CHECK(write(sv[0], "x", 1) == 1);
  errno = 0;
  printf("recvmsg(NULL msg): %zd %s\n", recvmsg(sv[1], NULL, MSG_DONTWAIT), name(errno));
  errno = 0;
  printf("recvmsg(unmapped msg): %zd %s\n", recvmsg(sv[1], unmapped, MSG_DONTWAIT), name(errno));
  errno = 0;
  printf("recvmmsg(NULL vector): %d %s\n", recvmmsg(sv[1], NULL, 1, MSG_DONTWAIT, NULL), name(errno));
  errno = 0;
  printf("recvmmsg(unmapped vector): %d %s\n", recvmmsg(sv[1], unmapped, 4, MSG_DONTWAIT, NULL), name(errno));

  // A cmsg that claims 300 fds in a 24-byte control buffer placed right before the unmapped page.
  char byte = 'b';
  struct iovec iov = {&byte, 1};
  size_t space = CMSG_SPACE(sizeof(int));
  struct cmsghdr *c = (struct cmsghdr *)(area + page - space);
  memset(c, 0, space);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * 300); // NOLINT(afunix-fd-limit): the kernel's EINVAL is the scenario
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = c;
  msg.msg_controllen = space;
  errno = 0;
  printf("sendmsg(cmsg_len past the buffer): %zd %s\n", sendmsg(sv[0], &msg, 0), name(errno));
  errno = 0;
  printf("sendmsg(unmapped msg): %zd %s\n", sendmsg(sv[0], unmapped, 0), name(errno));

  char *args[] = {argv[0], NULL};
  errno = 0;
  printf("execve(unmapped envp): %d %s\n", execve("/proc/self/exe", args, unmapped), name(errno));
  char *bad_entry[] = {"A=1", unmapped, NULL};
  errno = 0;
  printf("execve(envp with an unmapped string): %d %s\n", execve("/proc/self/exe", args, bad_entry),
         name(errno));
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || \
    (defined(__has_feature) && (__has_feature(address_sanitizer) || __has_feature(thread_sanitizer)))
  // The sanitizers' own posix_spawn interceptor reads envp before the kernel can refuse it.
  printf("posix_spawn(unmapped envp): not tried under a sanitizer\n");
#else
  pid_t child;
  int r = posix_spawn(&child, "/proc/self/exe", NULL, NULL, args, unmapped);
  if (r == 0)
    waitpid(child, NULL, 0);
  printf("posix_spawn(unmapped envp): %s\n", r ? name(r) : "spawned");
#endif
  close(sv[0]);
  close(sv[1]);
  return 0;
}
