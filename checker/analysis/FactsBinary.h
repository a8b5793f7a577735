// The binary encoding of one unit's facts (Facts.h): what the facts cache and shard files hold,
// where reading must be fast (the link over 10,000 units reads every unit's facts; JSON parsing
// was most of that: docs/facts-format.md, "Binary encoding"). The JSON form (FactsIO.h) stays
// the documented, human-readable file format; both encode the same data and a unit survives
// either round trip unchanged.
//
// Decoding validates as much as FactsIO's reader: the header, every length, every index against
// its table (or kNone where a fact may lack it), every enumeration, the cross-table rules (a site's
// block inside its function's CFG, ranges that end after they begin). A damaged or foreign
// encoding is refused with a message, never half-used.
#pragma once

#include "Facts.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace afunix::facts {

// Bumped whenever the layout of the encoding changes (kFormatVersion covers what the facts mean).
inline constexpr int kBinaryLayoutVersion = 10;

// Appends the encoding of `unit` to `out`.
void encodeUnit(const Unit &unit, std::string &out);
std::string encodeUnit(const Unit &unit);
llvm::Expected<Unit> decodeUnit(llvm::StringRef bytes);

// The primitives of the encoding, for containers of encoded units (the facts cache's packs, shard
// files): LEB128 varints and length-prefixed strings. The get* functions consume from `in` and
// return false (leaving `in` unspecified) when it ends too early.
void putVarint(std::string &out, std::uint64_t value);
void putString(std::string &out, llvm::StringRef value);
bool getVarint(llvm::StringRef &in, std::uint64_t &value);
bool getString(llvm::StringRef &in, llvm::StringRef &value);
// A list of strings (any container of them): its length, then each string.
template <typename Strings> void putStrings(std::string &out, const Strings &strings) {
  putVarint(out, strings.size());
  for (const auto &value : strings)
    putString(out, value);
}
bool getStrings(llvm::StringRef &in, std::vector<std::string> &strings);

// The rules every unit must satisfy (what the decoders check): empty when it does, else what is
// wrong. For units built by hand (tests, synthetic facts) and for the decoders.
std::string checkUnit(const Unit &unit);

} // namespace afunix::facts
