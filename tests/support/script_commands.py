#!/usr/bin/env python3
"""List the external commands a bash script calls.

    script_commands.py SCRIPT...      one line per script: SCRIPT<TAB>cmd cmd ...
    script_commands.py --needs SCRIPT one line: the commands the script's posviz_need lines name

A command is a word in command position (the start of a line or of a pipeline element, after
`;`, `&&`, `||`, `|`, `(`, `$(`, a backquote, `then`, `do`, `else`, `!`, a case pattern's `)`),
after leading VAR=value assignments, together with what a wrapper (`timeout`, `exec`, `env`,
`command`, `nice`, `xvfb-run`, `setpriv`, `sudo`) runs. Words that are bash builtins or keywords,
functions the script (or a file it sources) defines, variables, and relative paths are left out.
Here-document bodies are skipped: their text is another program's input, not shell.
"""
import os
import re
import sys

BUILTINS = set("""
. : [ [[ ]] alias bg bind break builtin caller case cd command compgen complete compopt continue
declare dirs disown do done echo elif else enable esac eval exec exit export false fc fg fi for
function getopts hash help history if in jobs kill let local logout mapfile popd printf pushd pwd
read readarray readonly return select set shift shopt source suspend test then time times trap
true type typeset ulimit umask unalias unset until wait while { } ! coproc
""".split())
# Wrappers: the wrapper itself is a command, and so is the first word after its options.
WRAPPERS = {"timeout", "exec", "env", "command", "nice", "xvfb-run", "setpriv", "sudo", "time"}
# Options of wrappers that take a value as the next word.
WRAPPER_VALUE_OPTS = {"-s", "-n", "-k", "--signal", "--kill-after", "-e", "-f", "-o", "-u",
                      "--reuid", "--regid", "--inh-caps", "--bounding-set", "--groups",
                      "--error-file", "--server-args", "--auth-file", "--server-num"}
SEPARATORS = {";", "&&", "||", "|", "|&", "(", ")", "&", ";;", "\n", "{", "}", "!", "then", "do",
              "else", "elif", "if", "while", "until", "time"}

HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z_0-9]*)\2")
FUNCDEF = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][A-Za-z_0-9-]*)\s*\(\)")
SOURCE = re.compile(r"^\s*(?:source|\.)\s.*?support/([A-Za-z_0-9.-]+\.sh)")


def strip_heredocs(text):
    """The script's lines with every here-document body removed."""
    out, end, dash = [], None, False
    for line in text.splitlines():
        if end is not None:
            if (line.strip() if dash else line) == end:
                end = None
            continue
        out.append(line)
        m = HEREDOC.search(line)
        if m and "<<<" not in line[max(0, m.start() - 1):m.start() + 3]:
            end, dash = m.group(3), m.group(1) == "-"
    return out


def join_continuations(lines):
    joined, cur = [], ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        joined.append(cur + line)
        cur = ""
    if cur:
        joined.append(cur)
    return joined


def matching(text, i, close=")"):
    """Index of the `close` that ends the group whose text starts at i, quotes respected."""
    depth = 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and close != "'":
            j = text.find("'", i + 1)
            i = len(text) if j < 0 else j + 1
            continue
        if c == '"':
            i = end_of_double(text, i + 1) + 1
            continue
        if c == "(" and close == ")":
            depth += 1
        elif c == "{" and close == "}":
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


def end_of_double(text, i):
    """Index of the quote that closes a double-quoted string whose text starts at i."""
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if text.startswith("$(", i):
            i = matching(text, i + 2) + 1
            continue
        if c == '"':
            return i
        i += 1
    return len(text)


def lex(text, inner):
    """Words and operators of shell text; the text of every $( ), `` and <( ) goes to inner."""
    out, word, i, n = [], None, 0, len(text)

    def flush():
        nonlocal word
        if word is not None:
            out.append(("word", word))
            word = None

    while i < n:
        c = text[i]
        if c in " \t":
            flush()
            i += 1
        elif c == "\n":
            flush()
            out.append(("op", ";"))
            i += 1
        elif c == "#" and word is None:
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "\\":
            word = (word or "") + text[i:i + 2]
            i += 2
        elif c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            word = (word or "") + text[i:j + 1]
            i = j + 1
        elif c == '"':
            j = end_of_double(text, i + 1)
            body = text[i + 1:j]
            k = 0
            while True:  # command substitutions inside the quotes
                k = body.find("$(", k)
                if k < 0:
                    break
                if body.startswith("$((", k):
                    k = matching(body, k + 3) + 1
                    continue
                e = matching(body, k + 2)
                inner(body[k + 2:e])
                k = e + 1
            word = (word or "") + text[i:j + 1]
            i = j + 1
        elif text.startswith("((", i) and word is None:  # an arithmetic command: (( i++ )), for ((;;))
            j = matching(text, i + 2)
            word = text[i:j + 2]
            i = j + 2
        elif text.startswith("$((", i):
            j = matching(text, i + 3)
            word = (word or "") + text[i:j + 2]
            i = j + 2
        elif text.startswith("$(", i) or (text.startswith(("<(", ">("), i) and word is None):
            j = matching(text, i + 2)
            inner(text[i + 2:j])
            word = (word or "") + "$(...)"
            i = j + 1
        elif text.startswith("${", i):
            j = matching(text, i + 2, "}")
            word = (word or "") + text[i:j + 1]
            i = j + 1
        elif c == "`":
            j = text.find("`", i + 1)
            j = n if j < 0 else j
            inner(text[i + 1:j])
            word = (word or "") + "$(...)"
            i = j + 1
        elif c == "(" and word is not None and word.endswith("="):  # an array: a=(x y)
            j = matching(text, i + 1)
            word += text[i:j + 1]
            i = j + 1
        elif c in ";&|()":
            flush()
            op = c
            while i + len(op) < n and text[i + len(op)] in ";&|" and len(op) < 2:
                op += text[i + len(op)]
            out.append(("op", op))
            i += len(op)
        elif c in "<>":
            if word is not None and word.isdigit():  # 2>&1: the fd belongs to the redirection
                word = None
            flush()
            j = i
            while j < n and text[j] in "<>&":
                j += 1
            if text.startswith("&-", j - 1):
                j += 1
            out.append(("redir", text[i:j]))
            i = j
        else:
            word = (word or "") + c
            i += 1
    flush()
    return out


def commands_in(text, found):
    toks = lex(text, lambda inner: commands_in(inner, found))
    at_command, wrapper_args, after_redir, in_case = True, False, False, 0
    for kind, w in toks:
        if kind == "redir":
            after_redir = not w.endswith("&") or w in ("<<", "<<-", "<<<")
            continue
        if after_redir:  # a redirection's target
            after_redir = False
            continue
        if kind == "op":
            at_command, wrapper_args = True, False
            continue
        if w == "case":
            in_case, at_command = 1, False
            continue
        if in_case == 1:
            in_case = 2 if w == "in" else 1
            if w == "in":
                at_command = True
            continue
        if w == "esac":
            in_case, at_command = 0, False
            continue
        if in_case == 2 and at_command and not wrapper_args:
            # inside a case: a pattern ends with ")", and what follows is a command
            continue
        if w in SEPARATORS:
            at_command, wrapper_args = True, False
            continue
        if not at_command:
            continue
        if re.match(r"^[A-Za-z_][A-Za-z_0-9]*(\[[^]]*\])?\+?=", w):  # VAR=value before a command
            continue
        if wrapper_args:
            if w.startswith("-"):
                if w in WRAPPER_VALUE_OPTS:
                    wrapper_args = "value"
                continue
            if wrapper_args == "value":
                wrapper_args = True
                continue
            if re.match(r"^[0-9.]+[smhd]?$", w):  # timeout's duration
                continue
        word = w.strip("\"'")
        at_command, wrapper_args = False, False
        if word in WRAPPERS:
            if word not in BUILTINS:
                found.add(word)
            at_command, wrapper_args = True, True
            continue
        found.add(word)


def script_commands(path, seen=None):
    seen = seen if seen is not None else set()
    text = open(path, encoding="utf-8").read()
    lines = join_continuations(strip_heredocs(text))
    functions, sourced = set(), []
    for line in lines:
        m = FUNCDEF.match(line)
        if m:
            functions.add(m.group(1))
        m = SOURCE.match(line)
        if m:
            sourced.append(m.group(1))
    found = set()
    commands_in("\n".join(lines), found)
    for src in sourced:  # helpers sourced from the tests' support folder define functions too
        if src not in seen:
            seen.add(src)
            sub = os.path.join(os.path.dirname(os.path.abspath(__file__)), src)
            sub_found, sub_functions = script_commands(sub, seen)
            found |= sub_found
            functions |= sub_functions
    return found, functions


def is_external(word, functions):
    if not word or word in BUILTINS or word in functions:
        return False
    if word.startswith(("$", "\"$", "'", "-", "(", "{", "<", ">", "[", "#")) or "$" in word:
        return False
    if word.startswith("/"):
        return True
    if "/" in word or "=" in word:
        return False
    return re.match(r"^[A-Za-z_][A-Za-z0-9_.+-]*$", word) is not None and not word.isdigit()


def needs(path):
    """The commands named on the script's posviz_need lines."""
    named = []
    for line in join_continuations(strip_heredocs(open(path, encoding="utf-8").read())):
        m = re.match(r"^\s*posviz_need\s+(.*)$", line)
        if m:
            named += [w for w in m.group(1).split("#")[0].split()]
    return named


def main(argv):
    if len(argv) >= 2 and argv[0] == "--needs":
        for p in argv[1:]:
            print(p + "\t" + " ".join(needs(p)))
        return 0
    for p in argv:
        found, functions = script_commands(p)
        print(p + "\t" + " ".join(sorted(w for w in found if is_external(w.strip("\"'"), functions))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
