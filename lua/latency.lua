-- latency.lua — request → response latency per opcode, from the state engine's matches.
--
--   ubdump -r FILE -q --lua lua/latency.lua [--lua-arg kind=transaction|management|transport]
--
-- on_match(req, rsp, latency) is called for every request the engine pairs with its response
-- (transactions: Read → Read_response, Write → TAACK, ...; management: request → reply;
-- transport: TP data → the first TPACK covering it). Every latency is kept, so the percentiles are
-- exact (nearest rank); memory grows by 8 bytes per pair. Output, after the last packet:
--
--   latency per opcode (ns), request -> response
--   kind         opcode                       count        min        p50        p99        max       mean
--   transaction  Read                             3      10000      10000      10000      10000      10000
--
-- Rows sorted by kind, then opcode name. `--lua-arg kind=...` keeps one kind only.
local only = ub.args.kind
local rows = {}     -- "kind\0op" -> {kind=, op=, lat={...}}

function on_match(req, rsp, latency)
    if only and req.kind ~= only then return end
    local k = req.kind .. "\0" .. req.op
    local r = rows[k]
    if not r then
        r = { kind = req.kind, op = req.op, lat = {} }
        rows[k] = r
    end
    r.lat[#r.lat + 1] = latency
end

local function rank(sorted, p)  -- nearest-rank percentile of a sorted array
    local i = math.ceil(p / 100 * #sorted)
    if i < 1 then i = 1 end
    return sorted[i]
end

function on_end()
    local list = {}
    for _, r in pairs(rows) do list[#list + 1] = r end
    table.sort(list, function(a, b)
        if a.kind ~= b.kind then return a.kind < b.kind end
        return a.op < b.op
    end)
    print("latency per opcode (ns), request -> response")
    print(string.format("%-12s %-26s %8s %10s %10s %10s %10s %10s",
        "kind", "opcode", "count", "min", "p50", "p99", "max", "mean"))
    for _, r in ipairs(list) do
        table.sort(r.lat)
        local sum = 0
        for _, v in ipairs(r.lat) do sum = sum + v end
        print(string.format("%-12s %-26s %8d %10d %10d %10d %10d %10d", r.kind, r.op, #r.lat,
            r.lat[1], rank(r.lat, 50), rank(r.lat, 99), r.lat[#r.lat], sum // #r.lat))
    end
    if #list == 0 then print("(no request/response pairs)") end
end
