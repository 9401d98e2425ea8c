#!/bin/sh
# Bash completion (scripts/completion/ubscope.bash, installed as
# share/bash-completion/completions/<tool>): sources it in bash, runs the completion function the
# way bash does (COMP_WORDS / COMP_CWORD) and checks COMPREPLY for options, option values, field
# names (-e, inside a -Y expression), -o names, -z names and file names.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -euo pipefail
: "${UB_SOURCE_DIR:?}" "${UB_BINARY_DIR:?}"
export PATH=$UB_BINARY_DIR/tools:$PATH
cd "$UB_SOURCE_DIR"
# shellcheck source=../scripts/completion/ubscope.bash
. scripts/completion/ubscope.bash
# shellcheck source=check_lib.sh
. tests/check_lib.sh
ub_check_init t_completion

# comp WORD... : COMPREPLY for the command line, the last word being completed (sorted, one a line)
comp() {
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _ubscope
    printf '%s\n' "${COMPREPLY[@]}" | sort
}
# want "description" "expected lines" WORD...: exact set
want() {
    local what=$1 exp=$2
    shift 2
    local got
    got=$(comp "$@")
    if [ "$got" = "$(printf '%s\n' "$exp" | sort)" ]; then ok; else bad "$what: got [$(echo $got)], want [$(echo $exp)]"; fi
}
# has "description" "expected lines" WORD...: every expected line is offered, and only candidates
# starting with the typed prefix
has() {
    local what=$1 exp=$2
    shift 2
    local got e
    got=$(comp "$@")
    while IFS= read -r e; do
        grep -qxF -- "$e" <<<"$got" || { bad "$what: '$e' not offered (got: $(echo $got | head -c 300))"; return; }
    done <<<"$exp"
    ok
}

check_prefix() { # description prefix WORD...: non-empty and every candidate starts with prefix
    local what=$1 p=$2
    shift 2
    local got
    got=$(comp "$@")
    if [ -n "$got" ] && ! grep -qv -- "^$(printf '%s' "$p" | sed 's/[.[\*^$]/\\&/g')" <<<"$got"; then ok; else bad "$what: $(echo $got | head -c 300)"; fi
}

# options from --help
want "ubdump --audit-*" "--audit
--audit-examples
--audit-format
--audit-output" ubdump --audit
has "ubdump -" "-r
-V
-T
-e
-Y
-z
--lua" ubdump -
has "ubreplay --re" "--report
--report-output
--requests
--resend" ubreplay --re
check_prefix "ubreplay --re prefix" --re ubreplay --re
has "ubgen --" "--pcap
--pcapng
--repeat
--hex
--noncrc" ubgen --
# values listed in the help after the option
want "ubdump -T" "text
fields
json
ek
psml
tabs
ubjson" ubdump -r x.pcapng -T ""
has "ubdump -G" "fields
rules
errors" ubdump -G ""
want "ubdump --fail-on" "error
warning
never" ubdump --fail-on ""
has "ubdump --audit-format s" "sarif" ubdump --audit-format s
has "ubdump -z" "ub,srt
ub,latency
ub,tp
ub,cfg
ub,mgmt" ubdump -z ""
want "ubpeer --loss" "gbn
sack" ubpeer --loss ""
# KEY=VALUE options: the keys, then the values the help lists (-E header=y|n)
has "ubdump -E" "header=
separator=" ubdump -T fields -E ""
want "ubdump -E header=" "header=n
header=y" ubdump -E header=
# no candidates for a placeholder argument (a count)
want "ubdump -c N" "" ubdump -c ""
# field names from ubdump -G fields
has "ubdump -e ub.rtph.p" "ub.rtph.psn" ubdump -e ub.rtph.p
check_prefix "ubdump -e ub.rtph.p prefix" ub.rtph.p ubdump -e ub.rtph.p
has "ubdump -e frame." "frame.number" ubdump -e frame.
has "ubdump -e frame.ca" "frame.cap_len" ubdump -e frame.ca
has "ubdump -e ip.s (Wireshark's names)" "ip.src" ubdump -e ip.s
has "ubdump -e _ws.col.P (columns)" "_ws.col.Protocol" ubdump -e _ws.col.P
want "ubdump -O ic" "icmp
icmpv6" ubdump -O ic
want "ubdump -O ub.bta" "ub.btah" ubdump -O ub.bta
want "ubdump -O ip,ud (after the comma)" "ip,udp" ubdump -O ip,ud
has "ubdump -O (ub, a header, Wireshark's names)" "ub
ub.rtph
eth
data
infiniband.bth" ubdump -O ""
has "ubdump -j ub.bta" "ub.btah
ub.btah.taopcode" ubdump -j ub.bta
check_prefix "ubdump -j ub.bta prefix" ub.bta ubdump -j ub.bta
has "ubdump -J 'ip ub.rt (the last name, inside quotes)" "'ip ub.rtph
'ip ub.rtph.psn" ubdump -J "'ip ub.rt"
want "ubdump -Y 'ub.btah.taop" "'ub.btah.taopcode" ubdump -Y "'ub.btah.taop"
want "ubdump -2 -R 'ub.btah.taop (the read filter)" "'ub.btah.taopcode" ubdump -2 -R "'ub.btah.taop"
want "ubdump -Y inside an expression" "ub.rtph.psn == 5 && ub.btah.taopcode" \
    ubdump -Y "ub.rtph.psn == 5 && ub.btah.taop"
has "ubreplay --fuzz" "ub.rtph.psn" ubreplay --fuzz ub.rtph.ps
# decoder options from ubdump -o help
has "ubdump -o prof" "profile=" ubdump -o prof
has "ubreplay -o crc" "crc_mode=" ubreplay -o crc
# file names
want "ubdump -r captures/cfg7" "captures/cfg7_rtp.pcapng
captures/cfg7_rtp.ub" ubdump -r captures/cfg7
want "ubdump --log-dir (directories)" "captures" ubdump --log-dir captur
want "ubgen captures/audit_nob." "captures/audit_nob.pcapng
captures/audit_nob.ub" ubgen captures/audit_nob.

ub_check_done
