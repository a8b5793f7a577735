// Sharded runs: `afunix-check -p BUILD --shard K/N` extracts one slice of the database and writes
// its facts to a shard directory; `afunix-check link DIR...` reads every slice and judges them as
// one run over the whole database would (docs/guide-ci.md, docs/facts-format.md "Shard files").
//
// The slices: the database's files sorted by path, file i (from 0) in slice i mod N + 1, so the
// slices are about equal in size and the same whatever order the database lists its files in.
// A shard file records which database it was cut from (a digest of its files in database order),
// the slice, the checker build and the project options (extraction fingerprint), and each unit's
// place in the database: the link refuses slices that do not belong together (another database,
// checker or options, a slice missing or given twice) and orders the units as the database does,
// so its findings are byte-identical to one run's. With EngineOptions::linkSeveralDatabases the
// link takes several databases' slices (each database whole) as one program, the databases in the
// order of their first file's path. A shard file carries a checksum and its facts
// are validated as they are decoded (FactsBinary.h), each when the link merges it (or all first,
// when the link must read them before it links): a damaged one ends the link with an error, and
// no finding is reported from the facts before it.
#pragma once

#include "CompileDb.h"
#include "Engine.h"
#include "Extraction.h"

#include <string>
#include <vector>

namespace afunix::check {

struct ShardJob {
  std::size_t job; // index into the database's jobs
};

// The jobs of slice `spec.index` of `spec.count`, in database order.
std::vector<ShardJob> sliceOf(const std::vector<CompileJob> &jobs, const ShardSpec &spec);

// Writes the slice's facts into spec.directory (created when missing; the file replaced
// atomically). False and `error` on failure.
bool writeShard(const ShardSpec &spec, const std::vector<CompileJob> &allJobs,
                const std::vector<ShardJob> &slice, const std::vector<ExtractedUnit> &units,
                const std::string &fingerprint, bool relativePaths, std::string &error);

// The shard files a path names: the file itself, or every shard file in a directory.
std::vector<std::string> shardFilesIn(const std::string &path);

inline constexpr const char *kShardExtension = ".afxs";

} // namespace afunix::check
