#include "afunix/kernel/Hackbench.h"

#include "Sockets.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "afunix/kernel/Experiment.h"

namespace afunix::kernel {

namespace {

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct Shared {
  const HackbenchOptions *options;
  int readyOut; // each worker writes one byte when set up
  int wakeIn;   // becomes readable when all may start
};

struct Worker {
  Shared *shared;
  bool sender;
  int in = -1;              // receiver: read end
  std::vector<int> outs;    // sender: the group's write ends
};

void waitForStart(const Shared &s) {
  char byte = 'r';
  (void)!write(s.readyOut, &byte, 1);
  pollfd p{s.wakeIn, POLLIN, 0};
  while (poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
}

bool runWorker(const Worker &w) {
  const HackbenchOptions &o = *w.shared->options;
  std::vector<char> data(static_cast<std::size_t>(o.datasize), 'h');
  waitForStart(*w.shared);
  if (w.sender) {
    for (int i = 0; i < o.loops; ++i)
      for (int fd : w.outs) {
        int done = 0;
        while (done < o.datasize) {
          ssize_t n = write(fd, data.data() + done, static_cast<std::size_t>(o.datasize - done));
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            return false;
          done += static_cast<int>(n);
        }
      }
    return true;
  }
  const long packets = static_cast<long>(o.loops) * static_cast<long>(o.fdsPerGroup);
  for (long i = 0; i < packets; ++i) {
    int done = 0;
    while (done < o.datasize) {
      ssize_t n = read(w.in, data.data() + done, static_cast<std::size_t>(o.datasize - done));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return false;
      done += static_cast<int>(n);
    }
  }
  return true;
}

void *threadMain(void *arg) {
  return reinterpret_cast<void *>(static_cast<intptr_t>(runWorker(*static_cast<Worker *>(arg))));
}

} // namespace

namespace {
double cpuOf(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}
} // namespace

double runHackbench(const HackbenchOptions &o, std::string &error, double *cpuSeconds) {
  if (o.groups < 1 || o.loops < 1 || o.fdsPerGroup < 1 || o.datasize < 1) {
    error = "groups, loops, fds and datasize must be positive";
    return -1;
  }
  const long fdsNeeded = 2L * o.groups * o.fdsPerGroup + 64;
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  if (static_cast<long>(lim.rlim_cur) < fdsNeeded) {
    lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, static_cast<rlim_t>(fdsNeeded));
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  int ready[2], wake[2];
  if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(wake, O_CLOEXEC) != 0) {
    error = "pipe2: " + errnoName(errno);
    return -1;
  }
  Shared shared{&o, ready[1], wake[0]};
  std::vector<Worker> workers;
  std::vector<int> socketFds;
  workers.reserve(static_cast<std::size_t>(o.groups) * 2 * static_cast<std::size_t>(o.fdsPerGroup));
  for (int g = 0; g < o.groups && error.empty(); ++g) {
    Worker sender{&shared, true, -1, {}};
    for (int i = 0; i < o.fdsPerGroup; ++i) {
      int sv[2];
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        error = "socketpair: " + errnoName(errno);
        break;
      }
      socketFds.push_back(sv[0]);
      socketFds.push_back(sv[1]);
      if (o.passcred) {
        int one = 1;
        setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
        setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
      }
      workers.push_back(Worker{&shared, false, sv[0], {}});
      sender.outs.push_back(sv[1]);
    }
    for (int i = 0; i < o.fdsPerGroup && error.empty(); ++i)
      workers.push_back(sender);
  }
  std::vector<pthread_t> threads;
  std::vector<pid_t> children;
  if (error.empty()) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, std::max<std::size_t>(PTHREAD_STACK_MIN, 256 * 1024));
    for (Worker &w : workers) {
      if (o.threads) {
        pthread_t t;
        int rc = pthread_create(&t, &attr, threadMain, &w);
        if (rc != 0) {
          error = "pthread_create: " + errnoName(rc);
          break;
        }
        threads.push_back(t);
      } else {
        pid_t pid = fork();
        if (pid < 0) {
          error = "fork: " + errnoName(errno);
          break;
        }
        if (pid == 0) {
          prctl(PR_SET_PDEATHSIG, SIGKILL);
          // Keep only this worker's sockets, as hackbench's children do: otherwise every exit
          // would tear down every socket's reference inside the timed region.
          for (int fd : socketFds)
            if (fd != w.in && std::find(w.outs.begin(), w.outs.end(), fd) == w.outs.end())
              close(fd);
          close(ready[0]);
          close(wake[1]);
          _exit(runWorker(w) ? 0 : 1);
        }
        children.push_back(pid);
      }
    }
    pthread_attr_destroy(&attr);
  }
  // Wait until every started worker is set up, then release them all at once.
  std::size_t started = o.threads ? threads.size() : children.size();
  for (std::size_t got = 0; got < started;) {
    char buf[256];
    ssize_t n = read(ready[0], buf, std::min(sizeof buf, started - got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += static_cast<std::size_t>(n);
  }
  if (!error.empty()) {
    // Workers that did start would block forever on their peers: stop them.
    for (pid_t pid : children)
      kill(pid, SIGKILL);
    signal(SIGPIPE, SIG_IGN); // started sender threads now write to shut-down sockets
    for (int fd : socketFds)
      shutdown(fd, SHUT_RDWR);
  }
  const int who = o.threads ? RUSAGE_SELF : RUSAGE_CHILDREN;
  const double cpuStart = cpuOf(who);
  double start = now();
  char go = 'g';
  (void)!write(wake[1], &go, 1);
  bool ok = true;
  for (pthread_t t : threads) {
    void *result = nullptr;
    pthread_join(t, &result);
    ok = ok && result != nullptr;
  }
  for (pid_t pid : children) {
    int status = waitForChild(pid);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  double elapsed = now() - start;
  if (cpuSeconds)
    *cpuSeconds = cpuOf(who) - cpuStart;
  for (int fd : socketFds)
    close(fd);
  for (int fd : {ready[0], ready[1], wake[0], wake[1]})
    close(fd);
  if (!error.empty())
    return -1;
  if (!ok) {
    error = "a worker's read or write failed";
    return -1;
  }
  return elapsed;
}

ThroughputResult measureThroughput(int socketType, std::size_t size, double seconds) {
  ThroughputResult r;
  r.socketType = socketType;
  r.size = size;
  int sv[2];
  if (socketpair(AF_UNIX, socketType | SOCK_CLOEXEC, 0, sv) != 0) {
    r.error = "socketpair: " + errnoName(errno);
    return r;
  }
  if (socketType == SOCK_DGRAM) {
    // A datagram must fit the send buffer; ask for room (capped by net.core.wmem_max).
    int want = static_cast<int>(size * 4 + 4096);
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &want, sizeof want);
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &want, sizeof want);
  }
  std::atomic<bool> stop{false};
  std::atomic<long long> received{0}, receivedBytes{0};
  std::string sendError;
  std::vector<char> out(size, 's');
  // Probe once: a datagram larger than the socket allows fails with EMSGSIZE.
  if (socketType == SOCK_DGRAM && send(sv[0], out.data(), size, MSG_DONTWAIT) < 0 &&
      errno != EAGAIN) {
    r.error = "send of " + std::to_string(size) + " bytes: " + errnoName(errno);
    close(sv[0]);
    close(sv[1]);
    return r;
  }
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  double start = now();
  std::thread receiver([&] {
    std::vector<char> in(std::max<std::size_t>(size, 65536));
    pollfd p{sv[1], POLLIN, 0};
    while (!stop.load(std::memory_order_relaxed)) {
      if (poll(&p, 1, 50) <= 0)
        continue;
      ssize_t n = recv(sv[1], in.data(), socketType == SOCK_STREAM ? in.size() : size,
                       MSG_DONTWAIT);
      if (n > 0) {
        receivedBytes.fetch_add(n, std::memory_order_relaxed);
        received.fetch_add(1, std::memory_order_relaxed);
      }
    }
  });
  std::thread sender([&] {
    pollfd p{sv[0], POLLOUT, 0};
    while (!stop.load(std::memory_order_relaxed)) {
      ssize_t n = send(sv[0], out.data(), size, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0 && errno == EAGAIN) {
        poll(&p, 1, 50);
        continue;
      }
      if (n < 0 && errno != EINTR) {
        sendError = "send: " + errnoName(errno);
        return;
      }
    }
  });
  struct timespec pause{static_cast<time_t>(seconds),
                        static_cast<long>((seconds - static_cast<double>(static_cast<time_t>(
                                                         seconds))) * 1e9)};
  nanosleep(&pause, nullptr);
  long long bytes = receivedBytes.load();
  long long messages = received.load();
  double elapsed = now() - start;
  getrusage(RUSAGE_SELF, &after);
  stop = true;
  sender.join();
  receiver.join();
  close(sv[0]);
  close(sv[1]);
  r.error = sendError;
  r.seconds = elapsed;
  // Stream reads coalesce: count messages as bytes / size so both types compare.
  double msgs = socketType == SOCK_STREAM ? static_cast<double>(bytes) / static_cast<double>(size)
                                          : static_cast<double>(messages);
  r.messagesPerSecond = msgs / elapsed;
  r.mibPerSecond = static_cast<double>(bytes) / elapsed / (1024.0 * 1024.0);
  auto ns = [](const timeval &a, const timeval &b) {
    return (static_cast<double>(b.tv_sec - a.tv_sec) * 1e6 +
            static_cast<double>(b.tv_usec - a.tv_usec)) * 1e3;
  };
  if (msgs > 0) {
    r.sysNsPerMessage = ns(before.ru_stime, after.ru_stime) / msgs;
    r.userNsPerMessage = ns(before.ru_utime, after.ru_utime) / msgs;
  }
  return r;
}

} // namespace afunix::kernel
