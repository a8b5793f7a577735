// Text from outside (paths, messages, source lines) made safe to print on a terminal: control
// characters and invalid UTF-8 would otherwise reach it as escape sequences. The one escaper for
// text output and messages on stderr (JSON and SARIF escape on their own).
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>

namespace afunix::check {

// C0 controls (except tab when `keepTabs`), DEL and the C1 controls become "<U+001B>", as clang
// shows them in source lines; bytes that are not UTF-8 become "<FF>". Everything else is kept.
std::string printable(llvm::StringRef text, bool keepTabs = true);

// Valid UTF-8 for JSON: invalid bytes become U+FFFD (JSON cannot carry raw bytes; SARIF URIs keep
// them percent-encoded instead).
std::string utf8ForJson(llvm::StringRef text);

} // namespace afunix::check
