-- outstanding.lua — per-initiator limit of outstanding requests.
--
--   ubdump -r FILE -q --audit --lua lua/outstanding.lua [--lua-arg limit=8] [--lua-arg writes=1]
--
-- Rule LAB-OUT-001 (warning): an initiator (SCNA/IP address + EID of the requester) has more than
-- `limit` requests waiting for their response. Requests are counted once per transaction key
-- (initiator, target, RC, INI_TASSN — a retransmitted copy is not a second request) and leave the
-- count when the state engine matches their response (on_match), so aggregated TAACKs and
-- multi-packet responses are handled as the engine handles them. Reads and Atomics always wait for
-- a response; Writes/Sends only with --lua-arg writes=1 (RTP services may never send TAACKs).
-- A finding is raised when the count goes above the limit, again only after it fell back to it.
-- At the end, initiators still above zero are printed.
local rule = ub.rule{
    id = "LAB-OUT-001",
    severity = "warning",
    summary = "too many outstanding requests from one initiator",
    doc = "values: outstanding, limit; key: the initiator",
}
local limit = math.tointeger(tonumber(ub.args.limit or "8"))
assert(limit and limit >= 1, "outstanding.lua: --lua-arg limit=N with N >= 1")
local count_writes = ub.args.writes == "1"

local op = ub.field("ub.btah.taopcode")
local waits = {}
for name in ("Read Atomic_compare_swap Atomic_swap Atomic_store Atomic_load Atomic_fetch_add " ..
             "Atomic_fetch_sub Atomic_fetch_and Atomic_fetch_or Atomic_fetch_xor"):gmatch("%S+") do
    waits[op:value(name)] = true
end
if count_writes then
    for name in ("Send Send_with_immediate Write Write_with_immediate Write_with_notify Write_with_be"):gmatch("%S+") do
        waits[op:value(name)] = true
    end
end

local pending = {}   -- transaction key -> request frame
local byframe = {}   -- request frame -> initiator key
local count = {}     -- initiator key -> {n =, text =, over =}

function on_packet(pkt)
    local o = op(pkt)
    if not o or not waits[o] then return end
    local tx = ub.flow_key(pkt, "tx")
    if not tx or pending[tx] then return end
    local ini, text = ub.flow_key(pkt, "initiator")
    pending[tx] = pkt.frame
    byframe[pkt.frame] = { ini = ini, tx = tx }
    local c = count[ini]
    if not c then c = { n = 0, text = text }; count[ini] = c end
    c.n = c.n + 1
    if c.n > limit and not c.over then
        c.over = true
        ub.report(rule, pkt, string.format("initiator %s has %d outstanding requests (limit %d)", text, c.n, limit),
            { c.n, limit, key = "initiator", keytext = text })
    end
end

function on_match(req, rsp, latency)
    if req.kind ~= "transaction" then return end
    local r = byframe[req.frame]
    if not r then return end
    byframe[req.frame] = nil
    pending[r.tx] = nil
    local c = count[r.ini]
    c.n = c.n - 1
    if c.n <= limit then c.over = false end
end

function on_end()
    local left = {}
    for _, c in pairs(count) do
        if c.n > 0 then left[#left + 1] = c end
    end
    table.sort(left, function(a, b) return a.text < b.text end)
    for _, c in ipairs(left) do
        print(string.format("outstanding at end: %s %d", c.text, c.n))
    end
end
