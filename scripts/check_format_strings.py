#!/usr/bin/env python3
"""House rule: no text from a file is ever a printf format (issue 36).

Finds every call of a printf-style function (ImGui's Text family and the format argument
of its sliders, PosLab's text_wrapped / tooltip_showf, the C library's printf family) in
the C++ sources and requires its format argument to be a string literal (adjacent literals
and PRI* macros allowed). An interface text (tr(...), T(...), a variable holding one) as a
format crashes on %s and aborts on %n: pass it as an argument ("%s", text) or through
TextUnformatted / wrapped_text / tooltip_show. Prints each offence as file:line: call.
Usage: check_format_strings.py [ROOT]   (exit 1 when any is found)
"""
import os
import re
import sys

# function name -> index of the format argument
FORMAT_ARG = {
    "Text": 0, "TextDisabled": 0, "TextWrapped": 0, "BulletText": 0, "SetTooltip": 0,
    "LogText": 0, "TextColored": 1, "LabelText": 1,
    "text_wrapped": 0, "tooltip_showf": 0, "num_text": 0,
    "printf": 0, "fprintf": 1, "sprintf": 1, "snprintf": 2, "dprintf": 1,
    "SliderFloat": 4, "SliderInt": 4, "SliderDouble": 4, "DragFloat": 5, "DragInt": 5,
    "InputFloat": 4, "InputDouble": 4, "SliderScalar": 5, "DragScalar": 6, "InputScalar": 5,
    "slider_double": 3,  # app/widgets.hpp: its format goes to ImGui::SliderScalar
}
# A wrapper that hands its own format parameter on marks that line with this comment; its
# callers are checked instead (slider_double above).
PASS_THROUGH = "format: the caller's literal"
CALL = re.compile(r"(?<![\w.>])(?:(?:ImGui|std|poslab::app)::)?(" + "|".join(FORMAT_ARG) + r")\s*\(")
LITERAL = re.compile(r'^(?:\s*(?:u8|L|u|U)?"(?:[^"\\]|\\.)*"\s*|\s*PRI[diuxX](?:8|16|32|64|PTR)\s*|\s*PRI[diuxX]LEAST\d+\s*)+$', re.S)


def strip_comments(src):
    """Blanks // and /* */ comments (keeping newlines and string literals)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in src[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def arguments(src, start):
    """The top-level arguments of the call whose '(' is at src[start-1]."""
    args, depth, i, cur = [], 0, start, []
    while i < len(src):
        c = src[i]
        if c in "\"'":
            j = i + 1
            while j < len(src) and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            cur.append(src[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append("".join(cur))
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    return args


def split_ternary(expr):
    """The branches of a top-level `cond ? a : b` (recursively), else [expr]."""
    depth, q, i = 0, -1, -1
    while i + 1 < len(expr):
        i += 1
        c = expr[i]
        if c in "\"'":  # skip a literal
            j = i + 1
            while j < len(expr) and expr[j] != c:
                j += 2 if expr[j] == "\\" else 1
            i = j
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "?" and depth == 0 and q < 0:
            q = i
        elif c == ":" and depth == 0 and q >= 0 and expr[i - 1] != ":" and expr[i + 1:i + 2] != ":":
            return split_ternary(expr[q + 1:i].strip()) + split_ternary(expr[i + 1:].strip())
    return [expr]


def safe_format(expr, src):
    """A literal; or a text made safe by as_format_text (directly or through a variable
    initialised from it in the same file); or a ternary of those."""
    branches = split_ternary(expr)
    if len(branches) > 1:
        return all(safe_format(b, src) for b in branches)
    if LITERAL.match(expr) or expr.startswith("as_format_text("):
        return True
    m = re.match(r"^(\w+)\.c_str\(\)$", expr)
    literal_plus = r'(?:"(?:[^"\\]|\\.)*"\s*\+\s*)?'
    return bool(m and re.search(r"\b" + m.group(1) + r"\s*=\s*" + literal_plus + r"as_format_text\(", src))


def check(root):
    bad = []
    for top in ("app", "cli", "core", "io", "tools", "bench"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith((".cpp", ".hpp", ".ipp", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    raw = f.read()
                src = strip_comments(raw)
                raw_lines = raw.split("\n")
                for m in CALL.finditer(src):
                    # a declaration or definition (`void text_wrapped(const char* fmt, ...)`)
                    if re.search(r"(?:void|int|bool|string)\s+$", src[max(0, m.start() - 16):m.start()]):
                        continue
                    args = arguments(src, m.end())
                    k = FORMAT_ARG[m.group(1)]
                    if len(args) <= k:
                        continue  # fewer arguments: a default format, or another overload
                    fmt = args[k].strip()
                    if m.group(1).startswith(("Slider", "Drag", "Input")) and fmt in ("nullptr", "NULL"):
                        continue
                    line = src.count("\n", 0, m.start()) + 1
                    if any(PASS_THROUGH in l for l in raw_lines[line - 1:line + 2]):
                        continue
                    if not safe_format(fmt, src):
                        rel = os.path.relpath(path, root)
                        bad.append(f"{rel}:{line}: {m.group(1)}(... {' '.join(fmt.split())[:60]} ...)")
    return bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    bad = check(root)
    if bad:
        print("A format argument that is not a string literal (text from a file must never be a "
              "format: use \"%s\" with the text as an argument, TextUnformatted, wrapped_text "
              "or tooltip_show):", file=sys.stderr)
        for b in bad:
            print("  " + b, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
