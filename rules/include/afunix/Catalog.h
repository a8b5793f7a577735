// Loader and validator for the rule catalog (rules/*.yaml). Used at build time to generate the
// compiled-in catalog (afunix/RuleCatalog.h), by tests, and by tools that read a rules directory.
// yaml-cpp exceptions never leave this interface: every problem becomes a CatalogError.
#pragma once

#include <string>
#include <vector>

namespace afunix::rules {

struct LaterChange {
  std::string version;
  std::string commit;
  std::string change;
};

struct Variant {
  std::string id;
  std::string since;  // first kernel the variant applies to; empty = every kernel
  std::string until;  // first kernel it no longer applies to; empty = open
  std::string message; // may hold {placeholder}s filled in by the detector
  std::string severity; // error | warning | note; empty = the rule's
  // The `afunix-probe kernel` experiments that show on a running kernel the consequence the
  // message claims (keys of afunix/kernel/ExperimentRegistry.h); at least one.
  std::vector<std::string> experiments;
};

struct Rule {
  std::string id;
  std::string title;
  std::string severity; // error | warning | note
  std::string category; // credentials | fd-passing | memory-init
  std::string change;   // kernel.change
  std::string commit;
  std::string firstVersion;
  std::string affectsFrom; // first kernel on which the rule matters
  std::vector<LaterChange> later;
  std::vector<Variant> variants;
  std::string whatBreaks;
  std::string fix;
  std::string staticDetector;  // empty: no static check
  std::string runtimeDetector; // empty: no runtime detection
  std::string doc;
  std::string securitySeverity; // "" or "0.0".."10.0": the rule's check fails open
  std::string sourceFile;
};

struct CatalogError {
  std::string file;
  int line = 0;   // 1-based; 0 when the whole file is at fault
  int column = 0; // 1-based
  std::string field;
  std::string message;
  // "file:line:col: field 'x': message", the shape editors and CI logs link to.
  std::string str() const;
};

// Parses one rule from YAML text; `fileName` is used in errors and to check the id.
bool parseRule(const std::string &yamlText, const std::string &fileName, Rule &out,
               std::vector<CatalogError> &errors);
bool loadRuleFile(const std::string &path, Rule &out, std::vector<CatalogError> &errors);
// Loads every *.yaml in `dir`, sorted by id; also checks that ids are unique.
bool loadCatalogDir(const std::string &dir, std::vector<Rule> &out,
                    std::vector<CatalogError> &errors);

// Names of the {placeholders} in a message, in order of first appearance.
std::vector<std::string> placeholders(const std::string &message);

} // namespace afunix::rules
