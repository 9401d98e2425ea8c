#!/bin/sh
# ubdump --log-dir (issue #10 item 5, docs/logs.md): the JSON Lines tables of bundled audit captures
# have the documented rows and values, agree with ubdump's own report and -z statistics, are the same
# with --threads 4 and with a --lua script hooked on the same matches, and load into a real DuckDB
# (@duckdb/node-api from npm, cached under the build directory) whose SQL percentiles equal
# `ubdump -z ub,latency` / `-z ub,mgmt` line for line.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -euo pipefail
U=${UBDUMP:?}
S=${UB_SOURCE_DIR:?}
B=${UB_BINARY_DIR:?}
C=$S/captures
# shellcheck source=check_lib.sh
. "$S/tests/check_lib.sh"
ub_check_init t_logs
logs() { # name capture [ubdump args...]: tables in $tmp/name
    local name=$1 cap=$2
    shift 2
    "$U" -r "$C/$cap.pcapng" --log-dir "$tmp/$name" -q "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || true
}
rows() { wc -l <"$tmp/$1/$2.jsonl" | tr -d ' '; }
# py DIR TABLE EXPR: evaluate a Python expression over the table's rows (list of dicts `r`)
py() {
    python3 -c 'import json,sys
r = [json.loads(l) for l in open(sys.argv[1])]
print(eval(sys.argv[2]))' "$tmp/$1/$2.jsonl" "$3"
}

# ---- audit_txn_clean: 13 transactions, 4 management exchanges, 6 channel directions, no finding
logs txn audit_txn_clean
for t in transactions mgmt tp_channels findings; do
    [ -f "$tmp/txn/$t.jsonl" ] && ok || bad "txn: $t.jsonl missing"
done
eq "txn transactions" "$(rows txn transactions)" 13
eq "txn mgmt" "$(rows txn mgmt)" 4
eq "txn tp_channels" "$(rows txn tp_channels)" 6
eq "txn findings" "$(rows txn findings)" 0
# every line is one JSON object with the documented fields, in the documented order
eq "txn transaction fields" "$(py txn transactions 'sorted(set(",".join(x.keys()) for x in r))')" \
    "['ts,capture,req_frame,rsp_frame,req_time_ns,rsp_time_ns,latency_ns,initiator,target,opcode,op,status,status_name,tassn']"
eq "txn first transaction" "$(py txn transactions '[r[0][k] for k in ("ts","req_frame","rsp_frame","req_time_ns","rsp_time_ns","latency_ns","initiator","target","opcode","op","status","status_name","tassn")]')" \
    "['1970-01-01T00:00:00.000010Z', 1, 3, 10000, 20000, 10000, '0x010203', '0x0a0b0c', 6, 'Read', 0, 'Successful Completion', 1]"
eq "txn capture field" "$(py txn transactions 'set(x["capture"] for x in r)')" "{'$C/audit_txn_clean.pcapng'}"
eq "txn opcodes" "$(py txn transactions 'sorted((x["op"], x["latency_ns"]) for x in r if x["op"] != "Write")')" \
    "[('Atomic_fetch_add', 10000), ('Atomic_store', 10000), ('Read', 10000), ('Read', 10000), ('Read', 10000), ('Read', 10000)]"
eq "txn latency = rsp - req" "$(py txn transactions 'all(x["rsp_time_ns"] - x["req_time_ns"] == x["latency_ns"] for x in r)')" True
eq "txn mgmt rows" "$(py txn mgmt '[(x["kind"], x["code"], x["op"], x["req_frame"], x["rsp_frame"], x["latency_ns"], x["initiator"], x["target"], x["status"]) for x in r]')" \
    "[('configuration', 2, 'Configuration Message', 40, 41, 100000, '0x0001', '0x0010', 0), ('configuration', 1, 'Link Change Message', 42, 43, 50000, '0x0010', '0x0001', 0), ('enumeration', 0, 'topology query', 44, 45, 100000, '0x0000', '0x0000', 0), ('enumeration', 2, 'query CNA', 46, 47, 100000, '0x0000', '0x0000', 0)]"
eq "txn channel 1" "$(py txn tp_channels '[r[0][k] for k in ("channel","transport","src","dst","src_tpn","dst_tpn","packets","bytes","data","acks","first_frame","last_frame","first_time_ns","last_time_ns","duration_ns")]')" \
    "['RTP 0x010203:0x101 -> 0x0a0b0c:0x202', 'RTP', '0x010203', '0x0a0b0c', 257, 514, 14, 4020, 8, 6, 1, 27, 10000, 135000, 125000]"

# ---- audit_rtp_lossy: tp_channels.jsonl is -z ub,tp, column for column
logs lossy audit_rtp_lossy
"$U" -r "$C/audit_rtp_lossy.pcapng" -q -z ub,tp >"$tmp/lossy.ztp"
awk '/^(RTP|UTP|CTP) / { n = NF; print $1 " " $2 " " $3 " " $4 "\t" $(n-10) "\t" $(n-9) "\t" $(n-8) "\t" $(n-7) "\t" $(n-6) "\t" $(n-5) "\t" $(n-4) "\t" $(n-3) "\t" $(n-2) "\t" $(n-1) "\t" $n }' \
    "$tmp/lossy.ztp" >"$tmp/lossy.zrows"
py lossy tp_channels '"\n".join("\t".join(str(x[k]) for k in ("channel","packets","bytes","data","acks","retransmissions","out_of_order","gaps","duplicates","dup_acks","naks","sacks")) for x in r)' >"$tmp/lossy.lrows"
eq "lossy channel rows" "$(wc -l <"$tmp/lossy.zrows" | tr -d ' ')" 5
if cmp -s "$tmp/lossy.zrows" "$tmp/lossy.lrows"; then ok; else bad "tp_channels.jsonl differs from -z ub,tp:"; diff "$tmp/lossy.zrows" "$tmp/lossy.lrows" || true; fi
eq "lossy gaps/retransmissions" "$(py lossy tp_channels '[(x["gaps"], x["retransmissions"], x["naks"]) for x in r]')" \
    "[(1, 4, 0), (0, 0, 1), (1, 0, 0), (0, 0, 0), (0, 0, 0)]"
eq "lossy findings" "$(py lossy findings 'sorted(((x["rule"], x["severity"], x["frame"]) for x in r), key=lambda t: t[2])')" \
    "$("$U" -r "$C/audit_rtp_lossy.pcapng" --audit --audit-format json --audit-examples 1000 | python3 -c 'import json,sys
d = json.load(sys.stdin)
print(sorted(((ru["id"], f["severity"], f["frame"]) for ru in d["rules"] for f in ru["findings"]), key=lambda t: t[2]))')"
eq "lossy finding fields" "$(py lossy findings 'r[1]')" \
    "{'ts': '1970-01-01T00:00:00.000180Z', 'capture': '$C/audit_rtp_lossy.pcapng', 'rule': 'UB-TP-003', 'severity': 'note', 'layer': 'transport', 'frame': 9, 'frames': [4], 'values': [203], 'key_kind': 'TP channel', 'key': '0x010203->0x0a0b0c TPN 0x301->0x401', 'title': 'retransmission of a PSN already sent', 'message': 'retransmission of a PSN already sent; TP channel 0x010203->0x0a0b0c TPN 0x301->0x401; values 203; frames 4'}"

# ---- audit_responder: every finding of the report is a row (19), with the report's counts per rule
logs resp audit_responder --audit
eq "resp exit status (findings)" "$(grep -c 'result: FAIL' "$tmp/resp.out" || true)" 1
eq "resp transactions" "$(rows resp transactions)" 20
eq "resp mgmt" "$(rows resp mgmt)" 2
"$U" -r "$C/audit_responder.pcapng" --audit --audit-format json >"$tmp/resp.json" || true
eq "resp findings = report total" "$(rows resp findings)" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["findings"])' "$tmp/resp.json")"
eq "resp findings per rule" "$(py resp findings 'sorted(__import__("collections").Counter(x["rule"] for x in r).items())')" \
    "$(python3 -c 'import json,sys; print(sorted((ru["id"], ru["count"]) for ru in json.load(open(sys.argv[1]))["rules"] if ru["count"]))' "$tmp/resp.json")"
eq "resp error rows" "$(py resp findings 'sum(x["severity"] == "error" for x in r)')" 12

# ---- the same tables with --threads 4 (the log runs the engine in one thread) and with a --lua on_match hook
logs j4 audit_responder --audit --threads 4
for t in transactions mgmt tp_channels findings; do
    if cmp -s "$tmp/resp/$t.jsonl" "$tmp/j4/$t.jsonl"; then ok; else bad "--threads 4: $t.jsonl differs"; fi
done
logs lua audit_txn_clean --lua "$S/lua/latency.lua"
for t in transactions mgmt tp_channels findings; do
    if cmp -s "$tmp/txn/$t.jsonl" "$tmp/lua/$t.jsonl"; then ok; else bad "--lua: $t.jsonl differs"; fi
done
eq "--lua still sees its matches" "$(awk '$1 == "transaction" && $2 == "Write" { print $3 }' "$tmp/lua.out")" 7

# ---- errors: an unusable directory is a usage/I/O error (exit 2), nothing half-written
set +e
"$U" -r "$C/audit_txn_clean.pcapng" -q --log-dir /proc/ub-no-such-dir >/dev/null 2>"$tmp/err.txt"
rc=$?
set -e
eq "--log-dir in /proc: exit" "$rc" 2
grep -q 'ubdump: /proc/ub-no-such-dir' "$tmp/err.txt" && ok || bad "--log-dir error message: $(cat "$tmp/err.txt")"

# ---- DuckDB: load the tables, compute the -z ub,latency / ub,mgmt rows in SQL
duck_skip=
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    duck_skip="node/npm not installed (scripts/deps.sh lists nodejs npm)"
else
    NPM_DIR=$B/npm-duckdb # cached: npm runs once per build directory
    DUCKDB_VERSION=1.5.6-r.1 # pinned (its versions are pre-release style: a range would not match)
    if [ ! -d "$NPM_DIR/node_modules/@duckdb/node-api" ]; then
        mkdir -p "$NPM_DIR"
        [ -f "$NPM_DIR/package.json" ] || echo '{"private": true}' >"$NPM_DIR/package.json"
        if ! (cd "$NPM_DIR" && timeout 600 npm install --no-audit --no-fund --loglevel=error @duckdb/node-api@"$DUCKDB_VERSION") >"$tmp/npm.log" 2>&1; then
            duck_skip="npm install @duckdb/node-api failed (no registry access?): $(tail -3 "$tmp/npm.log" | tr '\n' ' ')"
        fi
    fi
fi
if [ -z "$duck_skip" ]; then
    cp "$S/tests/logs_duckdb.mjs" "$NPM_DIR/logs_duckdb.mjs"
    for cap in audit_txn_clean audit_responder cfg9_coherent audit_mgmt; do
        logs "duck_$cap" "$cap"
        if ! (cd "$NPM_DIR" && node logs_duckdb.mjs "$tmp/duck_$cap") >"$tmp/duck_$cap.txt" 2>"$tmp/duck_$cap.err"; then
            bad "$cap: DuckDB failed: $(head -5 "$tmp/duck_$cap.err")"
            continue
        fi
        for t in transactions mgmt tp_channels findings; do
            eq "$cap: DuckDB count($t)" "$(awk -F'\t' -v t="$t" '$1 == "count" && $2 == t { print $3 }' "$tmp/duck_$cap.txt")" "$(rows "duck_$cap" "$t")"
        done
        "$U" -r "$C/$cap.pcapng" -q -z ub,latency -z ub,mgmt >"$tmp/z_$cap.txt"
        # ubdump's rows: "Label (0xNN)   count   min median p99 max mean" (values "N us")
        for kind in srt mgmt; do
            awk -v kind="$kind" '
                /-z ub,latency/ { sec = "srt" } /-z ub,mgmt/ { sec = "mgmt" }
                sec == kind && /\(0x[0-9a-f][0-9a-f]\) +[0-9]/ {
                    match($0, /\(0x[0-9a-f][0-9a-f]\)/); label = substr($0, 1, RSTART + RLENGTH - 1)
                    rest = substr($0, RSTART + RLENGTH); n = split(rest, w, " ")
                    printf "%s\t%s\t%s\t%s %s\t%s %s\t%s %s\t%s %s\t%s %s\n", kind, label, w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11]
                }' "$tmp/z_$cap.txt" >"$tmp/z_$cap.$kind"
            grep "^$kind	" "$tmp/duck_$cap.txt" >"$tmp/d_$cap.$kind" || true
            if [ -s "$tmp/z_$cap.$kind" ] || [ -s "$tmp/d_$cap.$kind" ]; then
                if cmp -s "$tmp/z_$cap.$kind" "$tmp/d_$cap.$kind"; then ok; else
                    bad "$cap: DuckDB -z ub,$kind rows differ from ubdump's:"; diff "$tmp/z_$cap.$kind" "$tmp/d_$cap.$kind" || true
                fi
            fi
        done
    done
    # the rows compared are real: audit_responder's Read row has a p99 above its median
    eq "DuckDB Read row" "$(grep 'Read (0x06)' "$tmp/duck_audit_responder.txt" || true)" "srt	Read (0x06)	7	100 us	100 us	199 us	199 us	114 us"
    eq "DuckDB column types" "$(awk -F'\t' '$1 == "types" { print $3 }' "$tmp/duck_audit_txn_clean.txt")" "TIMESTAMP,BIGINT,BIGINT,VARCHAR"
fi

ub_check_done
if [ -n "$duck_skip" ]; then
    echo "SKIP (DuckDB part): $duck_skip"
    exit 77
fi
