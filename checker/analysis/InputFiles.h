// How the tools read the files and the JSON they are given (docs/guarantees.md, "What each input
// may be"). One reader for every input file, one JSON parser with one depth limit:
//  - a file is opened without blocking (O_NONBLOCK: a FIFO with no writer does not hang the open),
//    must be a regular file once open (fstat on the descriptor read from, so a path swapped for a
//    FIFO or /dev/zero after a check is still refused), and at most a stated size: /dev/zero,
//    /dev/urandom, a FIFO or a directory named where a file is expected is refused with a
//    message, never read until memory runs out;
//  - JSON is refused when it nests deeper than kMaxJsonDepth, before anything is built from it:
//    llvm::json parses (and destroys values) recursively, and 50,000 nested brackets overflow the
//    stack. No input of the tools nests more than a dozen levels.
#pragma once

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace afunix::analysis {

// Size limits, by what a file is. Generous for what the tools write themselves (stored facts of
// 200,000 files are about 1 GB); small for what a person writes.
inline constexpr std::uint64_t kMaxConfigBytes = 16ull << 20;     // YAML configuration, .clangd
inline constexpr std::uint64_t kMaxSourceBytes = 256ull << 20;    // a source file, a service file
inline constexpr std::uint64_t kMaxJsonInputBytes = 1ull << 30;   // databases, baselines, evidence
inline constexpr std::uint64_t kMaxOwnFileBytes = 8ull << 30;     // stored facts, packs, shards

inline constexpr unsigned kMaxJsonDepth = 512;

// Reads the regular file `path` whole. nullptr and `error` ("PATH: not a regular file (a FIFO)",
// "PATH: larger than 16 MiB ...", or the system's reason) otherwise. `mayMap`: the bytes may be
// mapped rather than copied (a file nobody rewrites in place: the tools' own packs and shards).
std::unique_ptr<llvm::MemoryBuffer> readInputFile(const std::string &path, std::uint64_t limit,
                                                  std::string &error, bool mayMap = false);
// The same into a string.
bool readInputFile(const std::string &path, std::uint64_t limit, std::string &bytes,
                   std::string &error);

// Whether `path` names a regular file (symbolic links followed). Never opens it.
bool isRegularFile(const std::string &path);

// llvm::json::parse, refusing text nested deeper than kMaxJsonDepth. On failure `error` says why
// ("nested deeper than 512 levels", or the parser's message with its line and column).
std::optional<llvm::json::Value> parseJson(llvm::StringRef text, std::string &error);

} // namespace afunix::analysis
