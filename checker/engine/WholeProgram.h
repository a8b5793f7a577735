// The parts of the whole-program run (WholeProgram.cpp) that the link of shards (ShardFiles.cpp)
// shares: each unit's configuration and the judging of extracted units.
#pragma once

#include "Engine.h"
#include "Extraction.h"

#include "Program.h"
#include "ProjectOptions.h"
#include "StoredFacts.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace afunix::check {

// What decides a unit's facts and its findings, from its settings (the nearest configuration).
struct UnitConfig {
  analysis::ProjectOptions project;
  std::vector<std::string> rules; // enabled rule ids
  std::string evaluation;         // rules, pedantic, target kernel: what evaluating depends on
};

// The units of one configuration share one UnitConfig (a database of 100,000 files has a handful
// of configurations): parsed once, held once. A malformed option is reported once per
// configuration, naming the first file read with it.
using UnitConfigs = std::vector<std::shared_ptr<const UnitConfig>>;
std::shared_ptr<const UnitConfig> unitConfig(const EngineOptions &options, const std::string &file);

// The extraction fingerprint of a run: the units' own when they all agree.
std::string extractionFingerprintOf(const UnitConfigs &configs);

// Everything after extraction: stored facts read and written, the link, the rules, Findings.
// `extracted[i]` is the unit of `mainFiles[i]` with configuration `configs[i]`, in database order.
// `checked` (when not empty) says which of them a partial run checks: RunResult::files holds
// their outcomes and RunResult::context the others'; findings are reported only in `scope`.
// What the link adds to the extracted units: the units of service files and, in a run with
// EngineOptions::readFacts, the stored facts of the files not extracted now.
struct LinkInputs {
  std::vector<facts::Unit> services;
  std::shared_ptr<const analysis::StoredFacts> stored;
  std::vector<const facts::Unit *> storedUnits;
  std::vector<std::string> staleFacts; // stored units left out because their files changed
};
LinkInputs gatherLinkInputs(const std::vector<std::string> &mainFiles, const std::string &fingerprint,
                            const EngineOptions &options);
// A digest of what the link adds (the units of `inputs`, in their order).
std::string linkInputsDigest(const LinkInputs &inputs);
// The units the link merges, in its order: the extracted ones, the stored ones, the services.
std::vector<const facts::Unit *> linkedUnits(const std::vector<ExtractedUnit> &extracted,
                                             const LinkInputs &inputs);

// `inputs`: gathered already (else here); `prelinked`: the link of linkedUnits(extracted, inputs)
// made already (the prefilter's last round), judged as it is.
RunResult judgeUnits(std::vector<ExtractedUnit> &extracted, const std::vector<std::string> &mainFiles,
                     const UnitConfigs &configs, bool anyRule,
                     const EngineOptions &options, const std::vector<bool> &checked = {},
                     std::optional<std::set<std::string>> scope = std::nullopt,
                     const LinkInputs *inputs = nullptr,
                     std::unique_ptr<analysis::Program> prelinked = nullptr);

} // namespace afunix::check
