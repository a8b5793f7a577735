// How the tools write files a user owns. Two rules, stated in docs/guarantees.md:
//  - an output file (--write-baseline, --export-fixes) is created or replaced whole, through a
//    new temporary file renamed over it; a path that is a symlink, FIFO, device, socket or
//    directory is refused, never followed or replaced;
//  - a source file (--fix) is edited in place (same inode: hard links, owner, mode and a symlink
//    pointing at it stay), only when it still has exactly the bytes the analysis read and is
//    writable by its mode; otherwise it is left alone and the reason is reported.
#pragma once

#include "Digest.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace afunix::check {

// A fingerprint of file contents (SHA-1, hex): what Edit::baseDigest holds (one definition, the
// analysis's: facts files record the same digest).
using analysis::contentDigest;

// Whether `path` may be written by writeFileReplacing(): it does not exist, or is a regular
// file (not a symlink). `what` names the file in the message ("baseline", "fixes file").
// Front ends call it before the analysis, so a bad output path costs nothing.
bool checkOutputPath(const std::string &path, const std::string &what, std::string &error);

// Writes `contents` as `path`: a temporary file in the same directory (O_EXCL, mode 0600 until
// complete), flushed, given the replaced file's permission bits (and owner, when run as root),
// then renamed over `path` after checking again that `path` is absent or the same regular file.
// Nothing is left behind on failure.
bool writeFileReplacing(const std::string &path, llvm::StringRef contents, const std::string &what,
                        std::string &error);

// Writes one of the tool's own files (a cache pack, a shard, a note): `contents` into a unique
// `<path>.XXXXXX.tmp` beside it, renamed over `path`, so a concurrent reader sees the old file or
// the new one whole. No fsync and no owner or mode kept: losing one costs a re-extraction.
// Nothing is left behind on failure; `error` names the file and the cause.
bool writeOwnFileAtomically(const std::string &path, llvm::StringRef contents, std::string &error);

enum class InPlaceEdit {
  Written,    // the file now holds the edited bytes
  Unchanged,  // the edit produced the same bytes: nothing written
  Changed,    // the file's bytes are not those the edits were computed from: not touched
  ReadOnly,   // no write permission bit, or opening it for writing was refused: not touched
  NotRegular, // a FIFO, device, directory...: not touched
  Failed,     // an I/O error; `error` says which, and whether the file may be damaged
};

// Edits the file `path` resolves to (a symlink is followed to its target, which is edited) in
// place: reads it through one descriptor, compares contentDigest() with `expectedDigest`, and
// only then writes `edit(old bytes)` over it (space reserved first, then written and truncated).
InPlaceEdit editInPlace(const std::string &path, const std::string &expectedDigest,
                        llvm::function_ref<std::string(llvm::StringRef)> edit, std::string &error);

// The canonical path of an existing file (symlinks resolved), or `path` itself when it cannot be
// resolved. Two names of one file compare equal after this.
std::string realPathOf(const std::string &path);

} // namespace afunix::check
