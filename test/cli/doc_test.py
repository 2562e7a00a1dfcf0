#!/usr/bin/env python3
"""The commands README.md and docs/*.md show, kept true.

1. Every ```pycon block (a Python session: `>>> ` lines and what they
   print) is run by Python's doctest in the folder of the console block
   before it on the page (so it may open what that block made), with the
   build's Python module importable.
2. Every ```console block is run, as a reader would run it: its `$ `
   lines in order in one bash session (stderr with stdout), in a fresh
   folder holding `data/` of the sources, with `kmerbloom` on PATH. The
   output must equal the lines shown under each command, but for run times
   ("0.1 s" matches any "N.N s") and a line `...`, which stands for any
   number of lines.
   A `$ ` line outside a console block is an error: what is shown with its
   output is checked.
3. Every `kmerbloom SUBCOMMAND ...` line of any fenced block names a
   subcommand that exists and only options its --help lists.
4. Every table of measured figures (a header naming wall, CPU, peak,
   time, RSS or a ratio, over rows with numbers) says when it was run: a
   commit (in backquotes) and a date (YYYY-MM-DD), in the table or between
   the heading above it and the lines just after it. Figures older than the
   code they describe are then seen to be so.

usage: doc_test.py KMERBLOOM SOURCE_DIR WORK_DIR; prints ok:/FAIL: lines.
"""
import os
import re
import shlex
import subprocess
import sys

KB, SRC, WORK = sys.argv[1:4]
fails = checks = 0


def report(ok, what):
    global fails, checks
    checks += 1
    fails += not ok
    print(("ok: " if ok else "FAIL: ") + what)


def blocks(path):
    """(info string, first line number, lines) of each fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            yield m.group(1), i + 1, lines[i + 1:j]
            i = j
        i += 1


def normal(line):
    return re.sub(r"\b\d+\.\d+ s\b", "N s", line.rstrip())


def matches(shown, got):
    """shown may hold '...' lines, each any number of lines of got."""
    if not shown:
        return not got
    if shown[0] == "...":
        return any(matches(shown[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and normal(shown[0]) == normal(got[0]) and matches(shown[1:], got[1:])


def run_console(path, start, lines):
    name = f"{os.path.relpath(path, SRC)}:{start}"
    steps, cmd = [], None
    for line in lines:
        if line.startswith("$ "):
            cmd = [line[2:], []]
            steps.append(cmd)
        elif cmd is not None and cmd[0].endswith("\\"):
            cmd[0] = cmd[0][:-1] + line
        elif cmd is not None:
            cmd[1].append(line)
    work = os.path.join(WORK, f"block{start}_{os.path.basename(path)}")
    os.makedirs(work, exist_ok=True)
    if not os.path.exists(os.path.join(work, "data")):
        os.symlink(os.path.join(SRC, "data"), os.path.join(work, "data"))
    env = dict(os.environ, PATH=os.path.join(WORK, "bin") + os.pathsep + os.environ["PATH"], LC_ALL="C")
    for command, shown in steps:
        while shown and shown[-1] == "":
            shown.pop()
        r = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        got = r.stdout.rstrip("\n").split("\n") if r.stdout.strip() else []
        ok = r.returncode == 0 and matches(shown, got)
        report(ok, f"{name}: $ {command}")
        if not ok:
            print(f"  exit {r.returncode}; shown:\n    " + "\n    ".join(shown) + "\n  got:\n    " + "\n    ".join(got[:40]))
    return work


PYCON = """
import doctest, sys
text = sys.stdin.read()
test = doctest.DocTestParser().get_doctest(text, {}, sys.argv[1], sys.argv[1], 0)
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
runner.run(test)
sys.exit(1 if runner.failures else 0)
"""


def sanitizer_build():
    with open(KB, "rb") as f:
        data = f.read()
    return b"__asan_init" in data or b"__tsan_init" in data


def run_pycon(path, start, lines, folder):
    name = f"{os.path.relpath(path, SRC)}:{start}"
    if not os.path.isdir(os.path.join(os.path.dirname(os.path.abspath(KB)), "python")) and sanitizer_build():
        print(f"skip: {name}: the Python session (a sanitizer build has no Python module)")
        return
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable  # Debian's, with numpy
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(KB)), "python"), LC_ALL="C")
    r = subprocess.run([python, "-c", PYCON, name], input="\n".join(lines) + "\n", cwd=folder, env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    report(r.returncode == 0, f"{name}: the Python session")
    if r.returncode != 0:
        print("  " + r.stdout[-3000:].replace("\n", "\n  "))


help_of = {}


def options_of(sub):
    if sub not in help_of:
        r = subprocess.run([KB, sub, "--help"], text=True, capture_output=True)
        help_of[sub] = None if r.returncode != 0 else set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", r.stdout))
    return help_of[sub]


def check_command(path, start, line):
    text = line.split(" #")[0].strip()
    if text.startswith("$ "):
        text = text[2:]
    for part in re.split(r"&&|\|\||;|\|(?=\s)", text):
        words = part.replace("[", " ").replace("]", " ").split()
        while words and ("=" in words[0] and not words[0].startswith("-")):
            words = words[1:]  # VAR=value before the command
        if len(words) < 2 or os.path.basename(words[0]) not in ("kmerbloom",) or words[1].startswith("-"):
            continue
        sub = words[1]
        opts = options_of(sub)
        where = f"{os.path.relpath(path, SRC)}:{start}: {part.strip()}"
        if opts is None:
            report(False, f"{where}: no subcommand '{sub}'")
            continue
        bad = []
        for w in words[2:]:
            for alt in w.split("|"):
                m = re.match(r"^(--?[A-Za-z][\w-]*)", alt)
                if m and alt.startswith("-") and m.group(1) not in opts:
                    bad.append(m.group(1))
        report(not bad, f"{where}: options exist" + (f" (not in '{sub} --help': {' '.join(bad)})" if bad else ""))


MEASURED = re.compile(r"\b(wall|CPU|cpu|peak|user time|time|RSS|ratio)\b")
COMMIT = re.compile(r"`[^`\n]*\b[0-9a-f]{7,40}\b[^`\n]*`")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def check_dated_tables(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    in_code, heading, i = False, 0, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            heading = i
        elif not in_code and line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|$", lines[i + 1]):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            if MEASURED.search(line) and re.search(r"\d", "\n".join(lines[i + 2:j])):
                around = "\n".join(lines[heading:j + 3])
                report(bool(COMMIT.search(around) and DATE.search(around)),
                       f"{os.path.relpath(path, SRC)}:{i + 1}: the measured table says its commit and date")
            i = j
            continue
        i += 1


os.makedirs(os.path.join(WORK, "bin"), exist_ok=True)
link = os.path.join(WORK, "bin", "kmerbloom")
if not os.path.exists(link):
    os.symlink(os.path.abspath(KB), link)
pages = [os.path.join(SRC, "README.md")] + sorted(
    os.path.join(SRC, "docs", f) for f in os.listdir(os.path.join(SRC, "docs")) if f.endswith(".md"))
for page in pages:
    check_dated_tables(page)
    folder = WORK  # the console block before, where a Python session runs
    for info, start, lines in blocks(page):
        if info == "pycon":
            run_pycon(page, start, lines, folder)
        if info == "console":
            folder = run_console(page, start, lines)
        elif any(line.startswith("$ ") for line in lines):
            report(False, f"{os.path.relpath(page, SRC)}:{start}: a command shown with its output ('$ ') is in a "
                          f"```{info} block: make it ```console, so that it is run and its output checked")
        for n, line in enumerate(lines):
            if re.search(r"(^|\$ |\s|/)kmerbloom \w", line):
                check_command(page, start + 1 + n, line)
print(f"{checks} checks, {fails} failed")
sys.exit(1 if fails else 0)
