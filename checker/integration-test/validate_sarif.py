#!/usr/bin/env python3
"""Validates a SARIF log against the SARIF 2.1.0 JSON schema (testdata/integration), then against
what GitHub code scanning additionally needs: a tool name, rules with ids, results whose ruleIndex
points at their rule, %SRCROOT%-relative or file:// URIs, partialFingerprints.

usage: validate_sarif.py SCHEMA SARIF
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate_sarif: python3-jsonschema is missing (scripts/setup.sh installs it)")


def main(schema_path, sarif_path):
    schema = json.load(open(schema_path))
    log = json.load(open(sarif_path))
    validator = jsonschema.Draft4Validator(schema)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    for e in errors[:10]:
        print(f"{sarif_path}: schema: {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
    if errors:
        return 1
    problems = []
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        rules = driver.get("rules", [])
        if not driver.get("name"):
            problems.append("tool.driver.name is empty")
        ids = [r["id"] for r in rules]
        for r in rules:
            uri = r.get("helpUri")
            if uri is not None and not uri.startswith(("http://", "https://", "file:///")):
                problems.append(f"rule {r['id']}: helpUri is not an absolute URL")
            if r.get("name") == r["id"]:
                problems.append(f"rule {r['id']}: name equals id")
        for i, result in enumerate(run.get("results", [])):
            index = result.get("ruleIndex")
            if index is None or index >= len(ids) or ids[index] != result["ruleId"]:
                problems.append(f"results[{i}]: ruleIndex {index} is not rule {result['ruleId']}")
            if not result.get("partialFingerprints"):
                problems.append(f"results[{i}]: no partialFingerprints")
            for loc in result.get("locations", []):
                art = loc["physicalLocation"]["artifactLocation"]
                if art.get("uriBaseId") != "%SRCROOT%" and not art["uri"].startswith("file://"):
                    problems.append(f"results[{i}]: uri {art['uri']} is neither rooted nor absolute")
                if loc["physicalLocation"]["region"]["startLine"] < 1:
                    problems.append(f"results[{i}]: startLine < 1")
    for p in problems:
        print(f"{sarif_path}: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
