#!/usr/bin/env python3
"""The source limits, in the spirit of curl's checksrc, over every product
folder (the libraries of CMakeLists.txt's TS_LIBRARY_DIRS, and cli/):

  raw-alloc        malloc/calloc/realloc/strdup/strndup/asprintf outside
                   core/ (core/alloc.h's ts_x* helpers abort on failure:
                   one out-of-memory policy)
  function-length  no function over 150 lines (signature to closing brace)
  file-length      no .c or .h file over 1,500 lines
  cmd-length       no cli/cmd_*.c over 300 lines (cli/ parses and prints;
                   decisions are made below it)
  strv-cmp         a private qsort comparator of strings (core/str.h's
                   ts_strv_cmp is the one)

What the tree held when the limit was set is listed in
tests/lint-allow.txt ("KIND PATH[:FUNCTION] N"): such an entry may shrink,
never grow, and nothing new may join it.  An entry that has shrunk is
reported so that its number can be lowered.

  lint.py SOURCE_DIR             check; exit 1 on any excess
  lint.py SOURCE_DIR --baseline  print the allowlist the tree needs today
"""
import os
import re
import sys

FUNCTION_MAX, FILE_MAX, CMD_MAX = 150, 1500, 300
STRV_CMP = re.compile(r"\breturn strcmp\(\*\((?:const )?char \*const \*\)\w+, "
                      r"\*\((?:const )?char \*const \*\)\w+\);")
ALLOC = re.compile(r"(?<![\w.>])(malloc|calloc|realloc|reallocarray|strdup|strndup|v?asprintf)\s*\(")


def product_dirs(src):
    text = open(os.path.join(src, "CMakeLists.txt")).read()
    m = re.search(r"set\(TS_LIBRARY_DIRS ([^)]*)\)", text)
    dirs = m.group(1).split() if m else []
    return [d for d in dirs + ["cli"] if os.path.isdir(os.path.join(src, d))]


def strip_code(text):
    """Comments, string and character literals blanked; newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(code):
    """(name, first line, length) of every function definition."""
    lines = code.split("\n")
    found, depth, head, start = [], 0, None, None
    for no, line in enumerate(lines, 1):
        if depth == 0:
            stripped = line.strip()
            if head is None and line[:1] not in ("", " ", "\t", "#", "}") and stripped:
                head, start = "", no
            if head is not None:
                head += " " + line
        opened = False
        for ch in line:
            if ch == "{":
                if depth == 0 and head is not None:
                    opened = True
                    block_head = head
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0 and head is not None:
                    pre = block_head.split("{")[0]
                    m = re.search(r"(\w+)\s*\(", pre)
                    if m and "=" not in pre.split("(")[0] and not re.match(r"\s*(struct|enum|union|typedef)\b[^(]*$", pre):
                        found.append((m.group(1), start, no - start + 1))
                    head = None
        if depth == 0 and head is not None and not opened and line.rstrip().endswith(";"):
            head = None  # a declaration, not a definition
    return found


def measure(src):
    got = {}
    for d in product_dirs(src):
        for root, _, names in os.walk(os.path.join(src, d)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.relpath(os.path.join(root, name), src)
                text = open(os.path.join(src, path), encoding="utf-8", errors="replace").read()
                nlines = text.count("\n")
                if nlines > FILE_MAX:
                    got[("file-length", path)] = nlines
                if path.startswith("cli/cmd_") and path.endswith(".c") and nlines > CMD_MAX:
                    got[("cmd-length", path)] = nlines
                code = strip_code(text)
                if d != "core":
                    allocs = len(ALLOC.findall(code))
                    if allocs:
                        got[("raw-alloc", path)] = allocs
                    cmps = len(STRV_CMP.findall(code))
                    if cmps:
                        got[("strv-cmp", path)] = cmps
                if path.endswith(".c"):
                    for fn, _, length in functions(code):
                        if length > FUNCTION_MAX:
                            key = ("function-length", f"{path}:{fn}")
                            got[key] = max(length, got.get(key, 0))
    return got


def main():
    src = sys.argv[1]
    got = measure(src)
    if "--baseline" in sys.argv:
        for (kind, what), n in sorted(got.items()):
            print(f"{kind} {what} {n}")
        return 0
    allow = {}
    for line in open(os.path.join(src, "tests", "lint-allow.txt")):
        line = line.split("#", 1)[0].split()
        if len(line) == 3:
            allow[(line[0], line[1])] = int(line[2])
    limit = {"function-length": FUNCTION_MAX, "file-length": FILE_MAX, "cmd-length": CMD_MAX,
             "raw-alloc": 0, "strv-cmp": 0}
    fails = 0
    for (kind, what), n in sorted(got.items()):
        cap = allow.get((kind, what))
        if cap is None:
            print(f"{kind}: {what} is {n}, the limit is {limit[kind]}")
            fails += 1
        elif n > cap:
            print(f"{kind}: {what} grew to {n} (tests/lint-allow.txt allows {cap}; "
                  f"the limit is {limit[kind]})")
            fails += 1
    for (kind, what), cap in sorted(allow.items()):
        n = got.get((kind, what), 0)
        if n < cap:
            print(f"note: {kind} {what} is down to {n}: lower tests/lint-allow.txt ({cap})")
    dirs = " ".join(product_dirs(src))
    if fails:
        print(f"{fails} over the limits in: {dirs}")
        return 1
    print(f"within the limits (allowlist {len(allow)} entries) in: {dirs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
