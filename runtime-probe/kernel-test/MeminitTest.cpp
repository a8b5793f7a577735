// Section C: the parsers on known text, and the machine's answer against the same sources read
// by other means (zcat, dmesg) when they are there.
#include <cstdio>
#include <gtest/gtest.h>
#include <string>

#include "afunix/kernel/Experiments.h"

namespace afunix::kernel {
namespace {

std::string shell(const std::string &command) {
  std::string out;
  if (FILE *p = popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
      out.append(buf, n);
    pclose(p);
  }
  return out;
}

TEST(MeminitParsers, CommandLine) {
  int v = -1;
  EXPECT_TRUE(parseCmdlineFlag("quiet init_on_alloc=1 ro", "init_on_alloc", v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(parseCmdlineFlag("init_on_free=on init_on_free=off", "init_on_free", v));
  EXPECT_EQ(v, 0) << "the last occurrence wins";
  v = -1;
  EXPECT_FALSE(parseCmdlineFlag("quiet xinit_on_alloc=1", "init_on_alloc", v));
  EXPECT_FALSE(parseCmdlineFlag("quiet -- init_on_alloc=1", "init_on_alloc", v))
      << "words after -- belong to init";
  EXPECT_FALSE(parseCmdlineFlag("init_on_alloc=maybe", "init_on_alloc", v));
  EXPECT_EQ(v, -1);
}

TEST(MeminitParsers, Config) {
  int v = -1;
  EXPECT_TRUE(parseConfigFlag("CONFIG_A=y\nCONFIG_INIT_ON_ALLOC_DEFAULT_ON=y\n",
                              "CONFIG_INIT_ON_ALLOC_DEFAULT_ON", v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(parseConfigFlag("# CONFIG_INIT_ON_FREE_DEFAULT_ON is not set\n",
                              "CONFIG_INIT_ON_FREE_DEFAULT_ON", v));
  EXPECT_EQ(v, 0);
  EXPECT_FALSE(parseConfigFlag("CONFIG_X=y\n", "CONFIG_INIT_ON_FREE_DEFAULT_ON", v));
}

TEST(MeminitParsers, BootLogLine) {
  int a = -1, f = -1;
  EXPECT_TRUE(parseAutoInitLine("<6>[    0.1] mem auto-init: stack:all(zero), heap alloc:on, "
                                "heap free:off\n<6>next",
                                a, f));
  EXPECT_EQ(a, 1);
  EXPECT_EQ(f, 0);
  EXPECT_FALSE(parseAutoInitLine("nothing here\n", a, f));
}

TEST(Meminit, AgreesWithTheSourcesReadByOtherTools) {
  Observation o = meminitExperiment();
  // The boot log is the state in effect; `dmesg` is an independent reader of it.
  std::string dmesg = shell("dmesg 2>/dev/null | grep -m1 'mem auto-init:'");
  if (dmesg.find("heap alloc:") != std::string::npos) {
    bool alloc = dmesg.find("heap alloc:on") != std::string::npos;
    bool free = dmesg.find("heap free:on") != std::string::npos;
    EXPECT_EQ(o.get("meminit.init_on_alloc")->boolean, alloc) << dmesg;
    EXPECT_EQ(o.get("meminit.init_on_free")->boolean, free) << dmesg;
    EXPECT_EQ(o.get("meminit.source")->text, "boot log (mem auto-init line)");
    return;
  }
  std::string cmdline = shell("cat /proc/cmdline");
  std::string config = shell("zcat /proc/config.gz 2>/dev/null | grep INIT_ON_ALLOC_DEFAULT_ON");
  if (cmdline.find("init_on_alloc=") == std::string::npos && !config.empty()) {
    EXPECT_EQ(o.get("meminit.init_on_alloc")->boolean, config.find("=y") != std::string::npos);
    return;
  }
  GTEST_SKIP() << "neither dmesg nor /proc/config.gz readable here: " << o.reason;
}

} // namespace
} // namespace afunix::kernel
