#!/usr/bin/env bash
# Every message that quotes input escapes it and cuts it at one length, whichever path it takes.
#   bash cli_escaping.sh <posviz-binary> <scratch-dir>
#
# The message paths are found, not listed: every option that each headless command's --help
# names (export and each of its views, model, check, train, learn, examples), every view, preset,
# step and example name, and every string field a config.json may hold (read from the shipped
# presets), is given a value made of an escape sequence, a bell, a line break and 5000 'Q's. For
# each call:
#   - stderr and stdout hold no raw control character but the line breaks of the message itself,
#     and the value's own line break never shows as one ("x" and "y" on two lines);
#   - no run of 'Q's is longer than 80 bytes, the one length every quote is cut at (displayText);
#   - the call exits 0, 1 or 2, never by a signal or a time-out.
# One line per failure, a count of the paths tried, a summary; exit 1 on any failure.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need python3
bin=${1:?usage: cli_escaping.sh POSVIZ SCRATCH}
scratch=${2:?usage: cli_escaping.sh POSVIZ SCRATCH}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scratch=$(posviz_scratch "$scratch") && mkdir -p "$scratch/o" || exit 1
exec python3 "$here/../support/escaping_sweep.py" "$bin" "$scratch" "$here/../../assets/presets"
