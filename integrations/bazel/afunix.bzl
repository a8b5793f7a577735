"""afunix-check as a Bazel aspect (docs/guide-bazel.md).

Every C and C++ source of a cc_library, cc_binary or cc_test is extracted by its own action
(mnemonic AfunixExtract): `afunix-check --shard=1/1 --relative-paths SOURCE -- FLAGS`, with the
flags the C++ toolchain gives its compile action and the target's headers as inputs. Its output is
that file's facts (a shard directory, the format `afunix-check link` reads): Bazel caches it like
an object file and can run it remotely. At each cc_binary and cc_test, one action (AfunixLink)
links the facts of the target's whole closure, as one program, into `<name>.afunix.json`,
`.sarif` and `.txt`.

    bazel build //... --aspects=@afunix_compat//:afunix.bzl%afunix_aspect \
        --output_groups=afunix_report [--@afunix_compat//:fail_on=error] \
        [--@afunix_compat//:config=//:afunix-check.yaml]

The checker comes from the repository `@afunix_check` (its file `afunix-check`), which the
workspace defines: an installed afunix-check or a build of it (the example's WORKSPACE).
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "CPP_COMPILE_ACTION_NAME", "C_COMPILE_ACTION_NAME")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

AfunixFactsInfo = provider(
    doc = "The facts of a C/C++ target and of everything it depends on.",
    fields = {
        "shards": "depset of shard directories, one per source file",
        "sources": "depset of the sources and headers the link reads (NOLINT, line text, fix-its)",
    },
)

AfunixFlagInfo = provider(doc = "A string build setting's value.", fields = ["value"])

def _string_flag_impl(ctx):
    if ctx.build_setting_value not in ctx.attr.values:
        fail("%s: '%s' is not one of %s" % (ctx.label, ctx.build_setting_value, ctx.attr.values))
    return [AfunixFlagInfo(value = ctx.build_setting_value)]

afunix_string_flag = rule(
    implementation = _string_flag_impl,
    build_setting = config.string(flag = True),
    attrs = {"values": attr.string_list()},
)

_C_SOURCES = ["c"]
_CXX_SOURCES = ["cc", "cpp", "cxx", "c++", "C"]
_HEADERS = ["h", "hh", "hpp", "hxx", "h++", "inc", "ipp", "H"]

# The rules whose targets are programs: each gets a link of its closure.
_PROGRAM_RULES = ["cc_binary", "cc_test"]

def _files_of(ctx, attribute, extensions):
    return [
        f
        for label in getattr(ctx.rule.attr, attribute, [])
        for f in label.files.to_list()
        if f.extension in extensions
    ]

def _compile_flags(ctx, toolchain, features, compilation, source):
    """The flags of the toolchain's compile action for `source`, without the file and output."""
    cxx = source.extension in _CXX_SOURCES
    user_flags = list(ctx.fragments.cpp.copts)
    user_flags += ctx.fragments.cpp.cxxopts if cxx else ctx.fragments.cpp.conlyopts
    user_flags += getattr(ctx.rule.attr, "copts", [])
    defines = [compilation.defines]
    if hasattr(compilation, "local_defines"):
        defines.append(compilation.local_defines)
    variables = cc_common.create_compile_variables(
        feature_configuration = features,
        cc_toolchain = toolchain,
        user_compile_flags = user_flags,
        include_directories = compilation.includes,
        quote_include_directories = compilation.quote_includes,
        system_include_directories = compilation.system_includes,
        framework_include_directories = compilation.framework_includes,
        preprocessor_defines = depset(transitive = defines),
    )
    return cc_common.get_memory_inefficient_command_line(
        feature_configuration = features,
        action_name = CPP_COMPILE_ACTION_NAME if cxx else C_COMPILE_ACTION_NAME,
        variables = variables,
    )

def _extract(ctx, toolchain, features, compilation, config, source, index):
    facts = ctx.actions.declare_directory("%s.afunix/%d-%s" % (ctx.label.name, index, source.basename))
    args = ctx.actions.args()
    args.add("-q")
    args.add("--shard=1/1")
    args.add(facts.path, format = "--shard-dir=%s")
    args.add("--relative-paths")  # the facts hold no sandbox or worker path
    for f in config:
        args.add(f.path, format = "--config=%s")
    args.add(source.path)
    args.add("--")
    args.add_all(_compile_flags(ctx, toolchain, features, compilation, source))
    ctx.actions.run(
        executable = ctx.executable._checker,
        arguments = [args],
        inputs = depset([source] + config, transitive = [compilation.headers]),
        outputs = [facts],
        mnemonic = "AfunixExtract",
        progress_message = "afunix-check: extracting %s" % source.short_path,
    )
    return facts

# Exit statuses of afunix-check (guide-cli.md): 1 findings at or above --fail-on; 2 and above,
# bad input, files that did not parse or output not written.
_LINK = """
set -u
checker=$1 fail_on=$2 report=$3
shift 3
link() { "$checker" link --several-databases --no-service-files -q "$@"; }
status=0
link --format=json --fail-on="${fail_on/none/note}" "$@" >"$report.json" || status=$?
if [ "$status" -gt 1 ]; then exit "$status"; fi
link --format=sarif "$@" >"$report.sarif" || [ $? -eq 1 ]
link --format=text --color=never --no-show-source "$@" >"$report.txt" || [ $? -eq 1 ]
if [ "$status" -eq 1 ] && [ "$fail_on" != none ]; then
  cat "$report.txt" >&2
  exit 1
fi
"""

def _link(ctx, config, info):
    report = ctx.label.name + ".afunix"
    outputs = [ctx.actions.declare_file(report + suffix) for suffix in (".json", ".sarif", ".txt")]
    args = ctx.actions.args()
    args.add(ctx.executable._checker.path)
    args.add(ctx.attr._fail_on[AfunixFlagInfo].value)
    args.add(outputs[0].path[:-len(".json")])
    for f in config:
        args.add(f.path, format = "--config=%s")
    args.add_all(info.shards, expand_directories = False)
    ctx.actions.run_shell(
        command = _LINK,
        arguments = [args],
        inputs = depset(config, transitive = [info.shards, info.sources]),
        tools = [ctx.executable._checker],
        outputs = outputs,
        mnemonic = "AfunixLink",
        progress_message = "afunix-check: linking %s" % ctx.label,
    )
    return outputs

def _afunix_aspect_impl(target, ctx):
    if CcInfo not in target:
        return []
    deps = [
        dep[AfunixFactsInfo]
        for attribute in ("deps", "implementation_deps")
        for dep in getattr(ctx.rule.attr, attribute, [])
        if AfunixFactsInfo in dep
    ]
    compilation = target[CcInfo].compilation_context
    toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    config = ctx.attr._config.files.to_list()
    sources = _files_of(ctx, "srcs", _C_SOURCES + _CXX_SOURCES)
    own = [_extract(ctx, toolchain, features, compilation, config, s, i) for i, s in enumerate(sources)]
    info = AfunixFactsInfo(
        shards = depset(own, transitive = [d.shards for d in deps]),
        sources = depset(
            sources + _files_of(ctx, "srcs", _HEADERS) + _files_of(ctx, "hdrs", _HEADERS),
            transitive = [d.sources for d in deps] + [compilation.headers],
        ),
    )
    reports = _link(ctx, config, info) if ctx.rule.kind in _PROGRAM_RULES else []
    return [
        info,
        OutputGroupInfo(afunix_facts = info.shards, afunix_report = depset(reports)),
    ]

afunix_aspect = aspect(
    implementation = _afunix_aspect_impl,
    attr_aspects = ["deps", "implementation_deps"],
    attrs = {
        "_checker": attr.label(
            default = Label("@afunix_check//:afunix-check"),
            executable = True,
            cfg = "exec",
            allow_single_file = True,
        ),
        "_config": attr.label(default = Label("//:config"), allow_files = True),
        "_fail_on": attr.label(default = Label("//:fail_on")),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)

def _afunix_test_impl(ctx):
    infos = [dep[AfunixFactsInfo] for dep in ctx.attr.deps if AfunixFactsInfo in dep]
    shards = depset(transitive = [i.shards for i in infos])
    config = ctx.files._config  # the one the aspect's extractions read
    checker = ctx.executable._checker
    # Runs in the runfiles tree of the workspace: the sources and facts at their short paths, as
    # in the execroot (files of other repositories under ../<repository>/).
    command = [checker.short_path, "link", "--several-databases", "--no-service-files",
               "--color=never", "--no-show-source", "--fail-on=" + ctx.attr.fail_on]
    command += ["--config=" + f.short_path for f in config]
    command += [f.short_path for f in shards.to_list()]
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        output = script,
        is_executable = True,
        content = "#!/bin/sh\n# afunix_test %s: exits 1 on findings at or above %s.\nexec %s\n" % (
            ctx.label,
            ctx.attr.fail_on,
            " ".join(["'%s'" % part.replace("'", "'\\''") for part in command]),
        ),
    )
    runfiles = ctx.runfiles(
        files = [checker] + config,
        transitive_files = depset(transitive = [shards] + [i.sources for i in infos]),
    )
    return [DefaultInfo(executable = script, runfiles = runfiles)]

# `bazel test` as the gate: fails when the program of `deps` (their closures, linked as one
# program) has a finding at or above `fail_on`; its log is the text report. Runs in the runfiles
# tree, where a generated header (under bazel-out/) is not at the path its facts name: its line
# text and NOLINT comments are not read there.
afunix_test = rule(
    implementation = _afunix_test_impl,
    test = True,
    attrs = {
        "deps": attr.label_list(aspects = [afunix_aspect], mandatory = True),
        "fail_on": attr.string(default = "error", values = ["error", "warning", "note"]),
        "_config": attr.label(default = Label("//:config"), allow_files = True),
        "_checker": attr.label(
            default = Label("@afunix_check//:afunix-check"),
            executable = True,
            cfg = "target",
            allow_single_file = True,
        ),
    },
)
