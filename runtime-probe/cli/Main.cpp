#include "Commands.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace {

constexpr int kExitOutput = 74; // output could not be written (sysexits EX_IOERR)

constexpr const char *kUsage =
    "usage: afunix-probe COMMAND [OPTIONS]\n"
    "\n"
    "Commands:\n"
    "  run [--out DIR] [--format text|json] [--fix passcred] -- CMD ARGS...\n"
    "      run a program with libafunix-probe.so preloaded and report what its AF_UNIX\n"
    "      calls really did (credentials delivered, fds in flight, call latency)\n"
    "  kernel [--format text|json] [--quick] [--timeout SECONDS] [--gc-inflight N] [--no-netns]\n"
    "      test the running kernel's AF_UNIX behaviour with real sockets\n"
    "  bench hackbench [-g N] [-l N] [-T|-P] [--passcred] | gc [--inflight N] [--cycles] |\n"
    "        meminit [--sizes ...]\n"
    "      reproduce the kernel patches' measurements on this kernel\n"
    "\n"
    "Run 'afunix-probe COMMAND --help' for a command's options.\n"
    "Exit status: 'run' exits with the program's status; 'kernel': 0 ran, 3 an experiment failed or\n"
    "timed out, 4 fds or processes left behind; 'bench': 0 ran, 1 could not run; 2 usage error.\n";

// What a command printed on stdout must have arrived: a closed pipe or a full disk is reported,
// with its own exit status, never a silent 0.
int finish(int status) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    int err = errno;
    std::fprintf(stderr, "afunix-probe: error writing the output: %s\n", std::strerror(err ? err : EIO));
    return kExitOutput;
  }
  return status;
}

} // namespace

int main(int argc, char **argv) {
  // EPIPE instead of death by SIGPIPE, so the error is reported. Not for `run`: an ignored
  // signal stays ignored across exec, and the program must get the default.
  if (argc < 2 || std::strcmp(argv[1], "run") != 0)
    std::signal(SIGPIPE, SIG_IGN);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return finish(argc < 2 ? 2 : 0);
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("afunix-probe %s\n", AFUNIX_VERSION);
    return finish(0);
  }
  const char *command = argv[1];
  if (!std::strcmp(command, "run"))
    return finish(afunix::probe::runCommand(argc - 1, argv + 1));
  if (!std::strcmp(command, "kernel"))
    return finish(afunix::probe::kernelCommand(argc - 1, argv + 1));
  if (!std::strcmp(command, "bench"))
    return finish(afunix::probe::benchCommand(argc - 1, argv + 1));
  std::fprintf(stderr, "afunix-probe: unknown command '%s'\n\n%s", command, kUsage);
  return 2;
}
