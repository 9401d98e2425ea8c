#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# md2man.sh SRC.md VERSION [TOOL]  ->  roff man page on standard output (no pandoc needed).
#
# SRC.md (docs/man/*.1.md) is a small Markdown subset:
#   # name(1) -- one-line summary        title line: .TH and the NAME section
#   ## SECTION  /  ### Subsection        .SH / .SS
#   `-x`, `--opt ARG` on a line, then lines starting with ": "   a tagged paragraph (.TP)
#   * item                               a bullet
#   ```  ...  ```                        a verbatim block
#   `code`, **bold**, *italic*           inline fonts;  [text](url) keeps the text
#   @HELP@                               replaced by the options of `TOOL --help` (one source of truth:
#                                        the tool's own help text; see help2roff below)
# Blank lines separate paragraphs. Non-ASCII characters become groff \[uXXXX] escapes (needs perl).
set -eu
src=$1
version=$2
tool=${3:-}

# Inline Markdown -> roff, shared by both converters
INLINE='
function esc(s) {
    gsub(/\\/, "\\e", s)
    gsub(/-/, "\\-", s)
    return s
}
function inline(s,    out, m) {
    s = esc(s)
    out = ""
    while (match(s, /`[^`]+`/)) {
        out = out substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 1, RLENGTH - 2) "\\fR"
        s = substr(s, RSTART + RLENGTH)
    }
    s = out s
    while (match(s, /\*\*[^*]+\*\*/)) s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR" substr(s, RSTART + RLENGTH)
    while (match(s, /\*[^* ][^*]*\*/)) s = substr(s, 1, RSTART - 1) "\\fI" substr(s, RSTART + 1, RLENGTH - 2) "\\fR" substr(s, RSTART + RLENGTH)
    while (match(s, /\[[^]]+\]\([^)]+\)/)) {
        m = substr(s, RSTART, RLENGTH)
        sub(/\]\(.*/, "", m)
        s = substr(s, 1, RSTART - 1) substr(m, 2) substr(s, RSTART + RLENGTH)
    }
    if (s ~ /^[.\047]/) s = "\\&" s
    return s
}
'

# help2roff: the options of a --help text. Lines at column 0 are headings (.SS; a "usage:" line
# and everything from an "exit status" heading on are left out, the man page has its own),
# indented lines starting with "-" are options ("-x ARG   text": tag and text split at 2+ spaces),
# deeper-indented lines continue the text. Headings named in SKIP (sections the .md page already
# has: NAME, SYNOPSIS, DESCRIPTION, EXAMPLES) are left out with their bodies.
help2roff() {
    awk "$INLINE"'
    BEGIN { skip = 0; intp = 0; SKIP = "^(NAME|SYNOPSIS|DESCRIPTION|EXAMPLES)$" }
    /^[Uu]sage:/ { next }
    /^(EXIT STATUS|[Ee]xit status)/ { exit }
    /^[^ \t]/ {
        h = $0
        sub(/:[ \t]*$/, "", h)
        skip = (h ~ SKIP)
        if (!skip) { print ".SS \"" inline(h) "\""; intp = 0 }
        next
    }
    skip { next }
    /^[ \t]*$/ { next }
    /^ +[-(]/ && match($0, /^ +/) && RLENGTH <= 6 {
        line = $0
        sub(/^ +/, "", line)
        tag = line; text = ""
        if (match(line, /  +/)) { tag = substr(line, 1, RSTART - 1); text = substr(line, RSTART + RLENGTH) }
        print ".TP"
        print "\\fB" inline(tag) "\\fR"
        if (text != "") print inline(text)
        intp = 1
        next
    }
    {
        line = $0
        sub(/^ +/, "", line)
        if (!intp) { print ".PP"; intp = 1 }
        print inline(line)
    }
    '
}

awk -v version="$version" "$INLINE"'
function flush_para() { inpara = 0 }
NR == 1 {
    # # ubdump(1) -- summary
    name = $2; sub(/\(.*/, "", name)
    summary = $0; sub(/^[^-]*-- */, "", summary)
    printf ".TH \"%s\" 1 \"\" \"ubscope %s\" \"ubscope manual\"\n", toupper(name), version
    print ".SH NAME"
    print esc(name) " \\- " inline(summary)
    fresh = 1
    next
}
/^```/ {
    if (!verb) { print ".PP"; print ".RS 4"; print ".nf"; verb = 1 } else { print ".fi"; print ".RE"; verb = 0; fresh = 0 }
    next
}
verb { l = esc($0); if (l ~ /^[.\047]/) l = "\\&" l; print l; next }
/^@HELP@$/ { print "@HELP@"; fresh = 1; next }
/^## / { sub(/^## /, ""); print ".SH \"" $0 "\""; fresh = 1; tp = 0; next }
/^### / { sub(/^### /, ""); print ".SS \"" inline($0) "\""; fresh = 1; tp = 0; next }
/^[ \t]*$/ { blank = 1; next }
/^`[^`]+`( *,? *`[^`]+`)* *$/ { print ".TP"; print inline($0); tp = 1; blank = 0; fresh = 0; next }
/^: / { sub(/^: /, ""); print inline($0); blank = 0; next }
/^\* / { sub(/^\* /, ""); print ".IP \\(bu 2"; print inline($0); blank = 0; bullet = 1; fresh = 0; next }
{
    if (blank && !fresh) print (tp || bullet) ? ".PP" : ".PP"
    blank = 0; fresh = 0; tp = 0; bullet = 0
    sub(/^ +/, "")
    print inline($0)
}
' "$src" >"${TMPDIR:-/tmp}/md2man.$$"
trap 'rm -f "${TMPDIR:-/tmp}/md2man.$$" "${TMPDIR:-/tmp}/md2man.$$.h"' EXIT
# non-ASCII characters (docs and --help say "0x101→0x202") as groff's \[uXXXX] escapes
to_groff() { perl -CSD -pe 's/([^\x00-\x7f])/sprintf("\\[u%04X]", ord($1))/ge'; }
if grep -q '^@HELP@$' "${TMPDIR:-/tmp}/md2man.$$"; then
    [ -n "$tool" ] || { echo "md2man.sh: $src has @HELP@ but no TOOL was given" >&2; exit 2; }
    "$tool" --help 2>&1 | help2roff >"${TMPDIR:-/tmp}/md2man.$$.h"
    awk -v h="${TMPDIR:-/tmp}/md2man.$$.h" '/^@HELP@$/ { while ((getline l < h) > 0) print l; next } { print }' \
        "${TMPDIR:-/tmp}/md2man.$$" | to_groff
else
    to_groff <"${TMPDIR:-/tmp}/md2man.$$"
fi
