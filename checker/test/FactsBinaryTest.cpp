// The binary encoding of facts (FactsBinary.h), on the facts of every testdata file: a unit
// survives the round trip unchanged (its JSON is the same, and so is its encoding), and damaged,
// truncated or foreign bytes are refused, never half-used.
#include "Extract.h"
#include "FactsBinary.h"
#include "FactsIO.h"

#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace afunix;

namespace {

// Every testdata file's facts: the single-file cases and the projects' sources.
std::vector<facts::Unit> testdataUnits() {
  std::vector<facts::Unit> units;
  std::string root = std::string(AFUNIX_SOURCE_DIR) + "/testdata/checker";
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef path = it->path();
    bool cxx = path.ends_with(".cc");
    if (!cxx && !path.ends_with(".c"))
      continue;
    if (path.contains("/cli/"))
      continue; // bad-input fixtures of the CLI tests
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> code = llvm::MemoryBuffer::getFile(path);
    if (!code)
      continue;
    std::vector<std::string> args = {cxx ? "-std=c++17" : "-std=gnu11",
                                     "-I" + llvm::sys::path::parent_path(path).str(),
                                     "-resource-dir=" AFUNIX_CLANG_RESOURCE_DIR, "-w"};
    std::unique_ptr<clang::ASTUnit> ast =
        clang::tooling::buildASTFromCodeWithArgs((*code)->getBuffer(), args, path);
    if (!ast)
      continue;
    units.push_back(analysis::extractFacts(ast->getASTContext(), {}));
  }
  return units;
}

const std::vector<facts::Unit> &units() {
  static const std::vector<facts::Unit> all = testdataUnits();
  return all;
}

std::string refused(llvm::StringRef bytes) {
  llvm::Expected<facts::Unit> unit = facts::decodeUnit(bytes);
  if (unit)
    return "";
  return llvm::toString(unit.takeError());
}

} // namespace

TEST(FactsBinary, EveryTestdataUnitSurvivesTheRoundTrip) {
  ASSERT_GT(units().size(), 100u);
  std::size_t withFacts = 0;
  for (const facts::Unit &unit : units()) {
    std::string bytes = facts::encodeUnit(unit);
    llvm::Expected<facts::Unit> back = facts::decodeUnit(bytes);
    ASSERT_TRUE(static_cast<bool>(back)) << unit.mainFile << ": " << llvm::toString(back.takeError());
    // Every field the JSON form knows comes back, and nothing else changes.
    EXPECT_EQ(facts::writeUnit(*back), facts::writeUnit(unit)) << unit.mainFile;
    EXPECT_EQ(facts::encodeUnit(*back), bytes) << unit.mainFile;
    EXPECT_EQ(facts::checkUnit(unit), "") << unit.mainFile;
    withFacts += !unit.creates.empty() && !unit.calls.empty();
  }
  EXPECT_GT(withFacts, 50u);
}

TEST(FactsBinary, IsSmallerThanJson) {
  std::size_t binary = 0, json = 0;
  for (const facts::Unit &unit : units()) {
    binary += facts::encodeUnit(unit).size();
    json += facts::writeUnit(unit).size();
  }
  EXPECT_LT(binary * 2, json);
}

TEST(FactsBinary, TruncatedBytesAreRefused) {
  for (const facts::Unit &unit : units()) {
    std::string bytes = facts::encodeUnit(unit);
    // Every length up to 2 KiB (all of most units), then a stride as the damage test walks, and
    // one byte short: each length costs a decode, and a large unit's every length is quadratic.
    for (std::size_t size = 0; size < bytes.size(); size += size < 2048 ? 1 : 1 + size / 64)
      ASSERT_NE(refused(llvm::StringRef(bytes).take_front(size)), "")
          << unit.mainFile << " truncated to " << size << " of " << bytes.size();
    ASSERT_NE(refused(llvm::StringRef(bytes).drop_back()), "") << unit.mainFile;
    EXPECT_NE(refused(bytes + '\0').find("bytes after the end"), std::string::npos);
  }
}

TEST(FactsBinary, DamagedBytesAreRefusedOrStillValid) {
  // Flipping any byte either makes the encoding refused or gives a unit that satisfies every
  // rule (a changed name, a changed line number): never one with an index outside its table.
  std::size_t refusals = 0, flips = 0;
  for (const facts::Unit &unit : units()) {
    std::string bytes = facts::encodeUnit(unit);
    for (std::size_t at = 0; at < bytes.size(); at += 1 + at / 64) {
      for (unsigned char mask : {0x01, 0x80, 0xff}) {
        std::string damaged = bytes;
        damaged[at] = static_cast<char>(damaged[at] ^ mask);
        llvm::Expected<facts::Unit> decoded = facts::decodeUnit(damaged);
        ++flips;
        if (!decoded) {
          llvm::consumeError(decoded.takeError());
          ++refusals;
          continue;
        }
        ASSERT_EQ(facts::checkUnit(*decoded), "") << unit.mainFile << " byte " << at;
      }
    }
  }
  EXPECT_GT(refusals, flips / 20); // a flipped byte inside a string or number is still a unit
}

TEST(FactsBinary, ForeignLayoutOrVersionIsRefusedWithWhatItIs) {
  const facts::Unit &unit = units().front();
  std::string bytes = facts::encodeUnit(unit);
  // A later layout and format version (one byte each, as varints below 128).
  int otherLayout = facts::kBinaryLayoutVersion + 1, otherVersion = facts::kFormatVersion + 1;
  std::string layout = bytes;
  layout[4] = static_cast<char>(otherLayout); // the layout version, right after the magic
  EXPECT_NE(refused(layout).find("layout " + std::to_string(otherLayout)), std::string::npos) << refused(layout);
  std::string version = bytes;
  version[5] = static_cast<char>(otherVersion); // the facts format version
  EXPECT_NE(refused(version).find("format version " + std::to_string(otherVersion)), std::string::npos)
      << refused(version);
  EXPECT_NE(refused("{\"format\":\"afunix-facts\"}").find("not binary facts"), std::string::npos);
}

TEST(FactsBinary, CheckUnitNamesWhatIsWrong) {
  facts::Unit unit;
  unit.places.push_back({"p:f#0", facts::PlaceKind::Param, "fd", facts::kNone, 0, facts::kNone});
  unit.flows.push_back({0, 7, facts::FlowKind::Argument, facts::kNone, true});
  EXPECT_EQ(facts::checkUnit(unit), "flows: to does not name an entry");
  unit.flows.back().to = 0;
  EXPECT_EQ(facts::checkUnit(unit), "");
  unit.receives.push_back({0, facts::kNone, facts::ReceiveKind::Recvmsg});
  EXPECT_EQ(facts::checkUnit(unit), "receives: site is missing");
}
