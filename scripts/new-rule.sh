#!/usr/bin/env bash
# Creates every artefact of a new rule, so none is forgotten, and says what to fill in:
#
#   scripts/new-rule.sh afunix-word-word FunctionName [credentials|fd-passing|memory-init]
#
#   rules/<id>.yaml                      the catalog entry (schema: rules/SCHEMA.md)
#   checker/lib/<FunctionName>.cpp        the rule: one function over the linked program
#   checker/lib/Rules.h                   its declaration            (a line is added)
#   checker/lib/AfunixChecks.cpp          its registration, for every front end (a line is added)
#   docs/rules/<id>.md                    the rule's page
#   testdata/checker/<id>/{pos,neg}_example.{c,cc}   positive and negative testdata
#   testdata/checker/projects/pos_<id>_across_files/ a multi-file project
#   testdata/probe/<id>.c                 the probe's program (PROBE-EXPECT)
#
# Then: build (scripts/build.sh), write the rule and the testdata until `ctest -L checker` and
# rules/test (CatalogTest: every rule has its doc page and testdata) pass. docs/new-rule.md walks
# through it.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,20p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
id="$1"
function="$2"
category="${3:-credentials}"
[[ "$id" =~ ^afunix-[a-z0-9]+(-[a-z0-9]+)+$ ]] || { echo "new-rule: '$id' is not afunix-word-word" >&2; exit 2; }
[[ "$function" =~ ^[a-z][A-Za-z0-9]*$ ]] || { echo "new-rule: '$function' is not a lowerCamel function name" >&2; exit 2; }
case "$category" in credentials|fd-passing|memory-init) ;; *) usage ;; esac
file="$(tr '[:lower:]' '[:upper:]' <<<"${function:0:1}")${function:1}"
for path in "rules/$id.yaml" "checker/lib/$file.cpp" "docs/rules/$id.md" "testdata/checker/$id"; do
  [ ! -e "$path" ] || { echo "new-rule: $path exists already" >&2; exit 2; }
done

cat > "rules/$id.yaml" <<EOF
# Rule catalog entry. Schema: rules/SCHEMA.md. Facts: ../shared/design/kernel-behaviour.md.
id: $id
title: TODO one line
severity: warning
category: $category
kernel:
  change: "TODO subject of the kernel commit"
  commit: 0000000000000000000000000000000000000000
  first_version: "0.0"
  affects_from: "0.0"
variants:
  - id: default
    message: >-
      TODO what is wrong with '{socket}', what it breaks and from which kernel, and the fix
what_breaks: |
  TODO
fix: |
  TODO
detectors:
  static: TODO what the static check looks for
doc: docs/rules/$id.md
EOF

cat > "checker/lib/$file.cpp" <<EOF
#include "Rules.h"

#include "Queries.h"

namespace afunix::rules {

using namespace analysis;

// $id: TODO what it reports, in one sentence.
void $function(RuleContext &ctx) {
  const Program &P = ctx.P;
  const auto *chosen = ctx.variant("default");
  if (!chosen)
    return;
  // TODO: a query over the linked program's facts (Program.h, Queries.h), e.g.
  // for (const facts::OptionSet &option : P.options) { ... ctx.report(option.site, *chosen, {...}); }
  (void)P;
}

} // namespace afunix::rules
EOF

python3 - "$id" "$function" <<'PY'
import sys
rule, function = sys.argv[1], sys.argv[2]
path = "checker/lib/Rules.h"
text = open(path).read()
anchor = "\n// Notes shared by the credential rules"
text = text.replace(anchor, f"\n// {rule}: TODO.\nvoid {function}(analysis::RuleContext &context);\n" + anchor, 1)
open(path, "w").write(text)
path = "checker/lib/AfunixChecks.cpp"
text = open(path).read()
anchor = "  };\n  return kRules;"
text = text.replace(anchor, f'      {{"{rule}", &{function}}},\n' + anchor, 1)
open(path, "w").write(text)
PY

cat > "docs/rules/$id.md" <<EOF
# $id

TODO: what breaks, on which kernels (../../shared/design/kernel-behaviour.md), what the checker
reports, what it does not (and why), how to fix it, how to suppress it
(\`// NOLINT($id)\`), and what the runtime probe sees.
EOF

mkdir -p "testdata/checker/$id" "testdata/checker/projects/pos_${id#afunix-}_across_files"
for kind in pos neg; do
  for ext in c cc; do
    marker=""
    [ "$kind" = pos ] && marker=" // EXPECT: $id"
    cat > "testdata/checker/$id/${kind}_example.$ext" <<EOF
// TODO: the scenario in one or two sentences.
#include <sys/socket.h>

int example(void) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);$marker
  return fd;
}
EOF
  done
done
project="testdata/checker/projects/pos_${id#afunix-}_across_files"
cat > "$project/project.yaml" <<EOF
# TODO: the scenario across files, and why each file alone shows nothing.
single_tu_findings: 0
EOF
cat > "$project/main.c" <<EOF
#include <sys/socket.h>
int example(void) { return socket(AF_UNIX, SOCK_STREAM, 0); } // EXPECT: $id
EOF

cat > "testdata/probe/$id.c" <<EOF
// PROBE-EXPECT: $id
// TODO: a program that makes the kernel show the problem at run time.
int main(void) { return 0; }
EOF

echo "new-rule: created the artefacts of $id; now fill in every TODO:"
git status --short -- rules checker docs testdata 2>/dev/null || true
