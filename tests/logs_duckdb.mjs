// Loads the tables of `ubdump --log-dir DIR` into DuckDB (@duckdb/node-api) and prints, for
// tests/t_logs.sh: the row count of each table, the SQL type DuckDB inferred for a few columns, and
// the response-time rows of `ubdump -z ub,latency` / `-z ub,mgmt` computed in SQL, formatted as ubdump
// prints them (label, count, min, median, p99, max, mean; median and p99 by nearest rank).
// Usage: node logs_duckdb.mjs DIR   (run from a directory whose node_modules has @duckdb/node-api)
import { DuckDBInstance } from '@duckdb/node-api';
import { statSync } from 'node:fs';

const dir = process.argv[2];
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const rows = async (sql) => (await con.runAndReadAll(sql)).getRows();
const table = (t) => `read_json_auto('${dir}/${t}.jsonl')`;
const nonEmpty = (t) => statSync(`${dir}/${t}.jsonl`).size > 0;

for (const t of ['transactions', 'mgmt', 'tp_channels', 'findings']) {
    const n = nonEmpty(t) ? (await rows(`SELECT count(*) FROM ${table(t)}`))[0][0] : 0;
    console.log(`count\t${t}\t${n}`);
}
if (nonEmpty('transactions')) {
    const [r] = await rows(`SELECT typeof(ts), typeof(latency_ns), typeof(req_frame), typeof(op) FROM ${table('transactions')} LIMIT 1`);
    console.log(`types\ttransactions\t${r.join(',')}`);
}

// ubdump's duration format (stats.c fmt_ns): ns below 1 us, else 3 significant digits in us/ms, 4 in s
const g = (x, p) => String(parseFloat(x.toPrecision(p)));
const fmtNs = (v) => {
    const ns = Number(v);
    if (ns < 1e3) return `${ns} ns`;
    if (ns < 1e6) return `${g(ns / 1e3, 3)} us`;
    if (ns < 1e9) return `${g(ns / 1e6, 3)} ms`;
    return `${g(ns / 1e9, 4)} s`;
};
const hex2 = (k) => '0x' + Number(k).toString(16).padStart(2, '0');
// per group: count, min, nearest-rank median (rank floor((n-1)/2)+1) and p99 (rank ceil(0.99 n)), max,
// integer mean, as ubdump computes them (exact: fewer pairs than its sample size)
const latency = (t, key) => `
    SELECT k, op, n, mn, v[(n - 1) // 2 + 1], v[(n * 99 + 99) // 100], mx, s // n FROM (
        SELECT ${key} AS k, op, count(*) AS n, min(latency_ns) AS mn, max(latency_ns) AS mx,
               sum(latency_ns) AS s, list_sort(list(latency_ns)) AS v
        FROM ${table(t)} GROUP BY k, op)
    ORDER BY k`;
if (nonEmpty('transactions')) {
    for (const [k, op, n, mn, med, p99, mx, mean] of await rows(latency('transactions', 'opcode')))
        console.log(['srt', `${op} (${hex2(k)})`, n, fmtNs(mn), fmtNs(med), fmtNs(p99), fmtNs(mx), fmtNs(mean)].join('\t'));
}
if (nonEmpty('mgmt')) {
    // ubdump's key: the Code, or 8 + CMD for enumeration (state.h ub_match.opcode)
    const key = `CASE kind WHEN 'enumeration' THEN 8 + code ELSE code END`;
    for (const [k, op, n, mn, med, p99, mx, mean] of await rows(latency('mgmt', key))) {
        const label = Number(k) >= 8 ? `enumeration CMD ${Number(k) - 8} (${hex2(k)})` : `${op} (${hex2(k)})`;
        console.log(['mgmt', label, n, fmtNs(mn), fmtNs(med), fmtNs(p99), fmtNs(mx), fmtNs(mean)].join('\t'));
    }
}
